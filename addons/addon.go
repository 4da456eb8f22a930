package addons

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"
	"open-cluster-management.io/addon-framework/pkg/lease"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// Addon is a built-in addon: what the hub's addon manager, the agent's
// addon host and `corral addon` need to know of it. A built-in addon is
// installed like any other (a ManagedClusterAddOn in the cluster
// namespace); only its agent half runs in-process in `corral agent`
// instead of arriving as a ManifestWork.
type Addon struct {
	// Name is the ClusterManagementAddOn's name and every
	// ManagedClusterAddOn's: a DNS-1123 label.
	Name string
	// Description is what `corral addon list` says of it.
	Description string
	// HubRules are what the addon's agent may do in its cluster namespace
	// on the hub, with its own identity (a Role bound to the addon's
	// group there); nothing outside that namespace.
	HubRules []rbacv1.PolicyRule
	// SetupHub registers the hub half's controllers with the hub's
	// manager; nil when the addon has no hub half.
	SetupHub func(mgr ctrl.Manager, env HubEnv) error
	// HubFlags adds the hub half's own settings to `corral hub`'s flags,
	// for SetupHub to read; a name must not be another flag's. nil for
	// none.
	HubFlags func(fs *pflag.FlagSet)
	// HubWebhooks are the validating admission webhooks of the hub half,
	// which every hub serving webhooks serves and registers; hub reaches
	// the hub's API server (for SubjectAccessReviews). nil for none.
	HubWebhooks func(hub *rest.Config) ([]ValidatingWebhook, error)
	// RunAgent runs the agent half on one managed cluster until ctx ends.
	// It returns an error (or panics) when it cannot go on: the host
	// restarts it with backoff and reports it on the addon's conditions.
	// nil when the addon has no agent half.
	RunAgent func(ctx context.Context, env AgentEnv) error
	// ValidateDeploymentConfig says what is wrong with an
	// AddOnDeploymentConfig given to the addon, so that `corral addon
	// enable --config` refuses it up front rather than the hub half later;
	// nil accepts any.
	ValidateDeploymentConfig func(spec addonv1alpha1.AddOnDeploymentConfigSpec) error
	// HubCache trims the hub half's own objects in the hub's shared
	// cache: by type, a transform each object of the type goes through
	// as it arrives (after its managedFields are stripped), which must
	// leave the objects that are not the addon's as they are. nil for
	// none.
	HubCache map[client.Object]toolscache.TransformFunc
}

// ValidatingWebhook is a validating admission webhook an addon's hub half
// contributes to the hub's webhook server.
type ValidatingWebhook struct {
	// Name names its ValidatingWebhookConfiguration and the one webhook in
	// it: a domain name of three labels or more.
	Name string
	// Path is where the webhook server serves it, e.g.
	// /validate-work-open-cluster-management-io-v1-manifestwork.
	Path string
	// Handler admits or refuses.
	Handler admission.Handler
	// Rules are the writes the API server sends it.
	Rules []admissionregistrationv1.RuleWithOperations
	// Probe is an object the API server admits by its own rules and only
	// this webhook refuses: created in dry run, its refusal by this
	// webhook shows the API server calls the webhook where it serves now.
	// nil for none.
	Probe client.Object
}

// HubEnv is what an addon's hub half is given beside the hub's manager.
type HubEnv struct {
	// Clock is what the hub half measures time by (rollouts, scheduling,
	// staleness); nil is the real clock, tests give a fake one.
	Clock Clock
}

// Clock is a clock a hub half can wait on: clock.RealClock, or a
// k8s.io/utils/clock/testing.FakeClock in tests.
type Clock interface {
	clock.WithTicker
	clock.WithDelayedExecution
}

// AgentEnv is what an addon's agent half is given.
type AgentEnv struct {
	// ClusterName is the managed cluster's name on the hub: its cluster
	// namespace too.
	ClusterName string
	// InstallNamespace is the namespace on the managed cluster the addon
	// works in (its lease, its secrets).
	InstallNamespace string
	// Hub reaches the hub as the addon's own identity (its registration
	// certificate), never the registration agent's.
	Hub *rest.Config
	// Managed reaches the managed cluster.
	Managed *rest.Config
}

// Validate says what is wrong with a built-in addon's definition.
func (a Addon) Validate() error {
	if errs := validation.IsDNS1123Label(a.Name); len(errs) > 0 {
		return fmt.Errorf("addon name %q is not a DNS-1123 label: %s", a.Name, strings.Join(errs, "; "))
	}
	if a.SetupHub == nil && a.RunAgent == nil {
		return fmt.Errorf("addon %s has neither a hub half nor an agent half", a.Name)
	}
	return nil
}

// HubOnly says the addon has no agent half: its hub half serves every
// cluster from the hub, so there is nothing to enable on a cluster, no
// agent registers for it and no lease says it is Available.
func (a Addon) HubOnly() bool { return a.SetupHub != nil && a.RunAgent == nil }

// WithAgents picks, in order, the addons that have an agent half: those
// enabled on clusters.
func WithAgents(all []Addon) []Addon {
	return slices.DeleteFunc(slices.Clone(all), Addon.HubOnly)
}

// None, as the only name given to Select, picks no addon: a hub or agent
// that runs the registration core alone (`--addons none`).
const None = "none"

// Select picks the named addons out of known, in known's order; no names
// picks them all, and None alone picks none. An unknown name is an error
// listing the known ones.
func Select(known []Addon, names []string) ([]Addon, error) {
	if len(names) == 0 {
		return known, nil
	}
	if slices.Equal(names, []string{None}) {
		return []Addon{}, nil
	}
	var picked []Addon
	for _, name := range names {
		i := slices.IndexFunc(known, func(a Addon) bool { return a.Name == name })
		switch {
		case name == None:
			return nil, fmt.Errorf("%q picks no addon, so it cannot be named with others", None)
		case i < 0 && len(known) == 0:
			return nil, fmt.Errorf("unknown addon %q: this corral has no built-in addons", name)
		case i < 0:
			return nil, fmt.Errorf("unknown addon %q: the built-in addons are %s", name, strings.Join(Names(known), ", "))
		}
		picked = append(picked, known[i])
	}
	return picked, nil
}

// Names lists the addons' names.
func Names(addons []Addon) []string {
	names := make([]string, len(addons))
	for i, a := range addons {
		names[i] = a.Name
	}
	return names
}

// RunWithLease runs run, renewing meanwhile the lease named addon in env's
// install namespace on the managed cluster: the hub reads it as the
// addon's Available condition. It returns what run returns.
func (env AgentEnv) RunWithLease(ctx context.Context, addon string, run func(context.Context) error) error {
	kube, err := kubernetes.NewForConfig(env.Managed)
	if err != nil {
		return fmt.Errorf("building the managed cluster's client: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go lease.NewLeaseUpdater(kube, addon, env.InstallNamespace).Start(ctx)
	return run(ctx)
}
