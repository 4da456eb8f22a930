package rollout

import (
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// Rechecker brings an object back to its controller when the injected
// clock reaches a rollout deadline (the end of a minSuccessTime, a
// progressDeadline): a requeue would wait on the real clock, which a
// test's fake clock does not move.
type Rechecker struct {
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

// NewRechecker is a Rechecker on c; its Source goes to the controller.
func NewRechecker(c clock.WithDelayedExecution) *Rechecker {
	return &Rechecker{clock: c, events: make(chan event.TypedGenericEvent[client.Object]), timers: map[types.NamespacedName]pending{}}
}

// Source is what the controller watches (WatchesRawSource): the keys
// that are due back.
func (r *Rechecker) Source() source.Source {
	return source.Channel(r.events, &handler.TypedEnqueueRequestForObject[client.Object]{})
}

// At brings key back when the clock reaches when, unless it is due back
// sooner; at once if the clock is past when already (it moved while the
// rollout was decided: a fake clock in a test may move a long way).
func (r *Rechecker) At(key types.NamespacedName, when time.Time) {
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
func (r *Rechecker) fire(key types.NamespacedName, at time.Time) {
	r.mu.Lock()
	if p, ok := r.timers[key]; ok && p.at.Equal(at) {
		delete(r.timers, key)
	}
	r.mu.Unlock()
	r.events <- event.TypedGenericEvent[client.Object]{Object: &metav1.PartialObjectMetadata{
		ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name},
	}}
}

// Forget stops key's timer: the object is gone.
func (r *Rechecker) Forget(key types.NamespacedName) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.timers[key]; ok {
		p.timer.Stop()
		delete(r.timers, key)
	}
}
