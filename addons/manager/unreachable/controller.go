package unreachable

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/internal/steps"
)

// ReasonClusterUnknown is the addons' reason when the cluster's Unknown
// condition has none of its own to pass on.
const ReasonClusterUnknown = "ManagedClusterUnknown"

// Reconciler marks the addons of an unreachable cluster Unknown.
type Reconciler struct {
	Client client.Client
}

// SetupWithManager registers the controller, with workers reconciles at
// once.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, workers int) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("addon-unreachable").
		For(&clusterv1.ManagedCluster{}, builder.WithPredicates(becameUnknown{})).
		// An addon created, or written Available, while its cluster is
		// Unknown is marked again, as OCM's health check does on every
		// sync: the cluster's own transition has passed by then.
		Watches(&addonv1alpha1.ManagedClusterAddOn{}, handler.EnqueueRequestsFromMapFunc(addons.ClusterOf),
			builder.WithPredicates(availabilityChanged{})).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
		Complete(r)
}

// becameUnknown passes a cluster created (or first seen) Unknown, and an
// update after which it is Unknown where it was not, or Unknown for
// another reason or with another message.
type becameUnknown struct{ predicate.Funcs }

func (becameUnknown) Create(e event.CreateEvent) bool {
	mc, ok := e.Object.(*clusterv1.ManagedCluster)
	return ok && unknown(mc) != nil
}

func (becameUnknown) Update(e event.UpdateEvent) bool {
	oldMC, ok1 := e.ObjectOld.(*clusterv1.ManagedCluster)
	newMC, ok2 := e.ObjectNew.(*clusterv1.ManagedCluster)
	if !ok1 || !ok2 {
		return false
	}
	now := unknown(newMC)
	if now == nil {
		return false
	}
	before := unknown(oldMC)
	return before == nil || before.Reason != now.Reason || before.Message != now.Message
}

func (becameUnknown) Delete(event.DeleteEvent) bool   { return false }
func (becameUnknown) Generic(event.GenericEvent) bool { return false }

// availabilityChanged passes an addon created, and one whose Available
// condition changed status to other than Unknown.
type availabilityChanged struct{ predicate.Funcs }

func (availabilityChanged) Create(event.CreateEvent) bool { return true }

func (availabilityChanged) Update(e event.UpdateEvent) bool {
	status := func(o client.Object) metav1.ConditionStatus {
		mca, ok := o.(*addonv1alpha1.ManagedClusterAddOn)
		if !ok {
			return ""
		}
		if c := meta.FindStatusCondition(mca.Status.Conditions, addonv1alpha1.ManagedClusterAddOnConditionAvailable); c != nil {
			return c.Status
		}
		return ""
	}
	now := status(e.ObjectNew)
	return now != metav1.ConditionUnknown && now != status(e.ObjectOld)
}

func (availabilityChanged) Delete(event.DeleteEvent) bool   { return false }
func (availabilityChanged) Generic(event.GenericEvent) bool { return false }

// unknown is mc's Available condition if it is Unknown, else nil.
func unknown(mc *clusterv1.ManagedCluster) *metav1.Condition {
	c := meta.FindStatusCondition(mc.Status.Conditions, clusterv1.ManagedClusterConditionAvailable)
	if c == nil || c.Status != metav1.ConditionUnknown {
		return nil
	}
	return c
}

// Reconcile sets Available=Unknown on every addon of a cluster whose
// Available condition is Unknown.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	cluster := &clusterv1.ManagedCluster{}
	if err := r.Client.Get(ctx, req.NamespacedName, cluster); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	cond := unknown(cluster)
	if cond == nil {
		return ctrl.Result{}, nil
	}
	list := &addonv1alpha1.ManagedClusterAddOnList{}
	if err := r.Client.List(ctx, list, client.InNamespace(cluster.Name)); err != nil {
		return ctrl.Result{}, fmt.Errorf("listing the addons of cluster %s: %w", cluster.Name, err)
	}
	var (
		errs     []error
		conflict bool
	)
	for i := range list.Items {
		err := r.markUnknown(ctx, &list.Items[i], cond)
		switch {
		case apierrors.IsConflict(err):
			conflict = true
		case err != nil:
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return ctrl.Result{}, err
	}
	if conflict { // an addon changed since it was read: look at it again soon
		ctrl.LoggerFrom(ctx).V(4).Info("Write conflict; looking again", "cluster", klog.KObj(cluster))
		return ctrl.Result{RequeueAfter: steps.ConflictRetry}, nil
	}
	return ctrl.Result{}, nil
}

// markUnknown patches mca's Available condition to Unknown with the
// reason and message of the cluster's condition, unless it already is. The
// patch carries the addon's resourceVersion: it replaces the whole list of
// conditions, which others write too.
func (r *Reconciler) markUnknown(ctx context.Context, mca *addonv1alpha1.ManagedClusterAddOn, cluster *metav1.Condition) error {
	original := mca.DeepCopy()
	reason := cluster.Reason
	if reason == "" {
		reason = ReasonClusterUnknown
	}
	if !meta.SetStatusCondition(&mca.Status.Conditions, metav1.Condition{
		Type:               addonv1alpha1.ManagedClusterAddOnConditionAvailable,
		Status:             metav1.ConditionUnknown,
		Reason:             reason,
		Message:            cluster.Message,
		ObservedGeneration: mca.Generation,
	}) {
		return nil
	}
	if err := r.Client.Status().Patch(ctx, mca, client.MergeFromWithOptions(original, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("marking addon %s/%s Unknown: %w", mca.Namespace, mca.Name, err)
	}
	ctrl.LoggerFrom(ctx).V(1).Info("Cluster unreachable; addon availability unknown", "addon", klog.KObj(mca), "reason", reason)
	return nil
}
