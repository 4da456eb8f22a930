package agent

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/addons/host"
	regagent "github.com/corral-dev/corral/registration/agent"
	"github.com/corral-dev/corral/registration/common"
)

// Options are the options of `corral agent`.
type Options struct {
	ClusterFlags
	AgentID             string
	BootstrapKubeconfig string
	HubKubeconfigFile   string
	ClusterURL          string
	ClusterMeta
	LeaseSeconds int32
	// Builtins are the built-in addons this binary knows; Addons names
	// those whose agent halves run (none named: all).
	Builtins []addons.Addon
	Addons   []string
	// NoRegistration runs only the named addons' agent halves, with
	// HubKubeconfig as their hub identity and AddonNamespace as their
	// install namespace.
	NoRegistration bool
	HubKubeconfig  string
	AddonNamespace string
	// PprofAddr serves /debug/pprof there, ProbeAddr /healthz and /readyz
	// ("0": not at all).
	PprofAddr string
	ProbeAddr string
	// LeaderElect runs the agent only in the copy that holds the Lease
	// LeaseName in LeaderElectNamespace on the managed cluster.
	LeaderElect          bool
	LeaderElectNamespace string

	// ManagedConfig reaches the managed cluster instead of the
	// --kubeconfig flags, and Bootstrap is the bootstrap identity instead
	// of --bootstrap-kubeconfig or the stored one: for in-process callers
	// (the dev fleet, the suites).
	ManagedConfig *rest.Config
	Bootstrap     *rest.Config

	selected []addons.Addon
}

// NewOptions returns the defaults: OCM's lease period, every
// built-in addon.
func NewOptions(out io.Writer, builtins ...addons.Addon) *Options {
	return &Options{
		ClusterFlags: NewClusterFlags(out), LeaseSeconds: common.DefaultLeaseDurationSeconds,
		Builtins: builtins, AddonNamespace: host.DefaultInstallNamespace, PprofAddr: "0", ProbeAddr: "0",
		LeaderElectNamespace: regagent.DefaultSecretNamespace,
	}
}

// NewCommand returns `corral agent`; builtins are the built-in addons it
// can run.
func NewCommand(out io.Writer, builtins ...addons.Addon) *cobra.Command {
	o := NewOptions(out, builtins...)
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Run a managed cluster's agent: join the hub, then keep the cluster reported",
		Long: `Run a managed cluster's agent until stopped. With the bootstrap kubeconfig it
asks the hub to join (a ManagedCluster and a CSR) and waits until a hub admin
accepts ('corral accept <cluster>'); then it stores its own hub kubeconfig on
the managed cluster (open-cluster-management-agent/hub-kubeconfig-secret),
renews its lease and reports the cluster's availability. A restart reuses the
stored identity.

It also hosts the cluster's addons, as OCM's agent does: for every
ManagedClusterAddOn in the cluster namespace on the hub it obtains the client
certificates the addon registers for (the <addon>-hub-kubeconfig Secret in
the addon's install namespace), rotates them, and reports the addon's lease
as its Available condition; the agent halves of the built-in addons named by
--addons (default: all) run in-process with their own hub identity.

With --no-registration it runs only the named addons' agent halves, with
--hub-kubeconfig as their hub identity: for hosted deployments and debugging.

With --leader-elect, several copies may run (the replicas of the agent
Deployment 'corral join' installs): the one holding the Lease corral-agent
on the managed cluster runs, another takes over when it goes.`,
		Example: `  corral agent --cluster-name cluster1 --bootstrap-kubeconfig bootstrap.kubeconfig --kubeconfig managed.kubeconfig
  corral agent --addons work --no-registration --cluster-name c1 --hub-kubeconfig hub.kubeconfig --kubeconfig managed.kubeconfig`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.Run(cmd.Context()) },
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags binds the flags of `corral agent` to o.
func (o *Options) AddFlags(f *pflag.FlagSet) {
	o.ClusterFlags.AddFlags(f)
	f.StringVar(&o.AgentID, "agent-id", "", "the agent's id (default: the stored one, else a random one)")
	f.StringVar(&o.BootstrapKubeconfig, "bootstrap-kubeconfig", "", "kubeconfig with the hub's bootstrap token (default: the one 'corral join' stored on the managed cluster)")
	f.StringVar(&o.HubKubeconfigFile, "hub-kubeconfig-file", "", "also write the agent's hub kubeconfig to this file")
	AddClusterURLFlag(f, &o.ClusterURL)
	o.AddMetaFlags(f)
	f.Int32Var(&o.LeaseSeconds, "lease-duration-seconds", o.LeaseSeconds, "the lease period a new ManagedCluster asks for; then the agent renews its lease as often as the ManagedCluster's spec.leaseDurationSeconds says")
	f.StringSliceVar(&o.Addons, "addons", nil, "built-in addons whose agent halves run here, comma-separated, or none (default: all: "+
		strings.Join(addons.Names(o.Builtins), ",")+")")
	f.BoolVar(&o.NoRegistration, "no-registration", false, "run only the named addons' agent halves, with --hub-kubeconfig as their hub identity")
	f.StringVar(&o.HubKubeconfig, "hub-kubeconfig", "", "with --no-registration: the kubeconfig the addons' agents reach the hub with")
	f.StringVar(&o.AddonNamespace, "addon-namespace", o.AddonNamespace, "with --no-registration: the addons' install namespace on the managed cluster")
	f.StringVar(&o.PprofAddr, "pprof-bind-address", o.PprofAddr, "address of /debug/pprof for profiling, such as 127.0.0.1:6060 (unauthenticated: keep it on loopback; 0 disables)")
	f.StringVar(&o.ProbeAddr, "health-probe-bind-address", o.ProbeAddr, "address of /healthz and /readyz, such as :8081 (0 disables)")
	f.BoolVar(&o.LeaderElect, "leader-elect", o.LeaderElect, "run only while holding the Lease "+LeaseName+" on the managed cluster, so that one of several copies runs")
	f.StringVar(&o.LeaderElectNamespace, "leader-elect-namespace", o.LeaderElectNamespace, "namespace of that Lease on the managed cluster")
}

