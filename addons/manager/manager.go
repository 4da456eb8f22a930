package manager

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"open-cluster-management.io/addon-framework/pkg/addonmanager"
	"open-cluster-management.io/addon-framework/pkg/utils"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonclient "open-cluster-management.io/api/client/addon/clientset/versioned"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/addons/manager/addonconfig"
	"github.com/corral-dev/corral/addons/manager/addonfeature"
	"github.com/corral-dev/corral/addons/manager/addonowner"
	"github.com/corral-dev/corral/addons/manager/addonprogressing"
	"github.com/corral-dev/corral/addons/manager/install"
	"github.com/corral-dev/corral/addons/manager/unreachable"
)

// Options configure the addon manager.
type Options struct {
	// Addons are the built-in addons whose hub halves run here.
	Addons []addons.Addon
	// Lifecycle runs every addon's lifecycle (owner references, install
	// strategies, ClusterManagementAddOn status), whatever Addons holds.
	// One process of a hub does; `corral hub --no-registration` does not.
	Lifecycle bool
	// Builtins are the names of every built-in addon, whether its hub half
	// runs here or not: the lifecycle sets the Progressing condition of
	// every other addon by its ManifestWorks, and leaves theirs to the
	// process that runs them. Empty means the names of Addons.
	Builtins []string
	// Workers is how many objects each lifecycle controller works on at
	// once; 0 means DefaultWorkers.
	Workers int
	// Clock is what the addons' hub halves measure time by; nil is the
	// real clock.
	Clock addons.Clock
}

// DefaultWorkers of each lifecycle controller.
const DefaultWorkers = 4

// AddToScheme adds the types the addon manager reads and writes through
// the controller-runtime manager: addons, clusters, placement decisions and
// the addons' ManifestWorks.
func AddToScheme(s *runtime.Scheme) error {
	return errors.Join(addonv1alpha1.Install(s), clusterv1.Install(s), clusterv1beta1.Install(s), workv1.Install(s))
}

// SetupWithManager adds AddToScheme's types to mgr's scheme and registers
// the addon manager with mgr: the hub halves of opts.Addons, the addon lifecycle
// controllers, the clusters' addon labels and the addons of unreachable
// clusters (with opts.Lifecycle), the
// built-ins' Progressing condition,
// and a runnable that creates the built-in addons'
// ClusterManagementAddOns and then runs the addon framework for them. All
// of it runs only while mgr leads.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	if opts.Workers <= 0 {
		opts.Workers = DefaultWorkers
	}
	if err := AddToScheme(mgr.GetScheme()); err != nil {
		return err
	}
	for _, a := range opts.Addons {
		if err := a.Validate(); err != nil {
			return err
		}
		if a.SetupHub == nil {
			continue
		}
		if err := a.SetupHub(mgr, addons.HubEnv{Clock: opts.Clock}); err != nil {
			return fmt.Errorf("setting up the hub half of addon %s: %w", a.Name, err)
		}
	}
	builtins := sets.New(addons.Names(opts.Addons)...)
	if opts.Lifecycle {
		if err := addonowner.IndexByName(context.Background(), mgr); err != nil {
			return fmt.Errorf("indexing ManagedClusterAddOns by name: %w", err)
		}
		skip := builtins
		if len(opts.Builtins) > 0 {
			skip = sets.New(opts.Builtins...)
		}
		if err := errors.Join(
			(&addonowner.Reconciler{Client: mgr.GetClient()}).SetupWithManager(mgr, opts.Workers),
			(&install.Reconciler{Client: mgr.GetClient()}).SetupWithManager(mgr, opts.Workers),
			(&addonconfig.Reconciler{Client: mgr.GetClient()}).SetupWithManager(mgr, opts.Workers),
			(&addonprogressing.WorkReconciler{Client: mgr.GetClient(), Skip: skip}).SetupWithManager(mgr, opts.Workers),
			(&addonfeature.Reconciler{Client: mgr.GetClient()}).SetupWithManager(mgr, opts.Workers),
			(&unreachable.Reconciler{Client: mgr.GetClient()}).SetupWithManager(mgr, opts.Workers),
		); err != nil {
			return err
		}
	}
	if builtins.Len() > 0 {
		if err := (&addonprogressing.Reconciler{
			Client: mgr.GetClient(), Builtins: builtins,
			Supported: []addonv1alpha1.ConfigGroupResource{{Group: utils.AddOnDeploymentConfigGVR.Group, Resource: utils.AddOnDeploymentConfigGVR.Resource}},
		}).SetupWithManager(mgr, opts.Workers); err != nil {
			return err
		}
	}
	return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		return runFramework(ctx, mgr, opts.Addons)
	}))
}

