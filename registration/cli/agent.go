package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/registration/agent"
	"github.com/corral-dev/corral/registration/common"
)

// AgentOptions are the options of `corral agent`.
type AgentOptions struct {
	managedOptions
	AgentID             string
	BootstrapKubeconfig string
	HubKubeconfigFile   string
	ClusterURL          string
	LeaseSeconds        int32
}

// NewAgentOptions returns the defaults: OCM's lease period.
func NewAgentOptions(out io.Writer) *AgentOptions {
	return &AgentOptions{managedOptions: newManagedOptions(out), LeaseSeconds: common.DefaultLeaseDurationSeconds}
}

// NewCmdAgent returns `corral agent`.
func NewCmdAgent(out io.Writer) *cobra.Command {
	o := NewAgentOptions(out)
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Run a managed cluster's agent: join the hub, then keep the cluster reported",
		Long: `Run a managed cluster's agent until stopped. With the bootstrap kubeconfig it
asks the hub to join (a ManagedCluster and a CSR) and waits until a hub admin
accepts ('corral accept <cluster>'); then it stores its own hub kubeconfig on
the managed cluster (open-cluster-management-agent/hub-kubeconfig-secret),
renews its lease and reports the cluster's availability. A restart reuses the
stored identity.`,
		Example: "  corral agent --cluster-name cluster1 --bootstrap-kubeconfig bootstrap.kubeconfig --kubeconfig managed.kubeconfig",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			a, err := o.Complete(cmd.Context())
			if err != nil {
				return err
			}
			return a.Run(cmd.Context())
		},
	}
	f := cmd.Flags()
	o.addFlags(f)
	f.StringVar(&o.AgentID, "agent-id", "", "the agent's id (default: the stored one, else a random one)")
	f.StringVar(&o.BootstrapKubeconfig, "bootstrap-kubeconfig", "", "kubeconfig with the hub's bootstrap token (default: the one 'corral join' stored on the managed cluster)")
	f.StringVar(&o.HubKubeconfigFile, "hub-kubeconfig-file", "", "also write the agent's hub kubeconfig to this file")
	f.StringVar(&o.ClusterURL, "cluster-url", "", "https address of the managed cluster's API server, for the hub (optional)")
	f.Int32Var(&o.LeaseSeconds, "lease-duration-seconds", o.LeaseSeconds, "how often the lease is renewed")
	return cmd
}

// Validate checks the flags.
func (o *AgentOptions) Validate() error {
	if err := o.validateClusterName(); err != nil {
		return err
	}
	if o.LeaseSeconds < 1 {
		return fmt.Errorf("--lease-duration-seconds is %d: it must be 1 or more", o.LeaseSeconds)
	}
	if o.ClusterURL != "" {
		return validateHTTPSURL("--cluster-url", o.ClusterURL)
	}
	return nil
}

// Complete loads the managed cluster's and the bootstrap configuration and
// returns the agent.
func (o *AgentOptions) Complete(ctx context.Context) (*agent.Agent, error) {
	var clientConfigs []clusterv1.ClientConfig
	if o.ClusterURL != "" {
		clientConfigs = []clusterv1.ClientConfig{{URL: o.ClusterURL}}
	}
	managed, err := o.Managed.RESTConfig()
	if err != nil {
		return nil, err
	}
	boot, err := o.bootstrap(ctx, managed)
	if err != nil {
		return nil, err
	}
	return agent.New(agent.Options{
		ClusterName: o.ClusterName, AgentID: o.AgentID, Bootstrap: boot, Managed: managed,
		ClientConfigs: clientConfigs, KubeconfigFile: o.HubKubeconfigFile, LeaseDurationSeconds: o.LeaseSeconds,
	})
}

// bootstrap is the --bootstrap-kubeconfig, else the one 'corral join'
// stored on the managed cluster.
func (o *AgentOptions) bootstrap(ctx context.Context, managed *rest.Config) (*rest.Config, error) {
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
	return agent.LoadBootstrap(ctx, kube, agent.DefaultSecretNamespace)
}
