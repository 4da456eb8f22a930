package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/retry"
	clusterclient "open-cluster-management.io/api/client/cluster/clientset/versioned"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	corralagent "github.com/corral-dev/corral/agent"
	"github.com/corral-dev/corral/deploy/charts"
	"github.com/corral-dev/corral/install"
	"github.com/corral-dev/corral/internal/confirm"
	"github.com/corral-dev/corral/registration/agent"
)

// UnjoinOptions are the options of `corral unjoin`.
type UnjoinOptions struct {
	corralagent.ClusterFlags
	// LocalOnly leaves the hub alone and removes only the agent's state on
	// the managed cluster.
	LocalOnly bool
	// Timeout bounds the wait for the hub's cleanup.
	Timeout time.Duration
	// Confirm is --yes and --dry-run: unjoin always removes the cluster's
	// place on the hub or the agent's state, so it asks on a terminal, and
	// off one needs --yes.
	Confirm confirm.Options

	managed kubernetes.Interface
	// installed reads and deletes what 'corral join' installed.
	installed client.Client
}

// NewUnjoinOptions returns the defaults.
func NewUnjoinOptions(out io.Writer) *UnjoinOptions {
	return &UnjoinOptions{ClusterFlags: corralagent.NewClusterFlags(out), Timeout: 2 * time.Minute, Confirm: confirm.NewOptions()}
}

// NewCmdUnjoin returns `corral unjoin`.
func NewCmdUnjoin(out io.Writer) *cobra.Command {
	o := NewUnjoinOptions(out)
	cmd := &cobra.Command{
		Use:   "unjoin",
		Short: "Take this cluster off its hub: the hub removes its namespace and RBAC, and the agent's state goes",
		Long: `Take the managed cluster (--kubeconfig) off its hub. With the cluster's own
hub identity (open-cluster-management-agent/hub-kubeconfig-secret) unjoin
reports its agent gone, deletes its ManagedCluster and waits until the hub
has revoked the cluster's identity (the hub deletes the cluster's addons and
ManifestWorks first, then its RBAC, then its namespace and the
ManagedCluster), then deletes the agent's hub and bootstrap kubeconfigs on
the managed cluster. A cluster the hub never accepted has no such identity:
only its agent's state goes, and its join request stays on the hub until a
hub admin runs 'corral deny'.

The agent 'corral join' installed is stopped first, and what it installed
goes last (its RBAC, ServiceAccount and namespaces). An agent run another
way ('corral agent', 'corral join --deploy=false') must be stopped first:
a running agent would ask to join again.
With the agent stopped, what the cluster's ManifestWorks applied stays on
the managed cluster: delete the works (corral work delete) while the agent
runs to have it removed.
If the hub no longer accepts the cluster's identity, a hub admin deletes the
ManagedCluster and --local-only removes what is left here.

Before it changes anything it shows what goes and asks on a terminal; off a
terminal it refuses unless --yes is given. --dry-run shows the same and
changes nothing.`,
		Example: `  corral unjoin --cluster-name cluster1 --kubeconfig cluster1.kubeconfig
  # Show what would go, and change nothing
  corral unjoin --cluster-name cluster1 --kubeconfig cluster1.kubeconfig --dry-run
  # In a script: go ahead without asking
  corral unjoin --cluster-name cluster1 --kubeconfig cluster1.kubeconfig --yes`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			if err := o.Complete(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	f := cmd.Flags()
	o.AddFlags(f)
	f.BoolVar(&o.LocalOnly, "local-only", false, "leave the hub alone; remove only the agent's state on the managed cluster")
	f.DurationVar(&o.Timeout, "timeout", o.Timeout, "how long to wait for the agent to stop and for the hub's cleanup")
	o.Confirm.AddFlags(f)
	return cmd
}

// Validate checks the flags.
func (o *UnjoinOptions) Validate() error {
	if err := o.ValidateClusterName(); err != nil {
		return err
	}
	if o.Timeout <= 0 {
		return fmt.Errorf("--timeout is %s: it must be positive", o.Timeout)
	}
	return nil
}

// Complete builds the managed cluster's client.
func (o *UnjoinOptions) Complete() error {
	cfg, err := o.Managed.RESTConfig()
	if err != nil {
		return err
	}
	if o.managed, err = kubernetes.NewForConfig(cfg); err != nil {
		return err
	}
	o.installed, err = install.NewClient(cfg)
	return err
}

// Run removes the cluster from the hub, then the agent's state.
func (o *UnjoinOptions) Run(ctx context.Context) error {
	secrets := o.managed.CoreV1().Secrets(agent.DefaultSecretNamespace)
	secret, err := secrets.Get(ctx, agent.DefaultSecretName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err) && !o.LocalOnly:
		return fmt.Errorf("the managed cluster holds no hub identity (%s/%s): it has not joined, or a hub admin removes it with 'kubectl delete managedcluster %s'",
			agent.DefaultSecretNamespace, agent.DefaultSecretName, o.ClusterName)
	case err != nil && !apierrors.IsNotFound(err):
		return fmt.Errorf("reading %s/%s on the managed cluster: %w", agent.DefaultSecretNamespace, agent.DefaultSecretName, err)
	case err == nil && string(secret.Data[agent.KeyClusterName]) != o.ClusterName:
		return fmt.Errorf("the managed cluster joined as %q, not %q: nothing was changed", secret.Data[agent.KeyClusterName], o.ClusterName)
	}
	installed, err := o.isInstalled(ctx)
	if err != nil {
		return err
	}
	leaving := !o.LocalOnly && len(secret.Data[agent.KeyKubeconfig]) > 0
	if ok, err := o.Confirm.Ask(o.Out, o.effect(leaving, installed)); !ok || err != nil {
		return err
	}
	if err := o.stopInstalledAgent(ctx); err != nil {
		return err
	}
	switch {
	case o.LocalOnly:
	case len(secret.Data[agent.KeyKubeconfig]) == 0:
		fmt.Fprintf(o.Out, "%s: the hub never accepted this cluster; its join request stays there until a hub admin runs 'corral deny %s'\n", o.ClusterName, o.ClusterName)
	default:
		if err := o.leaveHub(ctx, secret.Data[agent.KeyKubeconfig]); err != nil {
			return err
		}
	}
	for _, name := range []string{agent.DefaultSecretName, agent.DefaultBootstrapSecretName} {
		if err := secrets.Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting %s/%s on the managed cluster: %w", agent.DefaultSecretNamespace, name, err)
		}
	}
	fmt.Fprintf(o.Out, "%s: removed the agent's hub and bootstrap kubeconfigs from the managed cluster\n", o.ClusterName)
	if !installed {
		return nil
	}
	return o.removeInstall(ctx)
}

