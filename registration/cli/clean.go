package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/deploy/charts"
	"github.com/corral-dev/corral/install"
	"github.com/corral-dev/corral/internal/confirm"
	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/registration/webhook"
)

// CleanOptions are the options of `corral clean`.
type CleanOptions struct {
	Out       io.Writer
	Hub       hubclient.Hub
	Namespace string
	// Force deletes the clusters that remain, and waits until the hub has
	// removed them, instead of refusing.
	Force bool
	// Confirm is --yes and --dry-run: clean always removes the hub, so it
	// asks on a terminal, and off one needs --yes.
	Confirm confirm.Options
	Timeout time.Duration
}

// NewCmdClean returns `corral clean`.
func NewCmdClean(out io.Writer) *cobra.Command {
	o := &CleanOptions{Out: out, Hub: hubclient.New(), Namespace: charts.HubNamespace, Timeout: DefaultInstallTimeout, Confirm: confirm.NewOptions()}
	cmd := &cobra.Command{
		Use:   "clean",
		Short: "Remove the corral hub from a cluster: its controllers, webhooks, bootstrap identity and CRDs",
		Long: `Remove what 'corral init' installed on the hub (--kubeconfig): the hub's
Deployment, RBAC and namespace, the admission webhook configurations it
registered, the bootstrap identity, and the Open Cluster Management CRDs
with every object of theirs (placements, works, addons…). Nothing of corral
is left behind, except kube-public/cluster-info, the cluster's public
address and CA, which other tools read.

It refuses while clusters remain: unjoin them first ('corral unjoin' on each,
which also removes their agents), or pass --force to delete them here — the
hub then removes each one's namespace, RBAC and works before it goes
itself, and their agents, left running, are refused from then on.

Before it removes anything it shows what goes (the clusters --force
deletes, with their works and addons; the hub's own objects; the CRDs, with
how many placements, works and addons go with them) and asks on a terminal;
off a terminal it refuses unless --yes is given. --yes only skips the
question: it never deletes clusters without --force. --dry-run shows the
same and removes nothing.`,
		Example: `  corral clean --kubeconfig hub.kubeconfig
  # Show what would go, and remove nothing
  corral clean --dry-run --kubeconfig hub.kubeconfig
  # In a script, deleting the clusters that remain too
  corral clean --force --yes --kubeconfig hub.kubeconfig`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return hubclient.Run(cmd.Context(), o) },
	}
	o.Hub.AddFlags(cmd.Flags())
	cmd.Flags().StringVar(&o.Namespace, "namespace", o.Namespace, "namespace the hub was installed in")
	cmd.Flags().BoolVar(&o.Force, "force", false, "delete the clusters that remain, waiting for the hub to remove each, instead of refusing")
	cmd.Flags().DurationVar(&o.Timeout, "timeout", o.Timeout, "how long to wait for the hub to remove the clusters")
	o.Confirm.AddFlags(cmd.Flags())
	return cmd
}

// Validate checks the flags.
func (o *CleanOptions) Validate() error {
	if o.Timeout <= 0 {
		return fmt.Errorf("--timeout is %s: give a positive time, such as 5m", o.Timeout)
	}
	return nil
}

// Complete builds the hub's clients.
func (o *CleanOptions) Complete() error { return o.Hub.Complete() }

