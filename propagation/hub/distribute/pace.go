package distribute

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// DefaultProgressInterval is how long a propagation's status in progress
// waits after its last write (of its works or its status) before it is
// written: the agents' reports that arrive meanwhile go out in one write.
// A status that reached its end (every cluster applied and available, a
// failure, nothing scheduled) is written at once.
//
// Without it a rollout wrote the status three times per propagation (its
// works written, some clusters reported, all reported):
// test/benchmark/propagation made 3000 status writes for 1000
// propagations created, where the floor makes 1000, and most of a
// rollout's time there is the API server's CPU per write.
const DefaultProgressInterval = 2 * time.Second

// pacer holds back the status writes of propagations in progress: at most
// one per interval each, counted from their last write.
type pacer struct {
	interval time.Duration
	now      func() time.Time

	mu   sync.Mutex
	last map[types.NamespacedName]time.Time
}

// newPacer paces at interval; nil, which never holds back, for none.
func newPacer(interval time.Duration) *pacer {
	if interval <= 0 {
		return nil
	}
	return &pacer{interval: interval, now: time.Now, last: map[types.NamespacedName]time.Time{}}
}

// wrote records a write of key: of its finalizer, works or status.
func (p *pacer) wrote(key types.NamespacedName) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last[key] = p.now()
}

// wait is how long key's status in progress must wait before it is
// written; 0 to write it now.
func (p *pacer) wait(key types.NamespacedName) time.Duration {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	last, ok := p.last[key]
	if !ok {
		return 0
	}
	return max(0, last.Add(p.interval).Sub(p.now()))
}

// forget drops key, a propagation gone.
func (p *pacer) forget(key types.NamespacedName) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.last, key)
}

// settled says a status needs no holding back: every cluster applied and
// available, or some failed, or nothing is scheduled (but while the
// selector has not made the first revision yet) or could be written.
func settled(st *v1alpha1.PropagationStatus) bool {
	applied := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionApplied)
	scheduled := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionScheduled)
	switch {
	case applied == nil || scheduled == nil || applied.Reason == ReasonWriteFailed || st.Summary.Failed > 0:
		return true
	case scheduled.Status != metav1.ConditionTrue:
		return scheduled.Reason != ReasonNoRevision
	}
	return applied.Status == metav1.ConditionTrue && meta.IsStatusConditionTrue(st.Conditions, v1alpha1.ConditionAvailable)
}
