package propagation_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/aggregate"
)

// agentWorkers is how many works the simulated agent reports at once: the
// ten clusters' agents together.
const agentWorkers = 32

// agent is the simulated work agent of every cluster: a bare client that
// reports each propagation's ManifestWork applied and available at its
// generation, with each Deployment's status fed back as its feedback
// rules ask (its replicas all ready, updated and available, its
// generation observed), one status write per work and generation. It
// reads the works from the benchmark's cache and applies nothing.
type agent struct {
	c      client.Client
	reader client.Reader
	queue  workqueue.TypedRateLimitingInterface[types.NamespacedName]
}

func newAgent(c client.Client, reader client.Reader) *agent {
	limiter := workqueue.NewTypedItemExponentialFailureRateLimiter[types.NamespacedName](5*time.Millisecond, time.Second)
	return &agent{c: c, reader: reader, queue: workqueue.NewTypedRateLimitingQueue(limiter)}
}

// onWork queues a work the agent has not reported at its generation.
func (a *agent) onWork(w *workv1.ManifestWork) {
	if !appliedAtGeneration(w) && w.DeletionTimestamp.IsZero() {
		a.queue.Add(types.NamespacedName{Namespace: w.Namespace, Name: w.Name})
	}
}

func appliedAtGeneration(w *workv1.ManifestWork) bool {
	c := meta.FindStatusCondition(w.Status.Conditions, workv1.WorkApplied)
	return c != nil && c.ObservedGeneration == w.Generation
}

// start runs the agent's workers until the benchmark ends.
func (a *agent) start(ctx context.Context, b *testing.B) {
	b.Cleanup(a.queue.ShutDown)
	for range agentWorkers {
		go func() {
			for a.next(ctx) {
			}
		}()
	}
}

func (a *agent) next(ctx context.Context) bool {
	key, shutdown := a.queue.Get()
	if shutdown {
		return false
	}
	defer a.queue.Done(key)
	if err := a.report(ctx, key); err != nil {
		a.queue.AddRateLimited(key)
		return true
	}
	a.queue.Forget(key)
	return true
}

// report writes the work's status: applied, available, and the
// Deployment's feedback. A conflict is tried again from the cache.
func (a *agent) report(ctx context.Context, key types.NamespacedName) error {
	w := &workv1.ManifestWork{}
	if err := a.reader.Get(ctx, key, w); err != nil {
		return client.IgnoreNotFound(err)
	}
	if appliedAtGeneration(w) || !w.DeletionTimestamp.IsZero() {
		return nil
	}
	st, err := agentStatus(w)
	if err != nil {
		return err
	}
	w.Status = st
	if err := a.c.Status().Update(ctx, w); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return nil
}

// agentStatus is the status an agent reports for w once every manifest is
// applied and available and every Deployment has rolled out.
func agentStatus(w *workv1.ManifestWork) (workv1.ManifestWorkStatus, error) {
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

// revisionOf is the revision a work's label names, 0 for none.
func revisionOf(w *workv1.ManifestWork) int64 {
	n, _ := strconv.ParseInt(w.Labels[v1alpha1.LabelRevision], 10, 64)
	return n
}

func revisionLabel(n int64) string { return strconv.FormatInt(n, 10) }