// Run removes the clusters (with --force), then the hub.
func (o *CleanOptions) Run(ctx context.Context) error {
	clusters := &clusterv1.ManagedClusterList{}
	if err := o.Hub.Client.List(ctx, clusters); client.IgnoreNotFound(err) != nil && !meta.IsNoMatchError(err) {
		return fmt.Errorf("listing the hub's clusters: %w", err)
	}
	// Clusters being deleted already (unjoined a moment ago) are waited
	// for, not refused.
	var remaining []string
	for _, mc := range clusters.Items {
		if mc.DeletionTimestamp == nil {
			remaining = append(remaining, mc.Name)
		}
	}
	slices.Sort(remaining)
	if len(remaining) > 0 && !o.Force {
		return fmt.Errorf("%s on the hub (%s): unjoin them first ('corral unjoin' on each), or pass --force to delete them here; nothing was changed",
			plural(len(remaining), "cluster remains", "clusters remain"), strings.Join(remaining, ", "))
	}
	effect, err := o.effect(ctx, clusters.Items)
	if err != nil {
		return err
	}
	if ok, err := o.Confirm.Ask(o.Out, effect); !ok || err != nil {
		return err
	}
	s := steps{out: o.Out, total: 4}
	fmt.Fprintf(o.Out, "Removing the corral hub from %s\n", o.Hub.Config.Host)
	if err := s.do(fmt.Sprintf("deleting %s, the hub removing each one's namespace, RBAC and works", plural(len(clusters.Items), "cluster", "clusters")), func() error {
		return o.deleteClusters(ctx, clusters.Items)
	}); err != nil {
		return err
	}
	hubObjs, err := install.Hub{Namespace: o.Namespace, Deployment: true}.Objects()
	if err != nil {
		return err
	}
	crds, rest := splitCRDs(hubObjs)
	c, err := install.NewClient(o.Hub.Config)
	if err != nil {
		return err
	}
	if crds, err = withRuntimeCRDs(ctx, c, crds); err != nil {
		return err
	}
	if err := s.do("removing the hub's Deployment, RBAC, bootstrap identity and admission webhooks", func() error {
		if err := install.Delete(ctx, c, rest, o.Out); err != nil {
			return err
		}
		return deleteWebhookConfigurations(ctx, c, o.Out)
	}); err != nil {
		return err
	}
	if err := s.do("releasing what no controller will finalize any more", func() error {
		return install.ReleaseFinalizers(ctx, c, crds, o.Out)
	}); err != nil {
		return err
	}
	if err := s.do(fmt.Sprintf("deleting the %d CRDs and every object of theirs, and waiting for the namespaces to go", len(crds)), func() error {
		if err := install.Delete(ctx, c, crds, o.Out); err != nil {
			return err
		}
		return install.WaitNamespacesGone(ctx, c, rest, o.Timeout)
	}); err != nil {
		return err
	}
	fmt.Fprintln(o.Out, "\nThe hub is removed.")
	return nil
}

// effect is what clean removes: the clusters (with --force), the hub's
// own objects and the CRDs with every object of theirs.
func (o *CleanOptions) effect(ctx context.Context, clusters []clusterv1.ManagedCluster) (confirm.Effect, error) {
	host := "the hub"
	if o.Hub.Config != nil {
		host = o.Hub.Config.Host
	}
	e := confirm.Effect{Verb: "remove the corral hub from " + host}
	for _, mc := range clusters {
		what := "its namespace, RBAC and addons go"
		works := &workv1.ManifestWorkList{}
		if err := o.Hub.Client.List(ctx, works, client.InNamespace(mc.Name)); err != nil && !meta.IsNoMatchError(err) {
			return e, fmt.Errorf("listing the ManifestWorks of cluster %s: %w", mc.Name, err)
		}
		if n := len(works.Items); n > 0 {
			what = fmt.Sprintf("its namespace, RBAC, addons and %s go (a running agent removes what they applied)", plural(n, "ManifestWork", "ManifestWorks"))
		}
		e.Removes = append(e.Removes, fmt.Sprintf("cluster %s: deleted; %s", mc.Name, what))
	}
	e.Removes = append(e.Removes, fmt.Sprintf("the hub's Deployment, RBAC and namespace %s, its admission webhooks and its bootstrap identity", o.Namespace))
	var counts []string
	for _, k := range []struct {
		list     client.ObjectList
		one, all string
	}{
		{&clusterv1beta1.PlacementList{}, "placement", "placements"},
		{&workv1alpha1.ManifestWorkReplicaSetList{}, "ManifestWorkReplicaSet", "ManifestWorkReplicaSets"},
		{&addonv1alpha1.ClusterManagementAddOnList{}, "addon", "addons"},
		{&clusterv1beta2.ManagedClusterSetList{}, "cluster set", "cluster sets"},
	} {
		if err := o.Hub.Client.List(ctx, k.list); err != nil {
			if meta.IsNoMatchError(err) {
				continue
			}
			return e, fmt.Errorf("listing %s: %w", k.all, err)
		}
		if n := meta.LenList(k.list); n > 0 {
			counts = append(counts, plural(n, k.one, k.all))
		}
	}
	line := "the Open Cluster Management CRDs, and every object of theirs"
	if len(counts) > 0 {
		line += ": " + strings.Join(counts, ", ")
	}
	e.Removes = append(e.Removes, line)
	return e, nil
}

