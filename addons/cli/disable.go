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
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/addons/manager/addonowner"
	"github.com/corral-dev/corral/addons/manager/install"
	"github.com/corral-dev/corral/internal/confirm"
	"github.com/corral-dev/corral/internal/hubclient"
)

// DisableOptions are the options of `corral addon disable`.
type DisableOptions struct {
	Out io.Writer
	Hub hubclient.Hub
	// Confirm is --yes and --dry-run: disabling removes the addon's agent
	// from the clusters.
	Confirm confirm.Options
	Addons  []string
	target
}

// NewDisableOptions returns the defaults.
func NewDisableOptions(out io.Writer) *DisableOptions {
	return &DisableOptions{Out: out, Hub: hubclient.New(), Confirm: confirm.NewOptions()}
}

// NewCmdDisable returns `corral addon disable`.
func NewCmdDisable(out io.Writer) *cobra.Command {
	o := NewDisableOptions(out)
	cmd := &cobra.Command{
		Use:   "disable ADDON... (--clusters CLUSTER,... | --clusterset SET | --all-clusters)",
		Short: "Disable addons on clusters: delete their ManagedClusterAddOns",
		Long: `Disable addons on clusters: delete each addon's ManagedClusterAddOn from each
cluster's namespace on the hub. The addon's agent stops on that cluster and its
hub credentials are revoked. Safe to run again: a cluster the addon is not
enabled on is reported and skipped.

Before it disables anything it shows what stops: each addon's agent on each
cluster, and, for the work addon, every live ManifestWork on those clusters,
which is then no longer applied or updated there (what it applied stays).
When something would be removed it asks on a terminal; off a terminal it
refuses unless --yes is given. --dry-run shows the same and disables
nothing.

An addon whose install strategy (Placements) places it on a cluster is not
disabled there, since the hub would install it again at once: the command
says so and disables nothing. Take the cluster out of the placement, or set
the strategy to Manual first.`,
		Example: `  corral addon disable hello --clusters cluster1
  corral addon disable hello --all-clusters
  # Show what would stop, and disable nothing
  corral addon disable work --clusters cluster2 --dry-run
  # In a script: go ahead without asking
  corral addon disable hello --clusterset default --yes`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Addons = args
			return hubclient.Run(cmd.Context(), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the hub's flags and which clusters.
func (o *DisableOptions) AddFlags(fs *pflag.FlagSet) {
	o.Hub.AddFlags(fs)
	hubclient.AddClustersFlag(fs, &o.Clusters, "clusters to disable the addons on")
	fs.StringVar(&o.ClusterSet, "clusterset", "", "disable the addons on every cluster of this cluster set")
	fs.BoolVar(&o.AllClusters, "all-clusters", false, "disable the addons on every cluster they are enabled on")
	o.Confirm.AddFlags(fs)
}

// Validate checks names and the clusters flags.
func (o *DisableOptions) Validate() error {
	if err := validateAddonNames(o.Addons); err != nil {
		return err
	}
	return o.validateTarget(true)
}

// Complete builds the hub client.
func (o *DisableOptions) Complete() error { return o.Hub.Complete() }

// Run deletes the ManagedClusterAddOns. It first checks every addon, and
// deletes nothing if one would only be installed again by its install
// strategy; then it shows what stops, and asks.
func (o *DisableOptions) Run(ctx context.Context) error {
	clusters, err := o.clusterNames(ctx)
	if err != nil {
		return err
	}
	on := make(map[string][]string, len(o.Addons))
	for _, addon := range o.Addons {
		on[addon] = clusters
		if o.AllClusters {
			if on[addon], err = enabledOn(ctx, o.Hub.Client, addon); err != nil {
				return err
			}
		}
		if err := o.notReinstalled(ctx, addon, on[addon]); err != nil {
			return err
		}
	}
	effect, err := o.effect(ctx, on)
	if err != nil {
		return err
	}
	if ok, err := o.Confirm.Ask(o.Out, effect); !ok || err != nil {
		return err
	}
	log := ctrl.LoggerFrom(ctx)
	for _, addon := range o.Addons {
		if o.AllClusters && len(on[addon]) == 0 {
			fmt.Fprintf(o.Out, "addon %s is not enabled on any cluster\n", addon)
		}
		for _, cluster := range on[addon] {
			mca := &addonv1alpha1.ManagedClusterAddOn{}
			mca.Namespace, mca.Name = cluster, addon
			err := o.Hub.Client.Delete(ctx, mca)
			switch {
			case apierrors.IsNotFound(err):
				fmt.Fprintf(o.Out, "addon %s is not enabled on cluster %s\n", addon, cluster)
			case err != nil:
				return fmt.Errorf("disabling addon %s on cluster %s: %w", addon, cluster, err)
			default:
				log.V(1).Info("Disabled addon", "addon", addon, "cluster", cluster)
				fmt.Fprintf(o.Out, "addon %s disabled on cluster %s\n", addon, cluster)
			}
		}
	}
	return nil
}

// workAddon is the work addon's name (work.AddonName): disabling it
// stops every ManifestWork on the cluster.
const workAddon = "work"

// effect is what disabling the addons on the clusters in on stops: each
// enabled addon's agent and, for the work addon, the cluster's live
// ManifestWorks.
func (o *DisableOptions) effect(ctx context.Context, on map[string][]string) (confirm.Effect, error) {
	e := confirm.Effect{Verb: "disable addon " + strings.Join(o.Addons, ", ")}
	var where []string
	for _, addon := range o.Addons {
		for _, cluster := range on[addon] {
			mca := &addonv1alpha1.ManagedClusterAddOn{}
			err := o.Hub.Client.Get(ctx, client.ObjectKey{Namespace: cluster, Name: addon}, mca)
			switch {
			case apierrors.IsNotFound(err):
				continue
			case err != nil:
				return e, fmt.Errorf("reading addon %s on cluster %s: %w", addon, cluster, err)
			}
			if !slices.Contains(where, cluster) {
				where = append(where, cluster)
			}
			e.Removes = append(e.Removes, fmt.Sprintf("%s: addon %s's agent is removed and its hub credentials revoked", cluster, addon))
			if addon != workAddon {
				continue
			}
			works := &workv1.ManifestWorkList{}
			if err := o.Hub.Client.List(ctx, works, client.InNamespace(cluster)); err != nil {
				return e, fmt.Errorf("listing the ManifestWorks of cluster %s: %w", cluster, err)
			}
			slices.SortFunc(works.Items, func(a, b workv1.ManifestWork) int { return strings.Compare(a.Name, b.Name) })
			for _, w := range works.Items {
				if w.DeletionTimestamp.IsZero() {
					e.Removes = append(e.Removes, fmt.Sprintf("%s: ManifestWork %s is no longer applied or updated there (what it applied stays)", cluster, w.Name))
				}
			}
		}
	}
	if len(where) > 0 {
		e.Verb += " on cluster " + strings.Join(where, ", ")
	}
	return e, nil
}

// notReinstalled refuses to disable addon on clusters its install strategy
// places it on: the hub would install it there again at once.
func (o *DisableOptions) notReinstalled(ctx context.Context, addon string, clusters []string) error {
	cma := &addonv1alpha1.ClusterManagementAddOn{}
	err := o.Hub.Client.Get(ctx, client.ObjectKey{Name: addon}, cma)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading addon %s: %w", addon, err)
	}
	// As the hub's install strategy: it installs nothing for an addon being
	// deleted, running its own lifecycle, or installed by hand, nor on a
	// cluster being deleted.
	if cma.DeletionTimestamp != nil || !addonowner.ManagedByAddonManager(cma) ||
		cma.Spec.InstallStrategy.Type != addonv1alpha1.AddonInstallStrategyPlacements {
		return nil
	}
	var placed, by []string
	for _, p := range cma.Spec.InstallStrategy.Placements {
		decided, err := install.PlacementClusters(ctx, o.Hub.Client, p.PlacementRef)
		if err != nil {
			return err
		}
		hit := false
		for _, c := range clusters {
			if !decided.Has(c) {
				continue
			}
			leaving, err := install.BeingDeleted(ctx, o.Hub.Client, c)
			if err != nil {
				return fmt.Errorf("reading cluster %s: %w", c, err)
			}
			if leaving {
				continue
			}
			hit = true
			if !slices.Contains(placed, c) {
				placed = append(placed, c)
			}
		}
		if hit {
			by = append(by, p.Namespace+"/"+p.Name)
		}
	}
	if len(placed) == 0 {
		return nil
	}
	placements := "placement"
	if len(by) > 1 {
		placements += "s"
	}
	return fmt.Errorf("addon %s is installed on %s by its install strategy (%s %s), which would install it again: "+
		"take the clusters out of the placement, or stop the strategy (for every cluster) first with "+
		"kubectl patch clustermanagementaddon %s --type merge -p '{\"spec\":{\"installStrategy\":{\"type\":\"Manual\"}}}'",
		addon, strings.Join(placed, ", "), placements, strings.Join(by, ", "), addon)
}

// clusterNames are the clusters --clusters or --clusterset name; none for
// --all-clusters, which is resolved per addon.
func (o *DisableOptions) clusterNames(ctx context.Context) ([]string, error) {
	if o.AllClusters {
		return nil, nil
	}
	if o.ClusterSet == "" {
		// Named clusters need not exist any more: their addons may linger.
		return o.Clusters, nil
	}
	members, err := o.resolve(ctx, o.Hub.Client)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(members))
	for i := range members {
		names[i] = members[i].Name
	}
	return names, nil
}

// enabledOn lists the clusters addon is enabled on, sorted.
func enabledOn(ctx context.Context, c client.Reader, addon string) ([]string, error) {
	list := &addonv1alpha1.ManagedClusterAddOnList{}
	if err := c.List(ctx, list); err != nil {
		return nil, fmt.Errorf("listing enabled addons: %w", err)
	}
	var out []string
	for _, mca := range list.Items {
		if mca.Name == addon {
			out = append(out, mca.Namespace)
		}
	}
	slices.SortFunc(out, strings.Compare)
	return out, nil
}
