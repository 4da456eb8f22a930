package settings

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/corral-dev/corral/addons/configmapchannel"
	"github.com/corral-dev/corral/internal/steps"
)

// Condition of an addon's ManagedClusterAddOn, and its reasons.
const (
	ConditionConfigValid = "ConfigValid"
	ReasonConfigValid    = "ConfigValid"
	ReasonConfigInvalid  = "ConfigInvalid"
	ReasonConfigNotFound = "ConfigNotFound"
)

// Addon is what the controller knows of one addon's settings, of type T
// (encoded as JSON in the settings ConfigMap).
type Addon[T any] struct {
	// Name is the addon's: its ManagedClusterAddOns' name.
	Name string
	// ConfigName is the settings ConfigMap in each cluster namespace.
	ConfigName string
	// Parse reads an AddOnDeploymentConfig's customizedVariables; its
	// error says, one line per problem, what is wrong and what to give.
	Parse func(vars []addonv1alpha1.CustomizedVariable) (T, error)
	// Defaults are the settings of an addon with no config.
	Defaults func() T
	// Describe says what valid settings do, for the True condition's
	// message ("collecting every 30s").
	Describe func(T) string
}

// Validate says what is wrong with spec as a config of the addon: its
// addons.Addon.ValidateDeploymentConfig, so that `corral addon enable
// --config` refuses what the controller would.
func (a Addon[T]) Validate(spec addonv1alpha1.AddOnDeploymentConfigSpec) error {
	_, err := a.Parse(spec.CustomizedVariables)
	return err
}

// SetupWithManager registers the addon's settings controller (Reconciler)
// with mgr and returns the cache of the addon's ConfigMaps
// (configmapchannel.NewCache) it watches: the addon's reports and
// settings, which the addon's own hub controllers watch and read through
// it too.
func (a Addon[T]) SetupWithManager(mgr ctrl.Manager, workers int) (cache.Cache, error) {
	kube, err := kubernetes.NewForConfig(mgr.GetConfig())
	if err != nil {
		return nil, err
	}
	reports, err := configmapchannel.NewCache(mgr, a.Name)
	if err != nil {
		return nil, err
	}
	if err := (&Reconciler[T]{Client: mgr.GetClient(), Kube: kube, Addon: a}).SetupWithManager(mgr, reports, workers); err != nil {
		return nil, err
	}
	return reports, nil
}

// Reconciler resolves one addon's settings.
type Reconciler[T any] struct {
	Client client.Client
	// Kube writes the settings ConfigMaps.
	Kube  kubernetes.Interface
	Addon Addon[T]
}

// SetupWithManager registers the controller, named <addon>-config.
// reports is the cache of the addon's labelled ConfigMaps
// (configmapchannel.NewCache), its settings among them: watching them also finds,
// at start, the settings of an addon disabled while the hub was down.
func (r *Reconciler[T]) SetupWithManager(mgr ctrl.Manager, reports cache.Cache, workers int) error {
	isAddon := predicate.NewPredicateFuncs(func(obj client.Object) bool { return obj.GetName() == r.Addon.Name })
	return ctrl.NewControllerManagedBy(mgr).
		Named(r.Addon.Name+"-config").
		For(&addonv1alpha1.ManagedClusterAddOn{}, builder.WithPredicates(isAddon)).
		Watches(&addonv1alpha1.AddOnDeploymentConfig{}, handler.EnqueueRequestsFromMapFunc(r.addonsUsing)).
		WatchesRawSource(source.Kind(reports, client.Object(&corev1.ConfigMap{}), handler.EnqueueRequestsFromMapFunc(r.addonOf))).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
		Complete(r)
}

// addonOf maps the addon's settings ConfigMap to the addon in its
// namespace; its other reports map to nothing.
func (r *Reconciler[T]) addonOf(_ context.Context, obj client.Object) []reconcile.Request {
	if obj.GetName() != r.Addon.ConfigName {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: r.Addon.Name}}}
}

// addonsUsing maps a config to the addons whose desired config it is.
func (r *Reconciler[T]) addonsUsing(ctx context.Context, obj client.Object) []reconcile.Request {
	list := &addonv1alpha1.ManagedClusterAddOnList{}
	if err := r.Client.List(ctx, list); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Listing addons to find those using a config")
		return nil
	}
	var reqs []reconcile.Request
	for i := range list.Items {
		mca := &list.Items[i]
		if ref, ok := desiredConfig(mca); mca.Name == r.Addon.Name && ok && ref.Namespace == obj.GetNamespace() && ref.Name == obj.GetName() {
			reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: mca.Namespace, Name: mca.Name}})
		}
	}
	return reqs
}

type scope[T any] struct {
	key      types.NamespacedName
	addon    *addonv1alpha1.ManagedClusterAddOn
	settings T
	// reason and message say why there are no valid settings.
	reason, message string
}

// Reconcile resolves one addon's settings.
func (r *Reconciler[T]) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return steps.Run(ctx, &scope[T]{key: req.NamespacedName},
		steps.Step[*scope[T]]{Name: "load", Run: r.load},
		steps.Step[*scope[T]]{Name: "resolve", Run: r.resolve},
		steps.Step[*scope[T]]{Name: "write settings", Run: r.writeSettings},
		steps.Step[*scope[T]]{Name: "status", Run: r.updateStatus},
	)
}
