package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clusterclient "open-cluster-management.io/api/client/cluster/clientset/versioned"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/addons/host"
	corralagent "github.com/corral-dev/corral/agent"
	"github.com/corral-dev/corral/deploy/charts"
	"github.com/corral-dev/corral/install"
	"github.com/corral-dev/corral/internal/version"
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
	// Deploy installs the agent into the managed cluster as a Deployment;
	// without it the agent runs here, in the foreground.
	Deploy bool
	// Install is what is installed (its cluster fields come from the
	// flags above); Output prints it instead.
	Install install.Agent
	Output  string
	// Wait waits, once installed, until the hub accepted the cluster and
	// it is Available; Timeout bounds each wait.
	Wait    bool
	Timeout time.Duration

	ca       []byte
	builtins []addons.Addon
	// selected are the builtins --addons names, for an agent run here.
	selected []addons.Addon
}

// NewJoinOptions returns the defaults; builtins are the built-in addons
// the agent hosts.
func NewJoinOptions(out io.Writer, builtins ...addons.Addon) *JoinOptions {
	return &JoinOptions{
		ClusterFlags: corralagent.NewClusterFlags(out), builtins: builtins, Deploy: true, Timeout: DefaultInstallTimeout,
		Install: install.Agent{Version: version.Get().Version},
	}
}

