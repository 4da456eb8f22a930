package main

import (
	"context"
	"fmt"
	"net/url"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/internal/kubeflags"
	"github.com/corral-dev/corral/registration/agent"
	"github.com/corral-dev/corral/registration/common"
)

// agentOptions are the options of `corral agent`.
type agentOptions struct {
	managed             *kubeflags.Flags
	clusterName         string
	agentID             string
	bootstrapKubeconfig string
	hubKubeconfigFile   string
	clusterURL          string
	leaseSeconds        int32
}

func newCmdAgent() *cobra.Command {
	o := &agentOptions{managed: kubeflags.New("managed cluster"), leaseSeconds: common.DefaultLeaseDurationSeconds}
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
			a, err := o.complete(cmd.Context())
			if err != nil {
				return err
			}
			return a.Run(cmd.Context())
		},
	}
	f := cmd.Flags()
	o.managed.AddFlags(f)
	f.StringVar(&o.clusterName, "cluster-name", "", "the cluster's name on the hub (required)")
	f.StringVar(&o.agentID, "agent-id", "", "the agent's id (default: the stored one, else a random one)")
	f.StringVar(&o.bootstrapKubeconfig, "bootstrap-kubeconfig", "", "kubeconfig with the hub's bootstrap token (default: the one 'corral join' stored on the managed cluster)")
	f.StringVar(&o.hubKubeconfigFile, "hub-kubeconfig-file", "", "also write the agent's hub kubeconfig to this file")
	f.StringVar(&o.clusterURL, "cluster-url", "", "https address of the managed cluster's API server, for the hub (optional)")
	f.Int32Var(&o.leaseSeconds, "lease-duration-seconds", o.leaseSeconds, "how often the lease is renewed")
	return cmd
}

func (o *agentOptions) complete(ctx context.Context) (*agent.Agent, error) {
	if o.clusterName == "" {
		return nil, fmt.Errorf("--cluster-name is required")
	}
	if err := agent.ValidateClusterName(o.clusterName); err != nil {
		return nil, fmt.Errorf("--cluster-name: %w", err)
	}
	if o.leaseSeconds < 1 {
		return nil, fmt.Errorf("--lease-duration-seconds is %d: it must be 1 or more", o.leaseSeconds)
	}
	var clientConfigs []clusterv1.ClientConfig
	if o.clusterURL != "" {
		u, err := url.Parse(o.clusterURL)
		if err != nil || u.Scheme != "https" || u.Host == "" {
			return nil, fmt.Errorf("--cluster-url %q is not an https URL", o.clusterURL)
		}
		clientConfigs = []clusterv1.ClientConfig{{URL: o.clusterURL}}
	}
	managed, err := o.managed.RESTConfig()
	if err != nil {
		return nil, err
	}
	boot, err := o.bootstrap(ctx, managed)
	if err != nil {
		return nil, err
	}
	return agent.New(agent.Options{
		ClusterName: o.clusterName, AgentID: o.agentID, Bootstrap: boot, Managed: managed,
		ClientConfigs: clientConfigs, KubeconfigFile: o.hubKubeconfigFile, LeaseDurationSeconds: o.leaseSeconds,
	})
}

// bootstrap is the --bootstrap-kubeconfig, else the one 'corral join'
// stored on the managed cluster.
func (o *agentOptions) bootstrap(ctx context.Context, managed *rest.Config) (*rest.Config, error) {
	if o.bootstrapKubeconfig != "" {
		boot, err := clientcmd.BuildConfigFromFlags("", o.bootstrapKubeconfig)
		if err != nil {
			return nil, fmt.Errorf("--bootstrap-kubeconfig %s: %w", o.bootstrapKubeconfig, err)
		}
		return boot, nil
	}
	kube, err := kubernetes.NewForConfig(managed)
	if err != nil {
		return nil, err
	}
	return agent.LoadBootstrap(ctx, kube, agent.DefaultSecretNamespace)
}
