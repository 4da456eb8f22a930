package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/confirm"
	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/registration/clientcsr"
	"github.com/corral-dev/corral/registration/common"
)

// ReasonDenied is the reason of CSRs denied by `corral deny`.
const ReasonDenied = "DeniedByHubAdmin"

// DenyOptions are the options of `corral deny`.
type DenyOptions struct {
	Out io.Writer
	Hub hubclient.Hub
	// Confirm is --yes and --dry-run: denying an accepted cluster revokes
	// its access, and its works stop being applied.
	Confirm  confirm.Options
	Clusters []string
}

// NewDenyOptions returns the defaults.
func NewDenyOptions(out io.Writer) *DenyOptions {
	return &DenyOptions{Out: out, Hub: hubclient.New(), Confirm: confirm.NewOptions()}
}

// NewCmdDeny returns `corral deny`.
func NewCmdDeny(out io.Writer) *cobra.Command {
	o := NewDenyOptions(out)
	cmd := &cobra.Command{
		Use:   "deny CLUSTER...",
		Short: "Deny clusters: revoke their access to the hub and deny their pending requests",
		Long: `Deny clusters: set spec.hubAcceptsClient to false, which makes the hub revoke
the cluster's permissions, and deny its pending certificate requests. Its
namespace and what is in it stay; delete the ManagedCluster to remove them.

Before it changes anything it shows what goes: each accepted cluster's
access to the hub, and its live ManifestWorks, which its agent then no
longer applies or updates (what they applied stays on the cluster). When
something would be removed it asks on a terminal; off a terminal it refuses
unless --yes is given. --dry-run shows the same and changes nothing.
Denying a cluster not accepted yet (only its join requests) asks nothing.`,
		Example: `  corral deny cluster1
  # Show what denying would revoke, and change nothing
  corral deny cluster1 --dry-run
  # In a script: go ahead without asking
  corral deny cluster1 cluster2 --yes`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Clusters = args
			return hubclient.Run(cmd.Context(), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the hub's flags, --yes and --dry-run.
func (o *DenyOptions) AddFlags(fs *pflag.FlagSet) {
	o.Hub.AddFlags(fs)
	o.Confirm.AddFlags(fs)
}

// Validate checks the cluster names, and takes each once.
func (o *DenyOptions) Validate() (err error) {
	o.Clusters, err = common.ClusterNames(o.Clusters)
	return err
}

// Complete builds the hub clients.
func (o *DenyOptions) Complete() error { return o.Hub.Complete() }

// Run checks every cluster exists, shows what denying them revokes,
// asks, then denies each.
func (o *DenyOptions) Run(ctx context.Context) error {
	var errs []error
	var clusters []*clusterv1.ManagedCluster
	for _, name := range o.Clusters {
		mc := &clusterv1.ManagedCluster{}
		if err := o.Hub.Client.Get(ctx, client.ObjectKey{Name: name}, mc); apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("there is no ManagedCluster %s on the hub", name))
		} else if err != nil {
			errs = append(errs, err)
		}
		clusters = append(clusters, mc)
	}
	if err := oneLine(errs); err != nil {
		return fmt.Errorf("nothing was changed: %w", err)
	}
	effect, err := o.effect(ctx, clusters)
	if err != nil {
		return err
	}
	if ok, err := o.Confirm.Ask(o.Out, effect); !ok || err != nil {
		return err
	}
	for _, mc := range clusters {
		patch := client.RawPatch(types.MergePatchType, []byte(`{"spec":{"hubAcceptsClient":false}}`))
		if err := o.Hub.Client.Patch(ctx, mc, patch); err != nil {
			return fmt.Errorf("setting hubAcceptsClient of %s: %w", mc.Name, err)
		}
		if err := o.denyPending(ctx, mc.Name); err != nil {
			return err
		}
		fmt.Fprintf(o.Out, "%s: denied\n", mc.Name)
	}
	return nil
}

// effect is what denying clusters does: an accepted cluster loses its
// access to the hub, and its live works are no longer applied; pending
// join requests are denied.
func (o *DenyOptions) effect(ctx context.Context, clusters []*clusterv1.ManagedCluster) (confirm.Effect, error) {
	e := confirm.Effect{Verb: "deny " + strings.Join(o.Clusters, ", ")}
	for _, mc := range clusters {
		pending, err := pendingCSRs(ctx, o.Hub.Kube, mc.Name)
		if err != nil {
			return e, err
		}
		for _, csr := range pending {
			e.Changes = append(e.Changes, fmt.Sprintf("%s: its pending request %s is denied", mc.Name, csr.Name))
		}
		if !mc.Spec.HubAcceptsClient {
			continue
		}
		e.Changes = append(e.Changes, fmt.Sprintf("%s: its namespace and what is in it stay on the hub", mc.Name))
		e.Removes = append(e.Removes, fmt.Sprintf("%s: its access to the hub is revoked (its agent may no longer read its works or renew its lease)", mc.Name))
		lines, err := liveWorks(ctx, o.Hub.Client, mc.Name, "is no longer applied or updated there (what it applied stays)")
		if err != nil {
			return e, err
		}
		e.Removes = append(e.Removes, lines...)
	}
	return e, nil
}

// liveWorks says, one line each, what becomes of each ManifestWork of
// cluster that is not being deleted.
func liveWorks(ctx context.Context, c client.Reader, cluster, becomes string) ([]string, error) {
	works := &workv1.ManifestWorkList{}
	if err := c.List(ctx, works, client.InNamespace(cluster)); err != nil && !meta.IsNoMatchError(err) {
		return nil, fmt.Errorf("listing the ManifestWorks of cluster %s: %w", cluster, err)
	}
	slices.SortFunc(works.Items, func(a, b workv1.ManifestWork) int { return strings.Compare(a.Name, b.Name) })
	var lines []string
	for _, w := range works.Items {
		if w.DeletionTimestamp.IsZero() {
			lines = append(lines, fmt.Sprintf("%s: ManifestWork %s %s", cluster, w.Name, becomes))
		}
	}
	return lines, nil
}

func (o *DenyOptions) denyPending(ctx context.Context, name string) error {
	pending, err := pendingCSRs(ctx, o.Hub.Kube, name)
	if err != nil {
		return err
	}
	for _, csr := range pending {
		clientcsr.Deny(csr, ReasonDenied, "denied by a hub admin with corral deny")
		if _, err := o.Hub.Kube.CertificatesV1().CertificateSigningRequests().UpdateApproval(ctx, csr.Name, csr, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("denying %s: %w", csr.Name, err)
		}
		fmt.Fprintf(o.Out, "%s: denied request %s\n", name, csr.Name)
	}
	return nil
}