// NewCmdJoin returns `corral join`; builtins are the built-in addons the
// agent it runs hosts.
func NewCmdJoin(out io.Writer, builtins ...addons.Addon) *cobra.Command {
	o := NewJoinOptions(out, builtins...)
	cmd := &cobra.Command{
		Use:   "join",
		Short: "Install the corral agent into a cluster, which asks a hub to let it join",
		Long: `Install the corral agent into the managed cluster (--kubeconfig): it asks the
hub to let the cluster join as --cluster-name, with the line 'corral init' or
'corral get token' printed on the hub, then keeps the cluster's lease and
status and runs the built-in addons' agents. The agent is a Deployment in
open-cluster-management-agent (2 replicas, one leading) with the RBAC it needs; the bootstrap
kubeconfig is stored beside it (bootstrap-hub-kubeconfig), and the agent's
own hub identity, once accepted, in hub-kubeconfig-secret. A hub admin
accepts the cluster with 'corral accept'; --wait waits for that and for the
cluster to be Available.

The hub's address, the token and the cluster name are checked first; nothing
is installed if the hub cannot be reached, refuses the token, or another live
agent holds the name, or if the cluster's agent still runs it for another
hub. Without --ca-file the hub's CA is read from its kube-public/cluster-info,
over a connection that cannot be verified yet; --ca-file pins it.

Safe to run again: an agent of another version is upgraded in place, one of
this version set back to what it should be. --output yaml prints the objects
instead (the same the Helm chart deploy/charts/corral-agent makes; they hold
the bootstrap token, so keep them as a secret).

--deploy=false runs the agent here instead, in the foreground, until
stopped; 'corral agent --cluster-name NAME' runs it again with what join
stored.`,
		Example: `  corral join --hub-apiserver https://hub.example:6443 --hub-token $TOKEN --cluster-name cluster1 --kubeconfig cluster1.kubeconfig --wait
  corral join --hub-apiserver https://hub.example:6443 --hub-token $TOKEN --cluster-name cluster1 --ca-file hub-ca.crt --output yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			if err := o.Complete(cmd.Context()); err != nil {
				return err
			}
			if o.Output != "" {
				return o.Print()
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
	addInstallFlags(f, &o.Install.Image, &o.Install.Replicas, &o.Install.Addons, &o.Output, &o.Timeout, "agent")
	f.BoolVar(&o.Deploy, "deploy", o.Deploy, "install the agent into the cluster; false runs it here, in the foreground, until stopped")
	f.BoolVar(&o.Wait, "wait", false, "wait until a hub admin accepted the cluster and it is Available")
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
	if err := validateInstall(o.Install.Replicas, o.Output, o.Timeout); err != nil {
		return err
	}
	if !o.Deploy && (o.Output != "" || o.Wait || o.Install.Image != "" || o.Install.Replicas != 0) {
		return fmt.Errorf("--output, --wait, --image and --replicas are for an installed agent: drop --deploy=false, or them")
	}
	var err error
	if o.selected, err = addons.Select(o.builtins, o.Install.Addons); err != nil {
		return fmt.Errorf("--addons: %w", err)
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

// agentInstall is what join installs, for the bootstrap kubeconfig.
func (o *JoinOptions) agentInstall(kubeconfig []byte) install.Agent {
	a := o.Install
	a.ClusterName, a.BootstrapKubeconfig, a.ClusterURL = o.ClusterName, kubeconfig, o.ClusterURL
	a.ClusterLabels, a.ClusterAnnotations = o.ClusterLabels, o.ClusterAnnotations
	return a
}

// Print prints what join would install.
func (o *JoinOptions) Print() error {
	kubeconfig, err := agent.BootstrapKubeconfig(o.HubAPIServer, o.ca, o.HubToken)
	if err != nil {
		return err
	}
	objs, err := o.agentInstall(kubeconfig).Objects()
	if err != nil {
		return err
	}
	return install.Print(o.Out, o.Output, objs)
}

// Run checks, then installs the agent (or, with --deploy=false, stores the
// bootstrap kubeconfig and runs the agent here until ctx ends).
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
	if o.Deploy {
		return o.install(ctx, managedCfg, boot, kubeconfig)
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
	return corralagent.RunWithAddonHost(ctx, a, host.Options{ClusterName: o.ClusterName, Managed: managedCfg, Addons: o.selected})
}

// install installs or upgrades the agent on the managed cluster and, with
// --wait, waits until the hub accepted the cluster and it is Available.
func (o *JoinOptions) install(ctx context.Context, managedCfg, boot *rest.Config, kubeconfig []byte) error {
	spec := o.agentInstall(kubeconfig)
	objs, err := spec.Objects()
	if err != nil {
		return err
	}
	c, err := install.NewClient(managedCfg)
	if err != nil {
		return err
	}
	installed, err := install.ReadInfo(ctx, c, charts.AgentNamespace, charts.AgentDeployment)
	if err != nil {
		return err
	}
	s := steps{out: o.Out, total: 2}
	if o.Wait {
		s.total = 3
	}
	s.announce("agent of "+o.ClusterName, installed.Version, spec.Version, managedCfg.Host)
	if err := s.do(fmt.Sprintf("applying %d objects", len(objs)), func() error { return install.Apply(ctx, c, objs, false, o.Out) }); err != nil {
		return err
	}
	if err := s.do("waiting for the agent's Deployment to roll out", func() error {
		return install.WaitRollout(ctx, c, charts.AgentNamespace, charts.AgentDeployment, o.Timeout, o.Out)
	}); err != nil {
		return err
	}
	if !o.Wait {
		fmt.Fprintf(o.Out, "\n%s asks %s to join; a hub admin accepts with 'corral accept %s'.\n", o.ClusterName, o.HubAPIServer, o.ClusterName)
		return nil
	}
	return s.do(fmt.Sprintf("waiting for a hub admin to accept %s ('corral accept %s' on the hub) and for it to be Available", o.ClusterName, o.ClusterName), func() error {
		return waitAvailable(ctx, boot, o.ClusterName, o.Timeout, o.Out)
	})
}

// waitAvailable waits up to timeout, reading with the bootstrap identity,
// until the hub accepted cluster and its ManagedCluster is Available,
// saying each change of state on out.
func waitAvailable(ctx context.Context, boot *rest.Config, cluster string, timeout time.Duration, out io.Writer) error {
	clusters, err := clusterclient.NewForConfig(boot)
	if err != nil {
		return err
	}
	var state, last string
	err = wait.PollUntilContextTimeout(ctx, time.Second, timeout, true, func(ctx context.Context) (bool, error) {
		mc, err := clusters.ClusterV1().ManagedClusters().Get(ctx, cluster, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			state = "the agent has not asked to join yet"
		case err != nil:
			state = err.Error()
		case !mc.Spec.HubAcceptsClient:
			state = "asked to join; waiting for a hub admin to accept"
		case !meta.IsStatusConditionTrue(mc.Status.Conditions, clusterv1.ManagedClusterConditionJoined):
			state = "accepted; waiting for the agent to join"
		case !meta.IsStatusConditionTrue(mc.Status.Conditions, clusterv1.ManagedClusterConditionAvailable):
			state = "joined; waiting for it to be Available"
		default:
			state = "Available"
		}
		if state != last {
			fmt.Fprintf(out, "  %s\n", state)
			last = state
		}
		return state == "Available", nil
	})
	if err != nil {
		return fmt.Errorf("%s was not accepted and Available within %s (%s): accept it with 'corral accept %s' on the hub, or see the agent's logs ('kubectl -n %s logs deployment/%s')",
			cluster, timeout, state, cluster, charts.AgentNamespace, charts.AgentDeployment)
	}
	return nil
}
