package addonconfig

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	"github.com/corral-dev/corral/addons/manager/install"

	corralreconcile "github.com/corral-dev/corral/internal/reconcile"
)

// Condition reasons of ManagedClusterAddOnConditionConfigured.
const ReasonConfigured = "ConfigurationsConfigured"

// Reconciler writes ManagedClusterAddOns' desired configs.
type Reconciler struct {
	Client client.Client
}

// SetupWithManager registers the controller, with workers reconciles at
// once.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, workers int) error {
	toAddons := addonowner.AddonsNamedAfter(r.Client)
	placed := func(ctx context.Context, obj client.Object) []reconcile.Request {
		var reqs []reconcile.Request
		for _, cma := range install.AddonsPlacedBy(r.Client)(ctx, obj) {
			reqs = append(reqs, toAddons(ctx, &addonv1alpha1.ClusterManagementAddOn{ObjectMeta: metav1.ObjectMeta{Name: cma.Name}})...)
		}
		return reqs
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("addon-config").
		For(&addonv1alpha1.ManagedClusterAddOn{}).
		Watches(&addonv1alpha1.ClusterManagementAddOn{}, handler.EnqueueRequestsFromMapFunc(toAddons)).
		Watches(&clusterv1beta1.Placement{}, handler.EnqueueRequestsFromMapFunc(placed)).
		Watches(&clusterv1beta1.PlacementDecision{}, handler.EnqueueRequestsFromMapFunc(placed)).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
		Complete(r)
}

// Reconcile writes the addon's config references and Configured condition.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	mca := &addonv1alpha1.ManagedClusterAddOn{}
	if err := r.Client.Get(ctx, req.NamespacedName, mca); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	cma := &addonv1alpha1.ClusterManagementAddOn{}
	if err := r.Client.Get(ctx, types.NamespacedName{Name: mca.Name}, cma); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if mca.DeletionTimestamp != nil || !addonowner.ManagedByAddonManager(cma) {
		return ctrl.Result{}, nil
	}
	desired, err := r.desiredConfigs(ctx, cma, mca)
	if err != nil {
		return ctrl.Result{}, err
	}
	old := mca.DeepCopy()
	mca.Status.ConfigReferences = ConfigReferences(desired, mca.Status.ConfigReferences)
	meta.SetStatusCondition(&mca.Status.Conditions, metav1.Condition{
		Type: addonv1alpha1.ManagedClusterAddOnConditionConfigured, Status: metav1.ConditionTrue,
		Reason: ReasonConfigured, Message: "Configurations configured", ObservedGeneration: mca.Generation,
	})
	if equality.Semantic.DeepEqual(old.Status, mca.Status) {
		return ctrl.Result{}, nil
	}
	if err := r.Client.Status().Patch(ctx, mca, client.MergeFromWithOptions(old, client.MergeFromWithOptimisticLock{})); err != nil {
		return corralreconcile.AfterWrite(ctx, fmt.Errorf("writing the configs of %s/%s: %w", mca.Namespace, mca.Name, err))
	}
	ctrl.LoggerFrom(ctx).V(1).Info("Set an addon's desired configs", "addon", klog.KObj(mca), "configs", len(desired))
	return ctrl.Result{}, nil
}

// desiredConfigs are the addon's configs on its cluster: the defaults, the
// configs of the last placement deciding on the cluster, then its own.
func (r *Reconciler) desiredConfigs(ctx context.Context, cma *addonv1alpha1.ClusterManagementAddOn, mca *addonv1alpha1.ManagedClusterAddOn) ([]addonv1alpha1.AddOnConfig, error) {
	desired := install.PlacementConfigs(cma.Spec.SupportedConfigs, nil) //nolint:staticcheck // v1alpha1 is the stored version; its supportedConfigs is v1beta1's defaultConfigs
	if cma.Spec.InstallStrategy.Type == addonv1alpha1.AddonInstallStrategyPlacements {
		for _, p := range cma.Spec.InstallStrategy.Placements {
			clusters, err := install.PlacementClusters(ctx, r.Client, p.PlacementRef)
			if err != nil {
				return nil, err
			}
			if clusters.Has(mca.Namespace) {
				desired = install.PlacementConfigs(cma.Spec.SupportedConfigs, p.Configs) //nolint:staticcheck // v1alpha1 is the stored version; its supportedConfigs is v1beta1's defaultConfigs
			}
		}
	}
	return Override(desired, mca.Spec.Configs), nil
}

// Override replaces, per group and resource, the configs in base by those
// of over.
func Override(base, over []addonv1alpha1.AddOnConfig) []addonv1alpha1.AddOnConfig {
	kept := slices.DeleteFunc(slices.Clone(base), func(b addonv1alpha1.AddOnConfig) bool {
		return slices.ContainsFunc(over, func(o addonv1alpha1.AddOnConfig) bool { return o.ConfigGroupResource == b.ConfigGroupResource })
	})
	for _, o := range over {
		if !slices.Contains(kept, o) {
			kept = append(kept, o)
		}
	}
	return kept
}

// ConfigReferences are the references of desired, keeping an existing
// reference (spec hash, last applied, observed generation) of a config
// that stays. The deprecated inline referent, which v1alpha1 requires, is
// the desired one.
func ConfigReferences(desired []addonv1alpha1.AddOnConfig, existing []addonv1alpha1.ConfigReference) []addonv1alpha1.ConfigReference {
	var refs []addonv1alpha1.ConfigReference
	for _, d := range desired {
		ref := addonv1alpha1.ConfigReference{
			ConfigGroupResource: d.ConfigGroupResource,
			DesiredConfig:       &addonv1alpha1.ConfigSpecHash{ConfigReferent: d.ConfigReferent},
		}
		i := slices.IndexFunc(existing, func(e addonv1alpha1.ConfigReference) bool {
			return e.ConfigGroupResource == d.ConfigGroupResource && e.DesiredConfig != nil && e.DesiredConfig.ConfigReferent == d.ConfigReferent
		})
		if i >= 0 {
			ref = *existing[i].DeepCopy()
		}
		ref.ConfigReferent = d.ConfigReferent
		refs = append(refs, ref)
	}
	return refs
}
