package hub

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/addons/manager"
	"github.com/corral-dev/corral/internal/kubeflags"
	"github.com/corral-dev/corral/registration/hub"
	"github.com/corral-dev/corral/registration/hub/lease"
	"github.com/corral-dev/corral/registration/webhook"
)

// Options are the options of `corral hub`: its flags, and what an
// in-process caller (the dev fleet, the integration suites) sets beside
// them.
type Options struct {
	Kube                 *kubeflags.Flags
	LeaderElect          bool
	ProbeAddr            string
	MetricsAddr          string
	PprofAddr            string
	LeaseGraceMultiplier int
	LeaderElectNamespace string
	AutoApproveUsers     []string

	// Webhook is what the webhook flags say; Port 0 serves no webhooks.
	Webhook webhook.Options
	// WebhookService is --webhook-service, parsed into Webhook.Service.
	WebhookService string

	// Builtins are the built-in addons this binary knows; AddonNames
	// (--addons) those whose hub halves run, all when empty.
	Builtins       []addons.Addon
	AddonNames     []string
	NoRegistration bool

	// Config reaches the hub instead of Kube's flags, and
	// FreeWebhookPort serves the webhooks (unless Webhook.Port is 0) on a
	// free loopback port instead of Webhook.Port: for in-process callers,
	// which need no fixed port.
	Config          *rest.Config
	FreeWebhookPort bool
	// Clock is what every hub controller measures time by; nil is the
	// real clock. For suites.
	Clock addons.Clock
	// RegistrationControllers, when not nil, names the registration
	// controllers that run (registration/hub.Controllers); none when
	// empty. For suites that test one part of the hub beside others.
	RegistrationControllers []string

	// selected is what --addons picks out of Builtins.
	selected []addons.Addon
	// addonFlags are the flags of each built-in addon's hub half (its
	// HubFlags), by addon name: setting one of an addon not selected is an
	// error rather than silently ignored.
	addonFlags map[string]*pflag.FlagSet
}

// NewCommand returns `corral hub`; builtins are the built-in addons whose
// hub halves it can run.
func NewCommand(builtins ...addons.Addon) *cobra.Command {
	return NewOptions(builtins...).Command()
}

// NewOptions returns the defaults: leader election, OCM's lease grace,
// the webhooks on their default port, every built-in addon.
func NewOptions(builtins ...addons.Addon) *Options {
	return &Options{Kube: kubeflags.New("hub"), LeaderElect: true, Builtins: builtins, ProbeAddr: "0", MetricsAddr: "0", PprofAddr: "0", LeaderElectNamespace: "open-cluster-management",
		LeaseGraceMultiplier: lease.DefaultGraceMultiplier, Webhook: webhook.Options{Port: webhook.DefaultPort}}
}

// NewInProcessOptions are the options of a hub an in-process caller (the
// dev fleet, the suites) runs on cfg with builtins: the defaults, but one
// copy (no leader election) and the webhooks on a free loopback port.
func NewInProcessOptions(cfg *rest.Config, builtins ...addons.Addon) *Options {
	o := NewOptions(builtins...)
	o.Config, o.LeaderElect, o.FreeWebhookPort = cfg, false, true
	return o
}

