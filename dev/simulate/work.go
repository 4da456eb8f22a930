package simulate

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/corral-dev/corral/propagation/hub/aggregate"
)

// workAgents are the simulated clusters' work agents: each reports the
// ManifestWorks in its cluster's namespace applied and available at
// their generation (WorkStatus), as its cluster's identity, one status
// write per work and generation. They apply nothing. They see the works
// through one shared watch, where each real agent watches its own
// namespace; a stopped cluster's agent (an outage) ignores what arrives
// meanwhile.
type workAgents struct {
	hub     *Hub
	running func(cluster string) bool

	mu      sync.Mutex
	pending map[types.NamespacedName]*workv1.ManifestWork // the latest seen, not yet reported
	queue   workqueue.TypedRateLimitingInterface[types.NamespacedName]

	reported atomic.Int64
}

// answerWorks runs the work agents of the clusters running says are
// up, parallel reports at once, until ctx ends.
func (h *Hub) answerWorks(ctx context.Context, running func(string) bool, parallel int) *workAgents {
	limiter := workqueue.NewTypedItemExponentialFailureRateLimiter[types.NamespacedName](5*time.Millisecond, 5*time.Second)
	a := &workAgents{hub: h, running: running, pending: map[types.NamespacedName]*workv1.ManifestWork{},
		queue: workqueue.NewTypedRateLimitingQueue(limiter)}
	go func() {
		<-ctx.Done()
		a.queue.ShutDown()
	}()
	for range parallel {
		go func() {
			for a.next(ctx) {
			}
		}()
	}
	go watchEach(ctx, func(ctx context.Context) (watch.Interface, error) {
		return h.works.WorkV1().ManifestWorks(metav1.NamespaceAll).Watch(ctx, metav1.ListOptions{})
	}, func(obj any) {
		if w, ok := obj.(*workv1.ManifestWork); ok {
			a.see(w)
		}
	})
	return a
}

// see queues a work its cluster's agent has not reported at its
// generation.
func (a *workAgents) see(w *workv1.ManifestWork) {
	if appliedAtGeneration(w) || !w.DeletionTimestamp.IsZero() || !a.running(w.Namespace) {
		return
	}
	key := types.NamespacedName{Namespace: w.Namespace, Name: w.Name}
	a.mu.Lock()
	a.pending[key] = w
	a.mu.Unlock()
	a.queue.Add(key)
}

func appliedAtGeneration(w *workv1.ManifestWork) bool {
	c := meta.FindStatusCondition(w.Status.Conditions, workv1.WorkApplied)
	return c != nil && c.ObservedGeneration == w.Generation
}

func (a *workAgents) next(ctx context.Context) bool {
	key, shutdown := a.queue.Get()
	if shutdown {
		return false
	}
	defer a.queue.Done(key)
	a.mu.Lock()
	w := a.pending[key]
	delete(a.pending, key)
	a.mu.Unlock()
	if w == nil {
		return true
	}
	err := a.report(ctx, w)
	switch {
	case err == nil, apierrors.IsNotFound(err), apierrors.IsConflict(err):
		// A conflict means a newer work, which the watch brings.
		a.queue.Forget(key)
	default:
		a.mu.Lock()
		if a.pending[key] == nil {
			a.pending[key] = w
		}
		a.mu.Unlock()
		a.queue.AddRateLimited(key)
	}
	return true
}

// report writes w's status as its cluster's agent.
func (a *workAgents) report(ctx context.Context, w *workv1.ManifestWork) error {
	st, err := WorkStatus(w)
	if err != nil {
		return err
	}
	w.Status = st
	as := a.hub.as(w.Namespace)
	err = as.request(as.works.Put().Namespace(w.Namespace).Resource("manifestworks").Name(w.Name).SubResource("status").Body(w)).Do(ctx).Error()
	if err == nil {
		a.reported.Add(1)
	}
	return err
}

// WorkStatus is the status a work agent reports for w once every
// manifest is applied and available, and every Deployment has rolled
// out (its status fed back as aggregate.FeedbackRules read it: all its
// replicas ready, updated and available, its generation observed).
func WorkStatus(w *workv1.ManifestWork) (workv1.ManifestWorkStatus, error) {
	now := metav1.Now()
	cond := func(t string, s metav1.ConditionStatus, reason string) metav1.Condition {
		return metav1.Condition{Type: t, Status: s, Reason: reason, Message: reason, ObservedGeneration: w.Generation, LastTransitionTime: now}
	}
	st := workv1.ManifestWorkStatus{Conditions: []metav1.Condition{
		cond(workv1.WorkApplied, metav1.ConditionTrue, "AppliedManifestWorkComplete"),
		cond(workv1.WorkAvailable, metav1.ConditionTrue, "ResourcesAvailable"),
		cond(workv1.WorkProgressing, metav1.ConditionFalse, workv1.WorkProgressingReasonCompleted),
		cond(workv1.WorkDegraded, metav1.ConditionFalse, "WorkNotDegraded"),
	}}
	for i, m := range w.Spec.Workload.Manifests {
		var obj struct {
			metav1.TypeMeta
			Metadata metav1.ObjectMeta `json:"metadata"`
			Spec     struct {
				Replicas *int64 `json:"replicas"`
			} `json:"spec"`
		}
		if err := json.Unmarshal(m.Raw, &obj); err != nil {
			return st, fmt.Errorf("manifest %d of %s/%s: %w", i, w.Namespace, w.Name, err)
		}
		gvk := obj.GroupVersionKind()
		gvr, _ := meta.UnsafeGuessKindToResource(gvk)
		mc := workv1.ManifestCondition{
			ResourceMeta: workv1.ManifestResourceMeta{Ordinal: int32(i), Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind, //nolint:gosec // a handful of manifests
				Resource: gvr.Resource, Namespace: obj.Metadata.Namespace, Name: obj.Metadata.Name},
			Conditions: []metav1.Condition{cond(workv1.ManifestApplied, metav1.ConditionTrue, "AppliedManifestComplete"),
				cond(workv1.ManifestAvailable, metav1.ConditionTrue, "ResourceAvailable")},
		}
		if gvk.GroupKind() == (schema.GroupKind{Group: "apps", Kind: "Deployment"}) {
			mc.StatusFeedbacks = deploymentFeedback(w.Generation, ptr.Deref(obj.Spec.Replicas, 1))
		}
		st.ResourceStatus.Manifests = append(st.ResourceStatus.Manifests, mc)
	}
	return st, nil
}

// deploymentFeedback is what aggregate.FeedbackRules read from a
// Deployment of n replicas that rolled out at generation gen.
func deploymentFeedback(gen, n int64) workv1.StatusFeedbackResult {
	integer := func(name string, v int64) workv1.FeedbackValue {
		return workv1.FeedbackValue{Name: name, Value: workv1.FieldValue{Type: workv1.Integer, Integer: ptr.To(v)}}
	}
	values := []workv1.FeedbackValue{integer(aggregate.FeedbackGeneration, gen), integer(aggregate.FeedbackObservedGeneration, gen)}
	for _, c := range []string{"replicas", "updatedReplicas", "readyReplicas", "availableReplicas"} {
		values = append(values, integer(c, n))
	}
	values = append(values, workv1.FeedbackValue{Name: aggregate.FeedbackProgressingReason,
		Value: workv1.FieldValue{Type: workv1.String, String: ptr.To("NewReplicaSetAvailable")}})
	return workv1.StatusFeedbackResult{Values: values}
}
