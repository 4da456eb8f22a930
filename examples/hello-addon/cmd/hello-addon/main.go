// Command hello-addon is a third-party addon for an OCM hub (corral or
// OCM's own): `hello-addon manager` is its hub half, `hello-addon agent` its
// agent half. See examples/hello-addon/README.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"

	"github.com/corral-dev/corral/examples/hello-addon/agent"
	"github.com/corral-dev/corral/examples/hello-addon/common"
	"github.com/corral-dev/corral/examples/hello-addon/hub"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := newRootCmd().ExecuteContext(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		stop()
		os.Exit(1)
	}
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "hello-addon",
		Short:         "A third-party addon for an Open Cluster Management hub",
		Long:          "hello-addon is an example addon: its manager (hub half) sends its agent to every cluster the addon is enabled on; the agent reports the cluster's Kubernetes version into the ConfigMap hello in its cluster namespace on the hub.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	root.PersistentFlags().AddGoFlag(klogFlags.Lookup("v"))
	root.AddCommand(newManagerCmd(), newAgentCmd())
	return root
}

// managerOptions are the flags of `hello-addon manager`.
type managerOptions struct {
	kubeconfig string
	hub        hub.Options
}

func newManagerCmd() *cobra.Command {
	o := &managerOptions{}
	cmd := &cobra.Command{
		Use:   "manager --agent-image IMAGE [--kubeconfig HUB]",
		Short: "Run the hub half: deploy the agent to every cluster the addon is enabled on, approve its certificate, give it its hub Role",
		Example: `  # against the hub of corral dev up
  hello-addon manager --kubeconfig ~/.corral/dev/hub/kubeconfig --agent-image registry.example.com/hello-addon:v1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.hub.Validate(); err != nil {
				return err
			}
			cfg, err := loadConfig(o.kubeconfig, "--kubeconfig")
			if err != nil {
				return err
			}
			return hub.Run(cmd.Context(), cfg, o.hub)
		},
	}
	cmd.Flags().StringVar(&o.kubeconfig, "kubeconfig", "", "the hub's kubeconfig (default: $KUBECONFIG, ~/.kube/config, or the pod's service account)")
	cmd.Flags().StringVar(&o.hub.Image, "agent-image", "", "the agent's container image, run on every managed cluster")
	return cmd
}

// agentOptions are the flags of `hello-addon agent`.
type agentOptions struct {
	hubKubeconfig, kubeconfig string
	agent                     agent.Options
}

func newAgentCmd() *cobra.Command {
	o := &agentOptions{}
	cmd := &cobra.Command{
		Use:   "agent --cluster-name NAME [--hub-kubeconfig FILE] [--addon-namespace NS] [--kubeconfig MANAGED]",
		Short: "Run the agent half: renew the addon's lease and report the cluster's version to the hub",
		Example: `  # in a pod, as the Deployment the manager sends runs it
  hello-addon agent --cluster-name cluster1
  # beside the cluster (hosted), with the credentials from the hello-hub-kubeconfig Secret
  hello-addon agent --cluster-name cluster1 --hub-kubeconfig creds/kubeconfig --kubeconfig cluster1.kubeconfig`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.agent.ClusterName == "" {
				return fmt.Errorf("--cluster-name is empty: give the managed cluster's name on the hub")
			}
			if o.hubKubeconfig == "" {
				return fmt.Errorf("--hub-kubeconfig is empty: give the kubeconfig of the %s-hub-kubeconfig Secret", common.AddonName)
			}
			var err error
			if o.agent.Hub, err = clientcmd.BuildConfigFromFlags("", o.hubKubeconfig); err != nil {
				return fmt.Errorf("reading --hub-kubeconfig %s (the %s-hub-kubeconfig Secret, there once the hub approved the addon's certificate): %w",
					o.hubKubeconfig, common.AddonName, err)
			}
			if o.agent.Managed, err = loadConfig(o.kubeconfig, "--kubeconfig"); err != nil {
				return err
			}
			return agent.Run(cmd.Context(), o.agent)
		},
	}
	cmd.Flags().StringVar(&o.hubKubeconfig, "hub-kubeconfig", "/var/run/hub/kubeconfig", "the addon's own hub kubeconfig: the mounted hello-hub-kubeconfig Secret")
	cmd.Flags().StringVar(&o.kubeconfig, "kubeconfig", "", "the managed cluster's kubeconfig (default: the pod's service account, $KUBECONFIG or ~/.kube/config)")
	cmd.Flags().StringVar(&o.agent.ClusterName, "cluster-name", "", "the managed cluster's name on the hub")
	cmd.Flags().StringVar(&o.agent.AddonNamespace, "addon-namespace", common.DefaultInstallNamespace, "the namespace the addon is installed in on the managed cluster (its lease is there)")
	cmd.Flags().DurationVar(&o.agent.Interval, "interval", agent.DefaultInterval, "how often to re-read the cluster's version")
	return cmd
}

// loadConfig reads the kubeconfig at path, or when path is empty the
// usual places: $KUBECONFIG, ~/.kube/config, then the pod's service
// account.
func loadConfig(path, flagName string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = path
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("loading %s %q: %w", flagName, path, err)
	}
	return cfg, nil
}