// Command is `corral hub` with its flags bound to o.
func (o *Options) Command() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hub",
		Short: "Run the hub's controllers (registration core, addon manager, addons' hub halves) until stopped",
		Long: `Run the hub's controllers against a hub prepared with 'corral init
--deploy=false' ('corral init' runs them as a Deployment): they
accept, deny and clean up ManagedClusters and watch their leases. Several
copies may run; one leads.

It also runs the addon manager: every addon's lifecycle (ManagedClusterAddOns
owned by their ClusterManagementAddOn, the Manual and Placements install
strategies), and for the built-in addons named by --addons (default: all)
their ClusterManagementAddOns, their hub halves, and their agents'
registration (CSRs approved only for an enabled addon on an accepted cluster,
with the addon's RBAC in the cluster namespace). With --no-registration it
runs only the named addons' hub halves and registration, and no webhooks:
for hosted deployments, debugging and benchmarks (run the main hub with the
other addons, so that no addon runs twice).

It also serves the registration admission webhooks (only a user allowed
managedclustersets/join may put a cluster in a set, managedclusters/accept
accept it, managedclustersets/bind bind a set) and registers them with the
hub's API server, pointing at itself: one hub process, elected by the Lease
corral-hub-webhook, keeps the webhook configurations pointing at it; another
takes over when it stops. The API server calls --webhook-url (default
https://127.0.0.1:<webhook-port>, for a hub on the API server's machine) or,
for a hub running in the cluster, --webhook-service. The certificate comes
from --webhook-cert-dir (kept by you), or from --webhook-cert-secret, a
Secret on the hub that the hub keeps itself: the process holding the Lease
creates it and renews its CA and serving certificate before they expire,
and every process serves what it holds. With --webhook-service and neither,
that Secret is corral-hub-webhook-cert in the Service's namespace, so
replicas behind the Service share one certificate; with neither and a URL,
each process makes its own CA. The configurations stay when the hub stops,
so ManagedCluster writes are refused until a hub serves again.

Unless GOGC is set, the process runs Go's garbage collector at GOGC=50: a
hub's heap is mostly its informers' caches, and its memory stays at about
1.5 times them rather than twice, for some 10% more CPU.`,
		Example: `  corral hub --kubeconfig ~/.corral/dev/hub/kubeconfig
  corral hub --addons work --no-registration --kubeconfig hub.kubeconfig
  corral hub --webhook-service open-cluster-management-hub/corral-hub-webhook:443
  corral hub --webhook-service open-cluster-management-hub/corral-hub-webhook:443 --webhook-cert-dir /certs`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			setGCPercent()
			return o.Run(cmd.Context())
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags binds the flags of `corral hub`, and of each built-in addon's
// hub half, to o.
func (o *Options) AddFlags(f *pflag.FlagSet) {
	o.Kube.AddFlags(f)
	f.StringSliceVar(&o.AddonNames, "addons", nil, "built-in addons whose hub halves run here, comma-separated, or none for the registration core alone (default: all: "+
		strings.Join(addons.Names(o.Builtins), ",")+")")
	f.BoolVar(&o.NoRegistration, "no-registration", false, "run only the named addons' hub halves: no registration controllers, addon lifecycle or webhooks")
	f.BoolVar(&o.LeaderElect, "leader-elect", o.LeaderElect, "elect a leader among several copies")
	f.StringVar(&o.LeaderElectNamespace, "leader-elect-namespace", o.LeaderElectNamespace, "namespace of the leader election lease")
	f.StringVar(&o.ProbeAddr, "health-probe-bind-address", o.ProbeAddr, "address of /healthz and /readyz (0 disables)")
	f.StringVar(&o.MetricsAddr, "metrics-bind-address", o.MetricsAddr, "address of /metrics (0 disables)")
	f.StringVar(&o.PprofAddr, "pprof-bind-address", o.PprofAddr, "address of /debug/pprof for profiling, such as 127.0.0.1:6060 (unauthenticated: keep it on loopback; 0 disables)")
	f.StringSliceVar(&o.AutoApproveUsers, "auto-approve-users", nil, "users whose join requests for accepted clusters are approved without 'corral accept' (none by default)")
	f.IntVar(&o.LeaseGraceMultiplier, "lease-grace-multiplier", o.LeaseGraceMultiplier, "a cluster is unreachable after leaseDurationSeconds × this")
	f.IntVar(&o.Webhook.Port, "webhook-port", o.Webhook.Port, "port of the admission webhook server (0 serves no webhooks, and so no addon API conversion: another hub must)")
	f.StringVar(&o.Webhook.BindAddress, "webhook-bind-address", "", "address the webhook server listens on (default 127.0.0.1 for a loopback --webhook-url, else every address)")
	f.StringVar(&o.Webhook.CertDir, "webhook-cert-dir", "", "directory with tls.crt, tls.key and ca.crt for the webhook server, kept by you (instead of --webhook-cert-secret)")
	f.StringVar(&o.Webhook.CertSecret, "webhook-cert-secret", "", "namespace/name of a Secret on the hub in which the hub keeps and renews the webhook server's CA and certificate (default with --webhook-service and no --webhook-cert-dir: <service namespace>/"+webhook.DefaultCertSecretName+")")
	f.StringVar(&o.Webhook.URL, "webhook-url", "", "base URL the hub's API server calls the webhooks at (default https://127.0.0.1:<webhook-port>)")
	f.StringVar(&o.WebhookService, "webhook-service", "", "namespace/name[:port] of a Service the API server calls the webhooks through, instead of --webhook-url")
	o.addonFlags = map[string]*pflag.FlagSet{}
	for _, a := range o.Builtins {
		if a.HubFlags != nil {
			fs := pflag.NewFlagSet(a.Name, pflag.ContinueOnError)
			a.HubFlags(fs)
			f.AddFlagSet(fs)
			o.addonFlags[a.Name] = fs
		}
	}
}