// effect is what unjoin removes: with leaving, the cluster's place on
// the hub; the agent's state here; with installed, what 'corral join'
// installed.
func (o *UnjoinOptions) effect(leaving, installed bool) confirm.Effect {
	e := confirm.Effect{Verb: "unjoin " + o.ClusterName}
	if installed {
		e.Removes = append(e.Removes, fmt.Sprintf("on the managed cluster: the agent 'corral join' installed (deployment %s/%s, stopped first), its RBAC, ServiceAccount and namespaces",
			charts.AgentNamespace, charts.AgentDeployment))
	}
	if leaving {
		e.Removes = append(e.Removes, fmt.Sprintf("on the hub: ManagedCluster %s, and with it namespace %s and everything in it (its addons, its ManifestWorks), and its RBAC; "+
			"what the works applied stays on the managed cluster", o.ClusterName, o.ClusterName))
	}
	e.Removes = append(e.Removes, fmt.Sprintf("on the managed cluster: the agent's hub and bootstrap kubeconfigs (%s/%s, %s/%s)",
		agent.DefaultSecretNamespace, agent.DefaultSecretName, agent.DefaultSecretNamespace, agent.DefaultBootstrapSecretName))
	return e
}

// isInstalled says whether 'corral join' installed the agent: its
// ServiceAccount is there (its Deployment may be gone already, deleted by
// an unjoin that then waited too long for the hub).
func (o *UnjoinOptions) isInstalled(ctx context.Context) (bool, error) {
	err := o.installed.Get(ctx, client.ObjectKey{Namespace: charts.AgentNamespace, Name: charts.AgentServiceAccount}, &corev1.ServiceAccount{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading serviceaccount %s/%s on the managed cluster: %w", charts.AgentNamespace, charts.AgentServiceAccount, err)
	}
	return true, nil
}

// agentSelector selects the pods of the agent 'corral join' installs.
var agentSelector = client.MatchingLabels{"app.kubernetes.io/name": charts.AgentDeployment, "app.kubernetes.io/component": "agent"}

// stopInstalledAgent deletes the agent's Deployment, when 'corral join'
// installed one, and waits until its pods are gone, so that it can neither
// heartbeat nor ask to join again.
func (o *UnjoinOptions) stopInstalledAgent(ctx context.Context) error {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: charts.AgentNamespace, Name: charts.AgentDeployment}}
	err := o.installed.Delete(ctx, d, client.PropagationPolicy(metav1.DeletePropagationForeground))
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("stopping the agent (deleting deployment %s/%s): %w", charts.AgentNamespace, charts.AgentDeployment, err)
	}
	fmt.Fprintf(o.Out, "%s: stopping the agent (deployment %s/%s)\n", o.ClusterName, charts.AgentNamespace, charts.AgentDeployment)
	err = wait.PollUntilContextTimeout(ctx, time.Second, o.Timeout, true, func(ctx context.Context) (bool, error) {
		pods := &corev1.PodList{}
		err := o.installed.List(ctx, pods, client.InNamespace(charts.AgentNamespace), agentSelector)
		return err == nil && len(pods.Items) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("the agent's pods in %s did not stop within %s: nothing else was changed; run unjoin again to wait more", charts.AgentNamespace, o.Timeout)
	}
	return nil
}

