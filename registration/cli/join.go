package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/addons/host"
	corralagent "github.com/corral-dev/corral/agent"
	"github.com/corral-dev/corral/registration/agent"
	"github.com/corral-dev/corral/registration/bootstrap"
)

// JoinOptions are the options of `corral join`.
type JoinOptions struct {
	corralagent.ClusterFlags
	HubAPIServer string
	HubToken     string
	CAFile       string
	// ClusterURL is the managed cluster's API server address the agent
	// declares to the hub (managedClusterClientConfigs).
	ClusterURL string
	// HubKubeconfigFile, if set, also receives the agent's hub kubeconfig.
	HubKubeconfigFile string
	corralagent.ClusterMeta

	ca       []byte
	builtins []addons.Addon
}

// NewJoinOptions returns the defaults; builtins are the built-in addons
// the agent hosts.
func NewJoinOptions(out io.Writer, builtins ...addons.Addon) *JoinOptions {
	return &JoinOptions{ClusterFlags: corralagent.NewClusterFlags(out), builtins: builtins}
}

// NewCmdJoin returns `corral join`; builtins are the built-in addons the
// agent it runs hosts.
func NewCmdJoin(out io.Writer, builtins ...addons.Addon) *cobra.Command {
	o := NewJoinOptions(out, builtins...)
	cmd := &cobra.Command{
		Use:   "join",
		Short: "Ask a hub to let this cluster join, and run its agent",
		Long: `Ask a hub to let the managed cluster (--kubeconfig) join as --cluster-name,
with the line 'corral init' or 'corral get token' printed on the hub, and run
the cluster's agent until stopped.

The hub's address, the token and the cluster name are checked first; nothing
is created if the hub cannot be reached, refuses the token, or another live
agent holds the name, or if the cluster's agent still runs it for another
hub (stop that agent first). Then the bootstrap kubeconfig is stored on the managed
cluster (open-cluster-management-agent/bootstrap-hub-kubeconfig) and the
agent asks to join and waits for a hub admin to run 'corral accept'. Without
--ca-file the hub's CA is read from its kube-public/cluster-info, over a
connection that cannot be verified yet; --ca-file pins it.

The agent also hosts the cluster's addons, as 'corral agent' does (every
built-in addon's agent half; 'corral agent --addons' picks fewer).

Stopping 'corral join' stops the agent; 'corral agent --cluster-name NAME'
runs it again with what join stored.`,
		Example: "  corral join --hub-apiserver https://hub.example:6443 --hub-token $TOKEN --cluster-name cluster1 --kubeconfig cluster1.kubeconfig",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			if err := o.Complete(cmd.Context()); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	f := cmd.Flags()
	o.AddFlags(f)
	f.StringVar(&o.HubAPIServer, "hub-apiserver", "", "https address of the hub's API server (required)")
	f.StringVar(&o.HubToken, "hub-token", "", "bootstrap token from 'corral get token' on the hub (required)")
	f.StringVar(&o.CAFile, "ca-file", "", "PEM CA bundle of the hub's API server (default: read from the hub's kube-public/cluster-info)")
	f.StringVar(&o.HubKubeconfigFile, "hub-kubeconfig-file", "", "also write the agent's hub kubeconfig to this file")
	corralagent.AddClusterURLFlag(f, &o.ClusterURL)
	o.AddMetaFlags(f)
	return cmd
}

// Validate checks the flags, and reads --ca-file.
func (o *JoinOptions) Validate() error {
	switch {
	case o.HubAPIServer == "":
		return fmt.Errorf("--hub-apiserver is required: 'corral get token' on the hub prints it")
	case o.HubToken == "":
		return fmt.Errorf("--hub-token is required: 'corral get token' on the hub prints one")
	}
	if err := o.ValidateClusterName(); err != nil {
		return err
	}
	if err := corralagent.ValidateHTTPSURL("--hub-apiserver", o.HubAPIServer); err != nil {
		return err
	}
	if _, err := corralagent.ClientConfigs(o.ClusterURL); err != nil {
		return err
	}
	if err := o.ValidateMeta(); err != nil {
		return err
	}
	if o.CAFile != "" {
		data, err := os.ReadFile(o.CAFile)
		if err != nil {
			return fmt.Errorf("--ca-file: %w", err)
		}
		if err := bootstrap.CheckCA(data); err != nil {
			return fmt.Errorf("--ca-file %s: %w", o.CAFile, err)
		}
		o.ca = data
	}
	return nil
}

// Complete reads the hub's CA from the hub unless --ca-file gave it.
func (o *JoinOptions) Complete(ctx context.Context) error {
	if o.ca != nil {
		return nil
	}
	ca, err := bootstrap.FetchCA(ctx, o.HubAPIServer, o.HubToken)
	if err != nil {
		return fmt.Errorf("cannot read the hub's CA at %s (%w): check --hub-apiserver and that the hub is running, or pass --ca-file", o.HubAPIServer, err)
	}
	fmt.Fprintf(o.Out, "trusting the CA the hub publishes in %s/%s (pass --ca-file to pin it instead)\n", bootstrap.ClusterInfoNamespace, bootstrap.ClusterInfoName)
	o.ca = ca
	return nil
}

// Run checks, stores the bootstrap kubeconfig and runs the agent until ctx
// ends.
func (o *JoinOptions) Run(ctx context.Context) error {
	kubeconfig, err := agent.BootstrapKubeconfig(o.HubAPIServer, o.ca, o.HubToken)
	if err != nil {
		return err
	}
	boot, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		return err
	}
	managedCfg, err := o.Managed.RESTConfig()
	if err != nil {
		return err
	}
	configs, err := corralagent.ClientConfigs(o.ClusterURL)
	if err != nil {
		return err
	}
	a, err := agent.New(agent.Options{ClusterName: o.ClusterName, Bootstrap: boot, Managed: managedCfg, ClientConfigs: configs, KubeconfigFile: o.HubKubeconfigFile,
		ClusterLabels: o.ClusterLabels, ClusterAnnotations: o.ClusterAnnotations})
	if err != nil {
		return err
	}
	if err := a.Preflight(ctx); err != nil {
		return err
	}
	managed, err := kubernetes.NewForConfig(managedCfg)
	if err != nil {
		return err
	}
	if err := agent.StoreBootstrap(ctx, managed, agent.DefaultSecretNamespace, kubeconfig); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "%s: asking %s to join; a hub admin accepts with 'corral accept %s'. The agent runs until stopped.\n",
		o.ClusterName, o.HubAPIServer, o.ClusterName)
	return corralagent.RunWithAddonHost(ctx, a, host.Options{ClusterName: o.ClusterName, Managed: managedCfg, Addons: o.builtins})
}