// Validate checks the options, each problem in one line.
func (o *Options) Validate() error {
	if o.LeaseGraceMultiplier < 0 {
		return fmt.Errorf("--lease-grace-multiplier is %d: it must be 1 or more (0 for the default)", o.LeaseGraceMultiplier)
	}
	if err := o.selectAddons(); err != nil {
		return err
	}
	if !o.servesWebhooks() {
		return nil // the other webhook flags do not matter
	}
	if o.WebhookService != "" {
		svc, err := webhook.ParseService(o.WebhookService)
		if err != nil {
			return fmt.Errorf("--webhook-service: %w", err)
		}
		o.Webhook.Service = svc
	}
	return o.webhookOptions().Validate()
}

// servesWebhooks says whether the hub serves the admission webhooks: not
// with --webhook-port 0 or --no-registration.
func (o *Options) servesWebhooks() bool { return o.Webhook.Port != 0 && !o.NoRegistration }

// webhookOptions are the webhook server's: Webhook with the selected
// addons, and FreeWebhookPort as the webhook package's free port, 0.
func (o *Options) webhookOptions() webhook.Options {
	w := o.Webhook
	w.Addons = o.selected
	if w.LeaseNamespace == "" {
		w.LeaseNamespace = o.LeaderElectNamespace // one namespace for the hub's Leases
	}
	if o.FreeWebhookPort {
		w.Port = 0
	}
	return w
}

// selectAddons picks the --addons out of the built-ins.
func (o *Options) selectAddons() error {
	selected, err := addons.Select(o.Builtins, o.AddonNames)
	if err != nil {
		return fmt.Errorf("--addons: %w", err)
	}
	if o.NoRegistration && len(selected) == 0 {
		return fmt.Errorf("--no-registration runs only the named addons' hub halves, and there are none: name them with --addons")
	}
	o.selected = selected
	for _, a := range o.Builtins {
		fs := o.addonFlags[a.Name]
		if fs == nil || slices.ContainsFunc(selected, func(s addons.Addon) bool { return s.Name == a.Name }) {
			continue
		}
		var set []string
		fs.VisitAll(func(f *pflag.Flag) { // the same flags as the command's, parsed there
			if f.Changed {
				set = append(set, "--"+f.Name)
			}
		})
		if len(set) > 0 {
			return fmt.Errorf("%s is a setting of the %s addon, whose hub half does not run here: name it in --addons or drop the flag", strings.Join(set, ", "), a.Name)
		}
	}
	return nil
}

// LeaseName is the Lease that elects the copy of the hub whose controllers
// act.
const LeaseName = "corral-hub"

// leaderElectionID is the Lease one of several copies holds: a hub with
// --no-registration leads only among copies running the same addons.
func (o *Options) leaderElectionID() string {
	if !o.NoRegistration {
		return LeaseName
	}
	return "corral-hub-addons-" + strings.Join(addons.Names(o.selected), "-")
}

// Run validates o and runs the hub's controllers until ctx ends: the
// addon manager with the selected addons' hub halves and, unless
// --no-registration, the registration core and the admission webhooks.
func (o *Options) Run(ctx context.Context) error {
	mgr, err := o.Manager(ctx)
	if err != nil {
		return err
	}
	ctrl.LoggerFrom(ctx).Info("Starting the hub's controllers", "hub", mgr.GetConfig().Host, "addons", addons.Names(o.selected), "registration", !o.NoRegistration)
	return mgr.Start(ctx)
}