// Validate checks the flags.
func (o *Options) Validate() error {
	if err := o.ValidateClusterName(); err != nil {
		return err
	}
	selected, err := addons.Select(o.Builtins, o.Addons)
	if err != nil {
		return fmt.Errorf("--addons: %w", err)
	}
	o.selected = selected
	if o.NoRegistration {
		return o.validateNoRegistration()
	}
	if o.HubKubeconfig != "" {
		return fmt.Errorf("--hub-kubeconfig is for --no-registration; the registration agent keeps its own hub kubeconfig")
	}
	if o.LeaseSeconds < 1 {
		return fmt.Errorf("--lease-duration-seconds is %d: it must be 1 or more", o.LeaseSeconds)
	}
	if _, err = ClientConfigs(o.ClusterURL); err != nil {
		return err
	}
	return o.ValidateMeta()
}

// Complete loads the managed cluster's and the bootstrap configuration and
// returns the agent.
func (o *Options) Complete(ctx context.Context) (*regagent.Agent, error) {
	configs, err := ClientConfigs(o.ClusterURL)
	if err != nil {
		return nil, err
	}
	managed, err := o.managedConfig()
	if err != nil {
		return nil, err
	}
	boot, err := o.bootstrap(ctx, managed)
	if err != nil {
		return nil, err
	}
	return regagent.New(regagent.Options{
		ClusterName: o.ClusterName, AgentID: o.AgentID, Bootstrap: boot, Managed: managed,
		ClientConfigs: configs, KubeconfigFile: o.HubKubeconfigFile, LeaseDurationSeconds: o.LeaseSeconds,
		ClusterLabels: o.ClusterLabels, ClusterAnnotations: o.ClusterAnnotations,
	})
}

// bootstrap is the --bootstrap-kubeconfig, else the one 'corral join'
// stored on the managed cluster.
func (o *Options) bootstrap(ctx context.Context, managed *rest.Config) (*rest.Config, error) {
	if o.Bootstrap != nil {
		return o.Bootstrap, nil
	}
	if o.BootstrapKubeconfig != "" {
		boot, err := clientcmd.BuildConfigFromFlags("", o.BootstrapKubeconfig)
		if err != nil {
			return nil, fmt.Errorf("--bootstrap-kubeconfig %s: %w", o.BootstrapKubeconfig, err)
		}
		return boot, nil
	}
	kube, err := kubernetes.NewForConfig(managed)
	if err != nil {
		return nil, err
	}
	return regagent.LoadBootstrap(ctx, kube, regagent.DefaultSecretNamespace)
}

// managedConfig is ManagedConfig, else what the --kubeconfig flags say.
func (o *Options) managedConfig() (*rest.Config, error) {
	if o.ManagedConfig != nil {
		return o.ManagedConfig, nil
	}
	return o.Managed.RESTConfig()
}