// runFramework creates the built-in addons' ClusterManagementAddOns, then
// runs the addon framework's controllers for them until ctx ends.
func runFramework(ctx context.Context, mgr ctrl.Manager, builtins []addons.Addon) error {
	if len(builtins) == 0 {
		<-ctx.Done()
		return nil
	}
	if err := createManagementAddOns(ctx, mgr.GetClient(), builtins); err != nil {
		return err
	}
	cfg := mgr.GetConfig()
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	addonClient, err := addonclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	framework, err := addonmanager.New(cfg)
	if err != nil {
		return err
	}
	withAgents := addons.WithAgents(builtins)
	if len(withAgents) == 0 {
		// Only hub-only addons: no agent registers, so the framework has
		// nothing to do. Started with no agent, its informers would ask
		// for works and CSRs with an empty label selector, which the API
		// server refuses, and after ten minutes its cache sync fails and
		// ends the hub (found by test/benchmark/propagation running
		// `corral hub --addons propagation`).
		<-ctx.Done()
		return nil
	}
	for _, a := range withAgents {
		if err := framework.AddAgent(newBuiltinAgent(a, kube, addonClient)); err != nil {
			return fmt.Errorf("adding addon %s to the addon framework: %w", a.Name, err)
		}
	}
	ctrl.LoggerFrom(ctx).Info("Starting the addon framework", "addons", addons.Names(withAgents))
	if err := framework.Start(ctx); err != nil {
		return fmt.Errorf("starting the addon framework: %w", err)
	}
	<-ctx.Done()
	return nil
}

// createManagementAddOns creates the ClusterManagementAddOn of each
// built-in addon that has none, retrying while the API server is not
// ready. An existing one is the admin's (its install strategy above all)
// and is left as it is.
func createManagementAddOns(ctx context.Context, c client.Client, builtins []addons.Addon) error {
	return wait.ExponentialBackoffWithContext(ctx, wait.Backoff{Duration: 200 * time.Millisecond, Factor: 2, Steps: 8, Cap: 10 * time.Second},
		func(ctx context.Context) (bool, error) {
			for _, a := range builtins {
				err := c.Create(ctx, managementAddOn(a))
				if err != nil && !apierrors.IsAlreadyExists(err) {
					ctrl.LoggerFrom(ctx).V(1).Info("Creating a built-in addon's ClusterManagementAddOn failed; retrying", "addon", a.Name, "err", err)
					return false, nil
				}
			}
			return true, nil
		})
}

// managementAddOn is the ClusterManagementAddOn of a built-in addon:
// installed by hand (Manual) until an admin says otherwise, configurable
// with an AddOnDeploymentConfig, its lifecycle run by this manager.
func managementAddOn(a addons.Addon) *addonv1alpha1.ClusterManagementAddOn {
	return &addonv1alpha1.ClusterManagementAddOn{
		ObjectMeta: metav1.ObjectMeta{Name: a.Name, Annotations: map[string]string{
			addonv1alpha1.AddonLifecycleAnnotationKey: addonv1alpha1.AddonLifecycleAddonManagerAnnotationValue,
		}},
		Spec: addonv1alpha1.ClusterManagementAddOnSpec{
			AddOnMeta: addonv1alpha1.AddOnMeta{DisplayName: a.Name, Description: a.Description},
			SupportedConfigs: []addonv1alpha1.ConfigMeta{{ConfigGroupResource: addonv1alpha1.ConfigGroupResource{
				Group: utils.AddOnDeploymentConfigGVR.Group, Resource: utils.AddOnDeploymentConfigGVR.Resource,
			}}},
			InstallStrategy: addonv1alpha1.InstallStrategy{Type: addonv1alpha1.AddonInstallStrategyManual},
		},
	}
}
