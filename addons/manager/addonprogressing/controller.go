package addonprogressing

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/corral-dev/corral/internal/steps"
)

// Reconciler sets the built-in addons' Progressing condition.
type Reconciler struct {
	Client client.Client
	// Builtins are the names of the addons it looks after.
	Builtins sets.Set[string]
	// Supported are the config types a built-in addon supports.
	Supported []addonv1alpha1.ConfigGroupResource
}

// SetupWithManager registers the controller, with workers reconciles at
// once.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, workers int) error {
	builtin := predicate.NewPredicateFuncs(func(o client.Object) bool { return r.Builtins.Has(o.GetName()) })
	return ctrl.NewControllerManagedBy(mgr).
		Named("addon-progressing").
		For(&addonv1alpha1.ManagedClusterAddOn{}, builder.WithPredicates(builtin)).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
		Complete(r)
}

// Reconcile writes the condition, and the last applied configs.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	mca := &addonv1alpha1.ManagedClusterAddOn{}
	if err := r.Client.Get(ctx, req.NamespacedName, mca); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if mca.DeletionTimestamp != nil || !r.Builtins.Has(mca.Name) {
		return ctrl.Result{}, nil
	}
	old := mca.DeepCopy()
	SetProgressing(mca, r.Supported)
	if equality.Semantic.DeepEqual(old.Status, mca.Status) {
		return ctrl.Result{}, nil
	}
	if err := r.Client.Status().Patch(ctx, mca, client.MergeFromWithOptions(old, client.MergeFromWithOptimisticLock{})); err != nil {
		return steps.AfterWrite(ctx, fmt.Errorf("writing the progress of %s/%s: %w", mca.Namespace, mca.Name, err))
	}
	cond := meta.FindStatusCondition(mca.Status.Conditions, addonv1alpha1.ManagedClusterAddOnConditionProgressing)
	ctrl.LoggerFrom(ctx).V(1).Info("Set a built-in addon's progress", "addon", klog.KObj(mca), "reason", cond.Reason)
	return ctrl.Result{}, nil
}

// SetProgressing sets mca's Progressing condition, and its configs' last
// applied once complete.
func SetProgressing(mca *addonv1alpha1.ManagedClusterAddOn, supported []addonv1alpha1.ConfigGroupResource) {
	if unsupported, ok := unsupportedConfig(mca, supported); ok {
		setUnsupported(mca, unsupported)
		return
	}
	for _, ref := range mca.Status.ConfigReferences {
		if ref.DesiredConfig == nil || ref.DesiredConfig.SpecHash == "" {
			setProgressing(mca, fmt.Sprintf("waiting for the spec hash of %s %s", ref.Resource, ref.Name))
			return
		}
	}
	setCompleted(mca)
}

// unsupportedConfig is the first config of mca of a type not in supported.
func unsupportedConfig(mca *addonv1alpha1.ManagedClusterAddOn, supported []addonv1alpha1.ConfigGroupResource) (addonv1alpha1.ConfigGroupResource, bool) {
	for _, c := range mca.Spec.Configs {
		if !slices.Contains(supported, c.ConfigGroupResource) {
			return c.ConfigGroupResource, true
		}
	}
	return addonv1alpha1.ConfigGroupResource{}, false
}

func setUnsupported(mca *addonv1alpha1.ManagedClusterAddOn, gr addonv1alpha1.ConfigGroupResource) {
	setCondition(mca, metav1.ConditionFalse, addonv1alpha1.ProgressingReasonConfigurationUnsupported,
		fmt.Sprintf("Configuration with gvr %s/%s is not supported for this addon", gr.Group, gr.Resource))
}

// setProgressing marks mca Progressing, for why.
func setProgressing(mca *addonv1alpha1.ManagedClusterAddOn, why string) {
	setCondition(mca, metav1.ConditionTrue, addonv1alpha1.ProgressingReasonProgressing, "progressing... "+why)
}

// setCompleted marks mca's desired configs applied, and it no longer
// Progressing.
func setCompleted(mca *addonv1alpha1.ManagedClusterAddOn) {
	for i := range mca.Status.ConfigReferences {
		mca.Status.ConfigReferences[i].LastAppliedConfig = mca.Status.ConfigReferences[i].DesiredConfig.DeepCopy()
	}
	setCondition(mca, metav1.ConditionFalse, addonv1alpha1.ProgressingReasonCompleted, "completed with no errors.")
}

func setCondition(mca *addonv1alpha1.ManagedClusterAddOn, status metav1.ConditionStatus, reason, message string) {
	meta.SetStatusCondition(&mca.Status.Conditions, metav1.Condition{
		Type: addonv1alpha1.ManagedClusterAddOnConditionProgressing, Status: status, Reason: reason, Message: message,
		ObservedGeneration: mca.Generation,
	})
}