// removeInstall deletes the rest of what 'corral join' installed: its
// RBAC, ServiceAccount, Secrets and namespaces.
func (o *UnjoinOptions) removeInstall(ctx context.Context) error {
	objs, err := install.Agent{ClusterName: o.ClusterName, BootstrapKubeconfig: []byte("-")}.Objects()
	if err != nil {
		return err
	}
	if err := install.Delete(ctx, o.installed, objs, o.Out); err != nil {
		return err
	}
	return install.WaitNamespacesGone(ctx, o.installed, objs, o.Timeout)
}

// leaveHub deletes the cluster's ManagedCluster with its own identity and
// waits until the hub has revoked that identity (once the cluster's addons
// and works are gone) or the ManagedCluster is gone; the namespace goes
// after the RBAC.
func (o *UnjoinOptions) leaveHub(ctx context.Context, kubeconfig []byte) error {
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		return fmt.Errorf("the stored hub kubeconfig does not load: %w", err)
	}
	clusters, err := clusterclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	if err := markLeft(ctx, clusters, o.ClusterName); err != nil {
		return err
	}
	err = clusters.ClusterV1().ManagedClusters().Delete(ctx, o.ClusterName, metav1.DeleteOptions{})
	switch {
	case apierrors.IsNotFound(err):
		fmt.Fprintf(o.Out, "%s: the hub has no such cluster any more\n", o.ClusterName)
		return nil
	case apierrors.IsForbidden(err), apierrors.IsUnauthorized(err):
		return fmt.Errorf("the hub refused cluster %s's identity (%w): a hub admin removes it with 'kubectl delete managedcluster %s', then run unjoin with --local-only",
			o.ClusterName, err, o.ClusterName)
	case err != nil:
		return fmt.Errorf("deleting ManagedCluster %s on the hub: %w", o.ClusterName, err)
	}
	fmt.Fprintf(o.Out, "%s: deleted from the hub; waiting for the hub to remove its addons, works, RBAC and namespace\n", o.ClusterName)
	var last error
	err = wait.PollUntilContextTimeout(ctx, time.Second, o.Timeout, true, func(ctx context.Context) (bool, error) {
		_, last = clusters.ClusterV1().ManagedClusters().Get(ctx, o.ClusterName, metav1.GetOptions{})
		return apierrors.IsNotFound(last) || apierrors.IsForbidden(last), nil
	})
	if err != nil {
		return fmt.Errorf("the hub has not finished removing %s after %s; the agent's state is kept, run unjoin again to wait more", o.ClusterName, o.Timeout)
	}
	if apierrors.IsNotFound(last) {
		fmt.Fprintf(o.Out, "%s: the hub removed it\n", o.ClusterName)
	} else {
		fmt.Fprintf(o.Out, "%s: the hub revoked its identity and is removing its namespace\n", o.ClusterName)
	}
	return nil
}

// markLeft reports the cluster's agent gone (Available Unknown), as it is
// once stopped: the hub then lets go of the cluster's works at once instead
// of waiting for the agent to finalize them, or for its lease to go stale.
// A hub that refuses the identity, or has no such cluster, is left to the
// delete that follows to report.
func markLeft(ctx context.Context, clusters clusterclient.Interface, name string) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		mc, err := clusters.ClusterV1().ManagedClusters().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if !meta.SetStatusCondition(&mc.Status.Conditions, metav1.Condition{
			Type: clusterv1.ManagedClusterConditionAvailable, Status: metav1.ConditionUnknown,
			Reason: agent.ReasonUnjoined, Message: "The cluster's agent stopped: corral unjoin is taking the cluster off the hub.",
			ObservedGeneration: mc.Generation,
		}) {
			return nil
		}
		_, err = clusters.ClusterV1().ManagedClusters().UpdateStatus(ctx, mc, metav1.UpdateOptions{})
		return err
	})
	if err == nil || apierrors.IsNotFound(err) || apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
		return nil
	}
	return fmt.Errorf("reporting cluster %s's agent gone on the hub: %w", name, err)
}
