package healthconfig

import (
	"context"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/corral-dev/corral/health/api"
	corralreconcile "github.com/corral-dev/corral/internal/reconcile"
)

// Condition of the health ManagedClusterAddOn, and its reasons.
const (
	ConditionConfigValid = "ConfigValid"
	ReasonConfigValid    = "ConfigValid"
	ReasonConfigInvalid  = "ConfigInvalid"
	ReasonConfigNotFound = "ConfigNotFound"
)

// Reconciler resolves the health addon's settings.
type Reconciler struct {
	Client client.Client
	// Kube writes the settings ConfigMaps.
	Kube kubernetes.Interface
}

// SetupWithManager registers the controller.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, workers int) error {
	isHealth := predicate.NewPredicateFuncs(func(obj client.Object) bool { return obj.GetName() == api.AddonName })
	return ctrl.NewControllerManagedBy(mgr).
		Named("health-config").
		For(&addonv1alpha1.ManagedClusterAddOn{}, builder.WithPredicates(isHealth)).
		Watches(&addonv1alpha1.AddOnDeploymentConfig{}, handler.EnqueueRequestsFromMapFunc(r.addonsUsing)).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
		Complete(r)
}

// addonsUsing maps a config to the health addons whose desired config it
// is.
func (r *Reconciler) addonsUsing(ctx context.Context, obj client.Object) []reconcile.Request {
	list := &addonv1alpha1.ManagedClusterAddOnList{}
	if err := r.Client.List(ctx, list); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Listing addons to find those using a config")
		return nil
	}
	var reqs []reconcile.Request
	for i := range list.Items {
		mca := &list.Items[i]
		if ref, ok := DesiredConfig(mca); mca.Name == api.AddonName && ok && ref.Namespace == obj.GetNamespace() && ref.Name == obj.GetName() {
			reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: mca.Namespace, Name: mca.Name}})
		}
	}
	return reqs
}

type scope struct {
	key      types.NamespacedName
	addon    *addonv1alpha1.ManagedClusterAddOn
	settings api.Settings
	// problem is why there are no valid settings (reason, message).
	reason, message string
}

// Reconcile resolves one addon's settings.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return corralreconcile.Run(ctx, &scope{key: req.NamespacedName},
		corralreconcile.Step[*scope]{Name: "load", Run: r.load},
		corralreconcile.Step[*scope]{Name: "resolve", Run: r.resolve},
		corralreconcile.Step[*scope]{Name: "write settings", Run: r.writeSettings},
		corralreconcile.Step[*scope]{Name: "status", Run: r.updateStatus},
	)
}