// Manager validates o and returns the manager Run starts, with every
// controller, webhook and hub half set up, logging with ctx's logger: for
// a caller that starts it itself and needs setup errors first.
func (o *Options) Manager(ctx context.Context) (ctrl.Manager, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	cfg, err := o.restConfig()
	if err != nil {
		return nil, err
	}
	scheme, err := hub.Scheme()
	if err != nil {
		return nil, err
	}
	// The types of the addons' HubCache: ManifestWork (the propagation
	// addon's), which the cache must know before the addons add theirs.
	if err := workv1.Install(scheme); err != nil {
		return nil, err
	}
	mgr, err := hub.NewManager(cfg, ctrl.Options{
		Scheme:                  scheme,
		Logger:                  ctrl.LoggerFrom(ctx),
		Metrics:                 metricsserver.Options{BindAddress: o.MetricsAddr},
		HealthProbeBindAddress:  o.ProbeAddr,
		PprofBindAddress:        o.PprofAddr,
		LeaderElection:          o.LeaderElect,
		LeaderElectionID:        o.leaderElectionID(),
		LeaderElectionNamespace: o.LeaderElectNamespace,
		// A replica that stops (an upgrade, a drain) hands over at once
		// rather than after the lease expires.
		LeaderElectionReleaseOnCancel: true,
		// In-process callers (the dev fleet, the suites) may run a hub
		// again, or two, in one process: the controllers' names repeat.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
		Cache:      cache.Options{ByObject: addons.HubCache(o.selected)},
	})
	if err != nil {
		return nil, fmt.Errorf("setting up the hub's controllers: %w", err)
	}
	// The kubelet's probes: the process answers (a replica waiting for the
	// lead is alive and ready too); the webhook server adds its own
	// readiness. Without a check the probe server answers 404.
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return nil, err
	}
	if err := mgr.AddReadyzCheck("ping", healthz.Ping); err != nil {
		return nil, err
	}
	if err := manager.SetupWithManager(mgr, manager.Options{Addons: o.selected, Builtins: addons.Names(o.Builtins), Lifecycle: !o.NoRegistration, Clock: o.Clock}); err != nil {
		return nil, fmt.Errorf("setting up the addon manager: %w", err)
	}
	if !o.NoRegistration {
		if err := o.setupRegistration(mgr); err != nil {
			return nil, err
		}
	}
	return mgr, nil
}

// setupRegistration adds the registration core's controllers and the
// webhooks.
func (o *Options) setupRegistration(mgr ctrl.Manager) error {
	if err := hub.SetupWithManager(mgr, hub.Options{LeaseGraceMultiplier: o.LeaseGraceMultiplier, AutoApproveUsers: o.AutoApproveUsers,
		Clock: o.Clock, Only: o.RegistrationControllers}); err != nil {
		return err
	}
	if o.servesWebhooks() {
		if err := webhook.SetupWithManager(mgr, o.webhookOptions()); err != nil {
			return fmt.Errorf("setting up the admission webhooks: %w", err)
		}
	}
	return nil
}

// WaitServing waits up to timeout until the hub's API server calls the
// webhooks o serves (the registration core's and the selected addons'),
// wherever the hub serving them now listens; with no webhooks, it returns
// at once. Call it once Run has started.
func (o *Options) WaitServing(ctx context.Context, timeout time.Duration) error {
	if !o.servesWebhooks() {
		return nil
	}
	if err := o.Validate(); err != nil {
		return err
	}
	cfg, err := o.restConfig()
	if err != nil {
		return err
	}
	scheme, err := hub.Scheme()
	if err != nil {
		return err
	}
	admin, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	probes, err := webhook.AddonWebhooks(cfg, o.selected)
	if err != nil {
		return err
	}
	return webhook.WaitServing(ctx, admin, timeout, probes...)
}

// restConfig is Config, else what the --kubeconfig flags say.
func (o *Options) restConfig() (*rest.Config, error) {
	if o.Config != nil {
		return o.Config, nil
	}
	return o.Kube.RESTConfig()
}