// deleteClusters deletes clusters and waits until the hub has removed
// them (their namespaces, RBAC and works first).
func (o *CleanOptions) deleteClusters(ctx context.Context, clusters []clusterv1.ManagedCluster) error {
	for i := range clusters {
		if err := o.Hub.Client.Delete(ctx, &clusters[i]); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting cluster %s: %w", clusters[i].Name, err)
		}
	}
	var left []string
	err := wait.PollUntilContextTimeout(ctx, time.Second, o.Timeout, true, func(ctx context.Context) (bool, error) {
		left = left[:0]
		for _, mc := range clusters {
			err := o.Hub.Client.Get(ctx, client.ObjectKeyFromObject(&mc), &clusterv1.ManagedCluster{})
			if !apierrors.IsNotFound(err) {
				left = append(left, mc.Name)
			}
		}
		return len(left) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("the hub has not removed %s after %s: is it running ('corral get hub-info')? run clean again to wait more", strings.Join(left, ", "), o.Timeout)
	}
	return nil
}

// deleteWebhookConfigurations deletes the admission webhook
// configurations the hub registered: without the hub they would refuse
// every write they cover.
func deleteWebhookConfigurations(ctx context.Context, c client.Client, progress io.Writer) error {
	selector := client.MatchingLabels{webhook.ManagedByLabel: webhook.ManagedByValue}
	for _, kind := range []string{"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"} {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(admissionregistrationv1.SchemeGroupVersion.WithKind(kind + "List"))
		if err := c.List(ctx, list, selector); err != nil {
			return fmt.Errorf("listing the hub's webhook configurations: %w", err)
		}
		for i := range list.Items {
			obj := &list.Items[i]
			if err := c.Delete(ctx, obj); client.IgnoreNotFound(err) != nil {
				return fmt.Errorf("deleting %s: %w", install.Describe(obj), err)
			}
			fmt.Fprintf(progress, "  deleted %s\n", install.Describe(obj))
		}
	}
	return nil
}

// RuntimeCRDs are the CRDs the hub's addons install as they start (the
// properties addon's ClusterProfile), beside those 'corral init' installs.
var RuntimeCRDs = []string{"clusterprofiles.multicluster.x-k8s.io"}

// withRuntimeCRDs adds to crds those of RuntimeCRDs the hub serves.
func withRuntimeCRDs(ctx context.Context, c client.Client, crds []*unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	for _, name := range RuntimeCRDs {
		crd := &unstructured.Unstructured{}
		crd.SetAPIVersion("apiextensions.k8s.io/v1")
		crd.SetKind("CustomResourceDefinition")
		err := c.Get(ctx, client.ObjectKey{Name: name}, crd)
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			return nil, fmt.Errorf("reading CRD %s: %w", name, err)
		default:
			crds = append(crds, crd)
		}
	}
	return crds, nil
}

// splitCRDs separates the CRDs from the other objects.
func splitCRDs(objs []*unstructured.Unstructured) (crds, rest []*unstructured.Unstructured) {
	for _, o := range objs {
		if o.GetKind() == "CustomResourceDefinition" {
			crds = append(crds, o)
		} else {
			rest = append(rest, o)
		}
	}
	return crds, rest
}

// plural is "n one" or "n many".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
