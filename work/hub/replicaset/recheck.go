package replicaset

import (
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
)

// rechecker brings a set back when the injected clock reaches a rollout
// deadline (the end of a minSuccessTime, a progressDeadline): a requeue
// would wait on the real clock, which a test's fake clock does not move.
type rechecker struct {
	clock  clock.WithDelayedExecution
	events chan event.TypedGenericEvent[client.Object]

	mu     sync.Mutex
	timers map[types.NamespacedName]pending
}

// pending is a timer that has not fired yet, and when it fires.
type pending struct {
	at    time.Time
	timer clock.Timer
}

func newRechecker(c clock.WithDelayedExecution) *rechecker {
	return &rechecker{clock: c, events: make(chan event.TypedGenericEvent[client.Object]), timers: map[types.NamespacedName]pending{}}
}

// at brings key back when the clock reaches when, unless it is due back
// sooner; at once if the clock is past when already (it moved while the
// rollout was decided: a fake clock in a test may move a long way).
func (r *rechecker) at(key types.NamespacedName, when time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.timers[key]; ok {
		if !p.at.After(when) {
			return
		}
		p.timer.Stop()
		delete(r.timers, key)
	}
	d := when.Sub(r.clock.Now())
	if d <= 0 {
		go r.fire(key, when)
		return
	}
	// A fake clock calls the function while it holds its own lock: hand
	// the work to a goroutine that may take ours and block on the queue.
	timer := r.clock.AfterFunc(d, func() { go r.fire(key, when) })
	r.timers[key] = pending{at: when, timer: timer}
}

// fire enqueues key, forgetting the timer unless a newer one replaced it.
func (r *rechecker) fire(key types.NamespacedName, at time.Time) {
	r.mu.Lock()
	if p, ok := r.timers[key]; ok && p.at.Equal(at) {
		delete(r.timers, key)
	}
	r.mu.Unlock()
	r.events <- event.TypedGenericEvent[client.Object]{Object: &workv1alpha1.ManifestWorkReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name},
	}}
}

// forget stops key's timer: the set is gone.
func (r *rechecker) forget(key types.NamespacedName) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.timers[key]; ok {
		p.timer.Stop()
		delete(r.timers, key)
	}
}
