package addonowner

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/corral-dev/corral/internal/steps"
)

// Reconciler adds the ClusterManagementAddOn owner reference.
type Reconciler struct {
	Client client.Client
}

// SetupWithManager registers the controller, with workers reconciles at
// once.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, workers int) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("addon-owner").
		For(&addonv1alpha1.ManagedClusterAddOn{}).
		Watches(&addonv1alpha1.ClusterManagementAddOn{}, handler.EnqueueRequestsFromMapFunc(AddonsNamedAfter(r.Client))).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
		Complete(r)
}

// NameIndex indexes ManagedClusterAddOns by name in the manager's cache:
// an addon's ManagedClusterAddOns, one per cluster, share its name.
const NameIndex = "addon.corral.dev/name"

// IndexByName adds NameIndex to mgr's cache; the lifecycle controllers
// list by it.
func IndexByName(ctx context.Context, mgr ctrl.Manager) error {
	return mgr.GetFieldIndexer().IndexField(ctx, &addonv1alpha1.ManagedClusterAddOn{}, NameIndex,
		func(o client.Object) []string { return []string{o.GetName()} })
}

// AddonsNamedAfter maps a ClusterManagementAddOn to its
// ManagedClusterAddOns, read with c (a cache with NameIndex).
func AddonsNamedAfter(c client.Client) handler.MapFunc {
	return func(ctx context.Context, cma client.Object) []reconcile.Request {
		list := &addonv1alpha1.ManagedClusterAddOnList{}
		if err := c.List(ctx, list, client.MatchingFields{NameIndex: cma.GetName()}, client.UnsafeDisableDeepCopy); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "Listing the ManagedClusterAddOns of an addon", "addon", cma.GetName())
			return nil
		}
		reqs := make([]reconcile.Request, 0, len(list.Items))
		for i := range list.Items {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
		}
		return reqs
	}
}

// Reconcile adds the owner reference where it is missing.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	mca := &addonv1alpha1.ManagedClusterAddOn{}
	if err := r.Client.Get(ctx, req.NamespacedName, mca); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	cma := &addonv1alpha1.ClusterManagementAddOn{}
	if err := r.Client.Get(ctx, types.NamespacedName{Name: mca.Name}, cma); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err) // an addon nobody manages: nothing to own it
	}
	if !ManagedByAddonManager(cma) {
		return ctrl.Result{}, nil
	}
	owners, changed := withOwner(mca.OwnerReferences, cma)
	if !changed {
		return ctrl.Result{}, nil
	}
	patch := client.MergeFromWithOptions(mca.DeepCopy(), client.MergeFromWithOptimisticLock{})
	mca.OwnerReferences = owners
	if err := r.Client.Patch(ctx, mca, patch); err != nil {
		return steps.AfterWrite(ctx, fmt.Errorf("adding the owner reference of %s/%s: %w", mca.Namespace, mca.Name, err))
	}
	ctrl.LoggerFrom(ctx).V(1).Info("Owned a ManagedClusterAddOn by its ClusterManagementAddOn", "addon", klog.KObj(mca))
	return ctrl.Result{}, nil
}

// ToAddon maps a ManagedClusterAddOn to the ClusterManagementAddOn of its
// name.
func ToAddon(_ context.Context, mca client.Object) []reconcile.Request {
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: mca.GetName()}}}
}

// ManagedByAddonManager says whether the hub runs cma's lifecycle: unless
// its lifecycle annotation says the addon does it itself.
func ManagedByAddonManager(cma *addonv1alpha1.ClusterManagementAddOn) bool {
	v, ok := cma.Annotations[addonv1alpha1.AddonLifecycleAnnotationKey]
	return !ok || v == addonv1alpha1.AddonLifecycleAddonManagerAnnotationValue
}

// OwnerReference is the reference a ManagedClusterAddOn has to cma: its
// controller, unless another controller is there first.
func OwnerReference(cma *addonv1alpha1.ClusterManagementAddOn) metav1.OwnerReference {
	return *metav1.NewControllerRef(cma, schema.GroupVersionKind{Group: addonv1alpha1.GroupName, Version: addonv1alpha1.GroupVersion.Version, Kind: "ClusterManagementAddOn"})
}

// withOwner returns owners with a reference to cma, and whether it added
// one. A reference to an earlier ClusterManagementAddOn of that name (a
// different UID) is replaced.
func withOwner(owners []metav1.OwnerReference, cma *addonv1alpha1.ClusterManagementAddOn) ([]metav1.OwnerReference, bool) {
	want := OwnerReference(cma)
	var kept []metav1.OwnerReference
	otherController := false
	for _, o := range owners {
		if o.Kind == want.Kind && o.Name == want.Name && strings.HasPrefix(o.APIVersion, addonv1alpha1.GroupName+"/") {
			if o.UID == want.UID {
				return owners, false
			}
			continue // a deleted ClusterManagementAddOn of that name
		}
		otherController = otherController || (o.Controller != nil && *o.Controller)
		kept = append(kept, o)
	}
	if otherController {
		want.Controller = nil
	}
	return append(kept, want), true
}
