package hub

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	ctrl "sigs.k8s.io/controller-runtime"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/addons/manager"
	"github.com/corral-dev/corral/internal/kubeflags"
	"github.com/corral-dev/corral/registration/hub"
	"github.com/corral-dev/corral/registration/hub/lease"
	"github.com/corral-dev/corral/registration/webhook"
)

// hubOptions are the options of `corral hub`, the hub's controllers.
type hubOptions struct {
	kube          *kubeflags.Flags
	leaderElect   bool
	probeAddr     string
	metricsAddr   string
	pprofAddr     string
	leaseGrace    int
	leaderElectNS string
	autoApprove   []string

	// webhook is what the webhook flags say; Port 0 serves no webhooks.
	webhook webhook.Options
	// webhookService is --webhook-service, parsed into webhook.Service.
	webhookService string

	// builtins are the built-in addons this binary knows; addonNames
	// (--addons) those whose hub halves run, all when empty.
	builtins       []addons.Addon
	addonNames     []string
	noRegistration bool
	// selected is what --addons picks out of builtins.
	selected []addons.Addon
	// addonFlags are the flags of each built-in addon's hub half (its
	// HubFlags), by addon name: setting one of an addon not selected is an
	// error rather than silently ignored.
	addonFlags map[string]*pflag.FlagSet
}

// NewCommand returns `corral hub`; builtins are the built-in addons whose
// hub halves it can run.
func NewCommand(builtins ...addons.Addon) *cobra.Command {
	return newHubOptions(builtins...).command()
}

// newHubOptions returns the defaults: leader election, OCM's lease grace,
// the webhooks on their default port, every built-in addon.
func newHubOptions(builtins ...addons.Addon) *hubOptions {
	return &hubOptions{kube: kubeflags.New("hub"), leaderElect: true, builtins: builtins, probeAddr: "0", metricsAddr: "0", pprofAddr: "0", leaderElectNS: "open-cluster-management",
		leaseGrace: lease.DefaultGraceMultiplier, webhook: webhook.Options{Port: webhook.DefaultPort}}
}

// command is `corral hub` with its flags bound to o.
func (o *hubOptions) command() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hub",
		Short: "Run the hub's controllers (registration core, addon manager, addons' hub halves) until stopped",
		Long: `Run the hub's controllers against a hub prepared with 'corral init': they
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
takes over when it stops. Without --webhook-cert-dir each process makes its
own CA. The API server calls --webhook-url (default
https://127.0.0.1:<webhook-port>, for a hub on the API server's machine) or,
for a hub running in the cluster, --webhook-service, which needs a
--webhook-cert-dir every replica shares. The configurations stay when the
hub stops, so ManagedCluster writes are refused until a hub serves again.`,
		Example: `  corral hub --kubeconfig ~/.corral/dev/hub/kubeconfig
  corral hub --addons work --no-registration --kubeconfig hub.kubeconfig
  corral hub --webhook-service open-cluster-management/corral-hub-webhook:443 --webhook-cert-dir /certs`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return o.run(cmd.Context())
		},
	}
	f := cmd.Flags()
	o.kube.AddFlags(f)
	f.StringSliceVar(&o.addonNames, "addons", nil, "built-in addons whose hub halves run here, comma-separated, or none for the registration core alone (default: all: "+
		strings.Join(addons.Names(o.builtins), ",")+")")
	f.BoolVar(&o.noRegistration, "no-registration", false, "run only the named addons' hub halves: no registration controllers, addon lifecycle or webhooks")
	f.BoolVar(&o.leaderElect, "leader-elect", o.leaderElect, "elect a leader among several copies")
	f.StringVar(&o.leaderElectNS, "leader-elect-namespace", o.leaderElectNS, "namespace of the leader election lease")
	f.StringVar(&o.probeAddr, "health-probe-bind-address", o.probeAddr, "address of /healthz and /readyz (0 disables)")
	f.StringVar(&o.metricsAddr, "metrics-bind-address", o.metricsAddr, "address of /metrics (0 disables)")
	f.StringVar(&o.pprofAddr, "pprof-bind-address", o.pprofAddr, "address of /debug/pprof for profiling, such as 127.0.0.1:6060 (unauthenticated: keep it on loopback; 0 disables)")
	f.StringSliceVar(&o.autoApprove, "auto-approve-users", nil, "users whose join requests for accepted clusters are approved without 'corral accept' (none by default)")
	f.IntVar(&o.leaseGrace, "lease-grace-multiplier", o.leaseGrace, "a cluster is unreachable after leaseDurationSeconds × this")
	f.IntVar(&o.webhook.Port, "webhook-port", o.webhook.Port, "port of the admission webhook server (0 serves no webhooks, and so no addon API conversion: another hub must)")
	f.StringVar(&o.webhook.BindAddress, "webhook-bind-address", "", "address the webhook server listens on (default 127.0.0.1 for a loopback --webhook-url, else every address)")
	f.StringVar(&o.webhook.CertDir, "webhook-cert-dir", "", "directory with tls.crt, tls.key and ca.crt for the webhook server (default: a CA generated for this process)")
	f.StringVar(&o.webhook.URL, "webhook-url", "", "base URL the hub's API server calls the webhooks at (default https://127.0.0.1:<webhook-port>)")
	f.StringVar(&o.webhookService, "webhook-service", "", "namespace/name[:port] of a Service the API server calls the webhooks through, instead of --webhook-url")
	o.addonFlags = map[string]*pflag.FlagSet{}
	for _, a := range o.builtins {
		if a.HubFlags != nil {
			fs := pflag.NewFlagSet(a.Name, pflag.ContinueOnError)
			a.HubFlags(fs)
			f.AddFlagSet(fs)
			o.addonFlags[a.Name] = fs
		}
	}
	return cmd
}

