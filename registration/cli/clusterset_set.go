package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/confirm"
	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/registration/common"
)

// ClusterSetSetOptions are the options of `corral clusterset set`.
type ClusterSetSetOptions struct {
	Out io.Writer
	Hub hubclient.Hub
	// Confirm is --yes and --dry-run: moving a cluster may take away what
	// placements deliver to it.
	Confirm confirm.Options
	// Name is the exclusive set the clusters move into.
	Name     string
	Clusters []string
}

// NewClusterSetSetOptions returns the defaults.
func NewClusterSetSetOptions(out io.Writer) *ClusterSetSetOptions {
	return &ClusterSetSetOptions{Out: out, Hub: hubclient.New(), Confirm: confirm.NewOptions()}
}

// NewCmdClusterSetSet returns `corral clusterset set`.
func NewCmdClusterSetSet(out io.Writer) *cobra.Command {
	o := NewClusterSetSetOptions(out)
	cmd := &cobra.Command{
		Use:   "set SET --clusters CLUSTER,...",
		Short: "Put clusters in an exclusive cluster set, moving them out of their current one",
		Long: `Put clusters in an ExclusiveClusterSetLabel set by labelling them
cluster.open-cluster-management.io/clusterset=SET. A cluster is in one such
set at a time, so this moves it out of the set it was in. The set and every
cluster are checked before anything changes. LabelSelector sets are not
set this way: label the clusters so that the set's selector matches them.

Before it labels anything it shows what the move takes away from each
cluster: the placements that choose it now and may no longer (none of its
sets then is bound to their namespace and named by them), the
ManifestWorkReplicaSets and (Cluster)Propagations whose objects leave it
with them, and the addons
their install strategies placed there. When something would be removed it
asks on a terminal; off a terminal it refuses unless --yes is given.
--dry-run shows the same and changes nothing. A move that removes nothing
is not asked about.`,
		Example: `  # Move two clusters, answering the question if anything would be removed
  corral clusterset set prod --clusters cluster1,cluster2
  # Show what moving would remove, and change nothing
  corral clusterset set prod --clusters cluster1 --dry-run
  # In a script: go ahead without asking
  corral clusterset set prod --clusters cluster1 --yes`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return hubclient.Run(cmd.Context(), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the hub's flags, --clusters, --yes and --dry-run.
func (o *ClusterSetSetOptions) AddFlags(fs *pflag.FlagSet) {
	o.Hub.AddFlags(fs)
	hubclient.AddClustersFlag(fs, &o.Clusters, "the clusters to put in the set (required)")
	o.Confirm.AddFlags(fs)
}

// Validate checks the set and cluster names.
func (o *ClusterSetSetOptions) Validate() (err error) {
	if err := common.ValidateClusterSetName(o.Name); err != nil {
		return err
	}
	if len(o.Clusters) == 0 {
		return fmt.Errorf("name the clusters to put in cluster set %s with --clusters (e.g. --clusters cluster1,cluster2)", o.Name)
	}
	o.Clusters, err = common.ClusterNames(o.Clusters)
	return err
}

// Complete builds the hub clients.
func (o *ClusterSetSetOptions) Complete() error { return o.Hub.Complete() }

// Run checks the set and every cluster, shows what moving them takes
// away, asks, then labels the clusters that are not in the set yet.
func (o *ClusterSetSetOptions) Run(ctx context.Context) error {
	set, err := getSet(ctx, o.Hub.Client, o.Name)
	if err != nil {
		return err
	}
	if set.Spec.ClusterSelector.SelectorType == clusterv1beta2.LabelSelector {
		return fmt.Errorf("cluster set %s holds the clusters matching %s, not a label of its own: change the clusters' labels instead; nothing was changed",
			o.Name, describeSelector(set))
	}
	var found []clusterv1.ManagedCluster
	var missing []string
	for _, name := range o.Clusters {
		mc := &clusterv1.ManagedCluster{}
		err := o.Hub.Client.Get(ctx, client.ObjectKey{Name: name}, mc)
		switch {
		case apierrors.IsNotFound(err):
			missing = append(missing, name)
		case err != nil:
			return fmt.Errorf("getting cluster %s: %w; nothing was changed", name, err)
		default:
			found = append(found, *mc)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("no such cluster on the hub: %s; nothing was changed", strings.Join(missing, ", "))
	}
	effect, moving := o.effect(ctx, found)
	if ok, err := o.Confirm.Ask(o.Out, effect); !ok || err != nil {
		return err
	}
	for _, mc := range found {
		if mc.Labels[clusterv1beta2.ClusterSetLabel] == o.Name {
			fmt.Fprintf(o.Out, "%s: already in cluster set %s\n", mc.Name, o.Name)
		}
	}
	var errs []error
	for i := range moving {
		if err := o.label(ctx, &moving[i]); err != nil {
			errs = append(errs, err)
		}
	}
	return oneLine(errs)
}

// effect is what moving clusters into the set does, and the clusters that
// move (those not in it already).
func (o *ClusterSetSetOptions) effect(ctx context.Context, clusters []clusterv1.ManagedCluster) (confirm.Effect, []clusterv1.ManagedCluster) {
	e := confirm.Effect{}
	var moving, after []clusterv1.ManagedCluster
	var names, leaving []string
	for _, mc := range clusters {
		from := mc.Labels[clusterv1beta2.ClusterSetLabel]
		switch from {
		case o.Name:
			continue
		case "":
			e.Changes = append(e.Changes, fmt.Sprintf("%s: is put in cluster set %s", mc.Name, o.Name))
		default:
			e.Changes = append(e.Changes, fmt.Sprintf("%s: moves from cluster set %s to %s", mc.Name, from, o.Name))
			leaving = append(leaving, mc.Name)
		}
		moving = append(moving, mc)
		moved := mc.DeepCopy()
		if moved.Labels == nil {
			moved.Labels = map[string]string{}
		}
		moved.Labels[clusterv1beta2.ClusterSetLabel] = o.Name
		after = append(after, *moved)
		names = append(names, mc.Name)
	}
	e.Verb = fmt.Sprintf("move %s to cluster set %s", strings.Join(names, ", "), o.Name)
	if len(moving) == 0 {
		return e, nil
	}
	view, err := readPlacements(ctx, o.Hub.Client)
	if err != nil {
		// A cluster put in a set from none loses no set, so no placement.
		if len(leaving) > 0 {
			e.Removes = append(e.Removes, unreadable(leaving, err))
		}
		return e, moving
	}
	lost := view.losses(after, view.sets, view.bindings)
	if namespaces := namespacesOf(lost); len(namespaces) > 0 {
		e.Changes = append(e.Changes, fmt.Sprintf("to keep a cluster in a placement that drops it, let the placement use set %s "+
			"(bind it in namespace %s, and list it in spec.clusterSets if the placement lists sets)", o.Name, strings.Join(namespaces, ", ")))
	}
	e.Removes = view.removes(lost)
	return e, moving
}

// label puts mc in the set, saying what changed.
func (o *ClusterSetSetOptions) label(ctx context.Context, mc *clusterv1.ManagedCluster) error {
	from := mc.Labels[clusterv1beta2.ClusterSetLabel]
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"labels": map[string]string{clusterv1beta2.ClusterSetLabel: o.Name},
	}})
	if err != nil {
		return err
	}
	if err := o.Hub.Client.Patch(ctx, mc, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return fmt.Errorf("putting %s in cluster set %s: %w", mc.Name, o.Name, err)
	}
	if from == "" {
		fmt.Fprintf(o.Out, "%s: put in cluster set %s\n", mc.Name, o.Name)
	} else {
		fmt.Fprintf(o.Out, "%s: moved from cluster set %s to %s\n", mc.Name, from, o.Name)
	}
	return nil
}
