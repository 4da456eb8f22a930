package addonfeature

import (
	"context"
	"fmt"
	"maps"

	"k8s.io/apimachinery/pkg/api/meta"
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

// Reconciler keeps a ManagedCluster's addon labels.
type Reconciler struct {
	Client client.Client
}

// SetupWithManager registers the controller, with workers reconciles at
// once.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, workers int) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("addon-feature").
		For(&clusterv1.ManagedCluster{}, builder.WithPredicates(clusterChanged{})).
		Watches(&addonv1alpha1.ManagedClusterAddOn{}, handler.EnqueueRequestsFromMapFunc(addons.ClusterOf),
			builder.WithPredicates(addonChanged{})).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
		Complete(r)
}

// clusterChanged passes a cluster's creation and the updates that may
// change its labels: its addon labels changed (by someone else), or its
// Available condition appeared or went. A heartbeat, a status update or
// another label does not pass; a deletion has nothing left to label.
type clusterChanged struct{ predicate.Funcs }

func (clusterChanged) Update(e event.UpdateEvent) bool {
	oldMC, ok1 := e.ObjectOld.(*clusterv1.ManagedCluster)
	newMC, ok2 := e.ObjectNew.(*clusterv1.ManagedCluster)
	if !ok1 || !ok2 {
		return false
	}
	return hasAvailable(oldMC) != hasAvailable(newMC) || !maps.Equal(addonLabels(oldMC.Labels), addonLabels(newMC.Labels))
}

func (clusterChanged) Delete(event.DeleteEvent) bool   { return false }
func (clusterChanged) Generic(event.GenericEvent) bool { return false }

// addonChanged passes an addon's creation and deletion, and the updates
// that change its label: its Available condition's status, and the start
// of its deletion.
type addonChanged struct{ predicate.Funcs }

func (addonChanged) Update(e event.UpdateEvent) bool {
	oldMCA, ok1 := e.ObjectOld.(*addonv1alpha1.ManagedClusterAddOn)
	newMCA, ok2 := e.ObjectNew.(*addonv1alpha1.ManagedClusterAddOn)
	if !ok1 || !ok2 {
		return false
	}
	return Value(oldMCA) != Value(newMCA) || oldMCA.DeletionTimestamp.IsZero() != newMCA.DeletionTimestamp.IsZero()
}

func (addonChanged) Generic(event.GenericEvent) bool { return false }

// hasAvailable says whether mc has an Available condition: until its agent
// (or the hub's lease controller) has said something, it is not labelled.
func hasAvailable(mc *clusterv1.ManagedCluster) bool {
	return meta.FindStatusCondition(mc.Status.Conditions, clusterv1.ManagedClusterConditionAvailable) != nil
}

// Reconcile patches the cluster's addon labels where they differ from its
// addons' state.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	cluster := &clusterv1.ManagedCluster{}
	if err := r.Client.Get(ctx, req.NamespacedName, cluster); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !cluster.DeletionTimestamp.IsZero() || !hasAvailable(cluster) {
		return ctrl.Result{}, nil
	}
	list := &addonv1alpha1.ManagedClusterAddOnList{}
	if err := r.Client.List(ctx, list, client.InNamespace(cluster.Name), client.UnsafeDisableDeepCopy); err != nil {
		return ctrl.Result{}, fmt.Errorf("listing the addons of cluster %s: %w", cluster.Name, err)
	}
	labels, changed := relabel(cluster.Labels, wantLabels(list.Items))
	if !changed {
		return ctrl.Result{}, nil
	}
	// A merge patch of the labels that changed, a removed one as null; no
	// resourceVersion: the keys it touches are this controller's alone.
	patch := client.MergeFrom(cluster.DeepCopy())
	cluster.Labels = labels
	if err := r.Client.Patch(ctx, cluster, patch); err != nil {
		return steps.AfterWrite(ctx, fmt.Errorf("patching the addon labels of cluster %s: %w", cluster.Name, err))
	}
	ctrl.LoggerFrom(ctx).V(1).Info("Updated the cluster's addon labels", "cluster", klog.KObj(cluster), "labels", addonLabels(labels))
	return ctrl.Result{}, nil
}