// validate checks the flags, each problem in one line.
func (o *hubOptions) validate() error {
	if o.leaseGrace < 0 {
		return fmt.Errorf("--lease-grace-multiplier is %d: it must be 1 or more (0 for the default)", o.leaseGrace)
	}
	if err := o.selectAddons(); err != nil {
		return err
	}
	if o.webhook.Port == 0 || o.noRegistration {
		return nil // no webhooks: the other webhook flags do not matter
	}
	if o.webhookService != "" {
		svc, err := webhook.ParseService(o.webhookService)
		if err != nil {
			return fmt.Errorf("--webhook-service: %w", err)
		}
		o.webhook.Service = svc
	}
	return o.webhook.Validate()
}

// selectAddons picks the --addons out of the built-ins.
func (o *hubOptions) selectAddons() error {
	selected, err := addons.Select(o.builtins, o.addonNames)
	if err != nil {
		return fmt.Errorf("--addons: %w", err)
	}
	if o.noRegistration && len(selected) == 0 {
		return fmt.Errorf("--no-registration runs only the named addons' hub halves, and there are none: name them with --addons")
	}
	o.selected = selected
	for _, a := range o.builtins {
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

// leaderElectionID is the Lease one of several copies holds: a hub with
// --no-registration leads only among copies running the same addons.
func (o *hubOptions) leaderElectionID() string {
	if !o.noRegistration {
		return "corral-hub"
	}
	return "corral-hub-addons-" + strings.Join(addons.Names(o.selected), "-")
}

func (o *hubOptions) run(ctx context.Context) error {
	cfg, err := o.kube.RESTConfig()
	if err != nil {
		return err
	}
	mgr, err := hub.NewManager(cfg, ctrl.Options{
		Metrics:                 metricsserver.Options{BindAddress: o.metricsAddr},
		HealthProbeBindAddress:  o.probeAddr,
		PprofBindAddress:        o.pprofAddr,
		LeaderElection:          o.leaderElect,
		LeaderElectionID:        o.leaderElectionID(),
		LeaderElectionNamespace: o.leaderElectNS,
	})
	if err != nil {
		return fmt.Errorf("setting up the hub's controllers: %w", err)
	}
	if err := manager.SetupWithManager(mgr, manager.Options{Addons: o.selected, Builtins: addons.Names(o.builtins), Lifecycle: !o.noRegistration}); err != nil {
		return fmt.Errorf("setting up the addon manager: %w", err)
	}
	if !o.noRegistration {
		if err := o.setupRegistration(mgr); err != nil {
			return err
		}
	}
	ctrl.LoggerFrom(ctx).Info("Starting the hub's controllers", "hub", cfg.Host, "addons", addons.Names(o.selected), "registration", !o.noRegistration)
	return mgr.Start(ctx)
}

// setupRegistration adds the registration core's controllers and the
// webhooks.
func (o *hubOptions) setupRegistration(mgr ctrl.Manager) error {
	if err := hub.SetupWithManager(mgr, hub.Options{LeaseGraceMultiplier: o.leaseGrace, AutoApproveUsers: o.autoApprove}); err != nil {
		return err
	}
	if o.webhook.Port != 0 {
		o.webhook.Addons = o.selected
		if err := webhook.SetupWithManager(mgr, o.webhook); err != nil {
			return fmt.Errorf("setting up the admission webhooks: %w", err)
		}
	}
	return nil
}
