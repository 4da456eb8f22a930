package install

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/corral-dev/corral/addons/manager/addonowner"
	"github.com/corral-dev/corral/internal/steps"
)

// InstalledByAnnotation marks a ManagedClusterAddOn that an install
// strategy created (value InstalledByStrategy): only those does the
// strategy delete again.
const (
	InstalledByAnnotation = "addon.corral.dev/installed-by"
	InstalledByStrategy   = "install-strategy"
)

// Reconciler runs install strategies.
type Reconciler struct {
	Client client.Client
}

// scope is what one reconcile of a ClusterManagementAddOn works on.
type scope struct {
	cma *addonv1alpha1.ClusterManagementAddOn
	// addons are its ManagedClusterAddOns, by namespace (cluster).
	addons map[string]*addonv1alpha1.ManagedClusterAddOn
}

// SetupWithManager registers the controller, with workers reconciles at
// once.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, workers int) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("addon-install").
		For(&addonv1alpha1.ClusterManagementAddOn{}).
		Watches(&addonv1alpha1.ManagedClusterAddOn{}, handler.EnqueueRequestsFromMapFunc(addonowner.ToAddon)).
		Watches(&clusterv1beta1.Placement{}, handler.EnqueueRequestsFromMapFunc(AddonsPlacedBy(r.Client))).
		Watches(&clusterv1beta1.PlacementDecision{}, handler.EnqueueRequestsFromMapFunc(AddonsPlacedBy(r.Client))).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
		Complete(r)
}

// AddonsPlacedBy maps a Placement, or one of its PlacementDecisions, to
// the ClusterManagementAddOns whose install strategy names that placement,
// read with c.
func AddonsPlacedBy(c client.Client) handler.MapFunc {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		placement := addonv1alpha1.PlacementRef{Namespace: obj.GetNamespace(), Name: obj.GetName()}
		if _, ok := obj.(*clusterv1beta1.PlacementDecision); ok {
			placement.Name = obj.GetLabels()[clusterv1beta1.PlacementLabel]
		}
		list := &addonv1alpha1.ClusterManagementAddOnList{}
		if err := c.List(ctx, list, client.UnsafeDisableDeepCopy); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "Listing ClusterManagementAddOns", "placement", placement)
			return nil
		}
		var reqs []reconcile.Request
		for i := range list.Items {
			for _, p := range list.Items[i].Spec.InstallStrategy.Placements {
				if p.PlacementRef == placement {
					reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Name: list.Items[i].Name}})
					break
				}
			}
		}
		return reqs
	}
}

// Reconcile runs the addon's install strategy and writes its status.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	cma := &addonv1alpha1.ClusterManagementAddOn{}
	if err := r.Client.Get(ctx, req.NamespacedName, cma); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if cma.DeletionTimestamp != nil || !addonowner.ManagedByAddonManager(cma) {
		return ctrl.Result{}, nil
	}
	ctx = ctrl.LoggerInto(ctx, ctrl.LoggerFrom(ctx).WithValues("addon", klog.KObj(cma)))
	s := &scope{cma: cma}
	return steps.Run(ctx, s,
		steps.Step[*scope]{Name: "list addons", Run: r.listAddons},
		steps.Step[*scope]{Name: "install by placements", Run: r.installByPlacements},
		steps.Step[*scope]{Name: "status", Run: r.writeStatus},
	)
}

// listAddons finds the addon's ManagedClusterAddOns.
func (r *Reconciler) listAddons(ctx context.Context, s *scope) (steps.Result, error) {
	list := &addonv1alpha1.ManagedClusterAddOnList{}
	if err := r.Client.List(ctx, list, client.MatchingFields{addonowner.NameIndex: s.cma.Name}); err != nil {
		return steps.StopList, fmt.Errorf("listing ManagedClusterAddOns: %w", err)
	}
	s.addons = make(map[string]*addonv1alpha1.ManagedClusterAddOn, len(list.Items))
	for i := range list.Items {
		s.addons[list.Items[i].Namespace] = &list.Items[i]
	}
	return steps.Continue, nil
}
