package taint

import (
	"context"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/corral-dev/corral/internal/fieldpatch"
	"github.com/corral-dev/corral/registration/common"

	"github.com/corral-dev/corral/internal/steps"
)

// Reconciler maintains the availability taints.
type Reconciler struct {
	Client client.Client
	// APIReader reads live clusters, past the cache, when a write finds
	// the cache behind; nil means Client.
	APIReader client.Reader
	Clock     clock.PassiveClock
}

// SetupWithManager registers the controller, with workers reconciles at once.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, workers int) error {
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("managedcluster-taint").
		For(&clusterv1.ManagedCluster{}, builder.WithPredicates(availabilityOrTaintsChanged{})).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
		Complete(r)
}

// availabilityOrTaintsChanged passes the cluster updates that can change
// its availability taints: the Available condition, the taints themselves
// (someone removing one), the cleanup finalizer coming (the cluster is
// taken in) and the start of a deletion. Other finalizers, the acceptance
// or the agent's other conditions do not.
type availabilityOrTaintsChanged struct{ predicate.Funcs }

func (availabilityOrTaintsChanged) Update(e event.UpdateEvent) bool {
	oldMC, ok1 := e.ObjectOld.(*clusterv1.ManagedCluster)
	newMC, ok2 := e.ObjectNew.(*clusterv1.ManagedCluster)
	if !ok1 || !ok2 {
		return false
	}
	return common.ConditionStatus(oldMC, clusterv1.ManagedClusterConditionAvailable) != common.ConditionStatus(newMC, clusterv1.ManagedClusterConditionAvailable) ||
		!equality.Semantic.DeepEqual(oldMC.Spec.Taints, newMC.Spec.Taints) ||
		controllerutil.ContainsFinalizer(oldMC, clusterv1.ManagedClusterFinalizer) != controllerutil.ContainsFinalizer(newMC, clusterv1.ManagedClusterFinalizer) ||
		oldMC.DeletionTimestamp.IsZero() != newMC.DeletionTimestamp.IsZero()
}

// Reconcile writes the taints the Available condition calls for.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	cluster := &clusterv1.ManagedCluster{}
	if err := r.Client.Get(ctx, req.NamespacedName, cluster); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !cluster.DeletionTimestamp.IsZero() || !controllerutil.ContainsFinalizer(cluster, clusterv1.ManagedClusterFinalizer) {
		// A cluster the acceptance controller has not taken in yet gets
		// its first taints with its finalizer, in one write.
		return ctrl.Result{}, nil
	}
	taints := Desired(cluster.Spec.Taints, cluster.Status.Conditions, metav1.NewTime(r.Clock.Now()))
	if equality.Semantic.DeepEqual(taints, cluster.Spec.Taints) {
		return ctrl.Result{}, nil
	}
	ctrl.LoggerFrom(ctx).V(1).Info("Updating availability taints", "cluster", cluster.Name, "taints", len(taints))
	return steps.AfterWrite(ctx, r.patchTaints(ctx, cluster, taints))
}

// patchTaints sets the cluster's taints if they are still what was read.
// It tests the taints rather than the resourceVersion, so that the
// acceptance controller or an admin writing the cluster at the same moment
// does not make it fail. When the test fails — the cache was behind, or the
// taints are stored in a form the cache does not show (an empty list) — it
// decides again on the live cluster, under its resourceVersion.
func (r *Reconciler) patchTaints(ctx context.Context, cluster *clusterv1.ManagedCluster, taints []clusterv1.Taint) error {
	patch, err := fieldpatch.Set("/spec/taints", cluster.Spec.Taints, taints)
	if err != nil {
		return err
	}
	if err := r.Client.Patch(ctx, cluster, patch); !fieldpatch.Changed(err) {
		return err
	}
	live := &clusterv1.ManagedCluster{}
	if err := r.reader().Get(ctx, client.ObjectKeyFromObject(cluster), live); err != nil {
		return client.IgnoreNotFound(err)
	}
	taints = Desired(live.Spec.Taints, live.Status.Conditions, metav1.NewTime(r.Clock.Now()))
	if equality.Semantic.DeepEqual(taints, live.Spec.Taints) || !live.DeletionTimestamp.IsZero() {
		return nil
	}
	original := live.DeepCopy()
	live.Spec.Taints = taints
	return r.Client.Patch(ctx, live, client.MergeFromWithOptions(original, client.MergeFromWithOptimisticLock{}))
}

func (r *Reconciler) reader() client.Reader {
	if r.APIReader != nil {
		return r.APIReader
	}
	return r.Client
}

// Desired returns current with the availability taints the conditions call
// for: other taints, and an availability taint that stays, keep their place
// and timeAdded; a new one is added at now.
func Desired(current []clusterv1.Taint, conditions []metav1.Condition, now metav1.Time) []clusterv1.Taint {
	want := ""
	switch cond := meta.FindStatusCondition(conditions, clusterv1.ManagedClusterConditionAvailable); {
	case cond == nil || cond.Status == metav1.ConditionUnknown:
		want = clusterv1.ManagedClusterTaintUnreachable
	case cond.Status == metav1.ConditionFalse:
		want = clusterv1.ManagedClusterTaintUnavailable
	}
	var out []clusterv1.Taint
	present := false
	for _, t := range current {
		switch t.Key {
		case want:
			present = true
		case clusterv1.ManagedClusterTaintUnreachable, clusterv1.ManagedClusterTaintUnavailable:
			continue
		}
		out = append(out, t)
	}
	if want != "" && !present {
		out = append(out, clusterv1.Taint{Key: want, Effect: clusterv1.TaintEffectNoSelect, TimeAdded: now})
	}
	return out
}
