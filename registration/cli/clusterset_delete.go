package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/confirm"
	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/registration/common"
)

// ClusterSetDeleteOptions are the options of `corral clusterset delete`.
type ClusterSetDeleteOptions struct {
	Out io.Writer
	Hub hubclient.Hub
	// Confirm is --yes and --dry-run: the placements bound to the set lose
	// its clusters.
	Confirm confirm.Options
	Name    string
}

// NewClusterSetDeleteOptions returns the defaults.
func NewClusterSetDeleteOptions(out io.Writer) *ClusterSetDeleteOptions {
	return &ClusterSetDeleteOptions{Out: out, Hub: hubclient.New(), Confirm: confirm.NewOptions()}
}

// NewCmdClusterSetDelete returns `corral clusterset delete`.
func NewCmdClusterSetDelete(out io.Writer) *cobra.Command {
	o := NewClusterSetDeleteOptions(out)
	cmd := &cobra.Command{
		Use:   "delete SET",
		Short: "Delete a cluster set, saying first which placements lose its clusters",
		Long: `Delete a ManagedClusterSet. Before it deletes anything it shows what that
takes away: the namespaces whose bindings are left without the set (the
bindings stay, unbound), the placements there that choose its clusters now
and may no longer, the ManifestWorkReplicaSets and (Cluster)Propagations
whose objects leave those clusters, and the addons their install strategies placed there. When
something would be removed it asks on a terminal; off a terminal it refuses
unless --yes is given. --dry-run shows the same and deletes nothing.

The hub's own sets, default and global, cannot be deleted (the hub would
create them again at once). Clusters keep their labels.`,
		Example: `  corral clusterset delete prod
  # Show what deleting would remove, and delete nothing
  corral clusterset delete prod --dry-run
  # In a script: go ahead without asking
  corral clusterset delete prod --yes`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return hubclient.Run(cmd.Context(), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the hub's flags, --yes and --dry-run.
func (o *ClusterSetDeleteOptions) AddFlags(fs *pflag.FlagSet) {
	o.Hub.AddFlags(fs)
	o.Confirm.AddFlags(fs)
}

// Validate refuses the hub's own sets.
func (o *ClusterSetDeleteOptions) Validate() error {
	if isBuiltin(o.Name) {
		return fmt.Errorf("cluster set %s is kept by the hub and would be created again at once: nothing was deleted", o.Name)
	}
	return nil
}

// Complete builds the hub clients.
func (o *ClusterSetDeleteOptions) Complete() error { return o.Hub.Complete() }

// Run shows what deleting the set takes away, asks, and deletes it.
func (o *ClusterSetDeleteOptions) Run(ctx context.Context) error {
	set, err := getSet(ctx, o.Hub.Client, o.Name)
	if err != nil {
		return err
	}
	effect, err := o.effect(ctx, set)
	if err != nil {
		return err
	}
	if ok, err := o.Confirm.Ask(o.Out, effect); !ok || err != nil {
		return err
	}
	if err := o.Hub.Client.Delete(ctx, set, client.Preconditions{UID: &set.UID}); err != nil {
		return fmt.Errorf("deleting cluster set %s: %w", o.Name, err)
	}
	fmt.Fprintf(o.Out, "cluster set %s deleted\n", o.Name)
	if set.Spec.ClusterSelector.SelectorType != clusterv1beta2.LabelSelector {
		labelled := &clusterv1.ManagedClusterList{}
		err := o.Hub.Client.List(ctx, labelled, client.MatchingLabels{clusterv1beta2.ClusterSetLabel: o.Name})
		if err == nil && len(labelled.Items) > 0 {
			names := make([]string, len(labelled.Items))
			for i := range labelled.Items {
				names[i] = labelled.Items[i].Name
			}
			slices.Sort(names)
			fmt.Fprintf(o.Out, "%s: in no exclusive cluster set now (still labelled %s=%s); move them with 'corral clusterset set SET --clusters %s'\n",
				strings.Join(names, ", "), clusterv1beta2.ClusterSetLabel, o.Name, strings.Join(names, ","))
		}
	}
	return nil
}

// effect is what deleting set does: the bindings left without it, and
// what the placements that may no longer choose its clusters take away.
func (o *ClusterSetDeleteOptions) effect(ctx context.Context, set *clusterv1beta2.ManagedClusterSet) (confirm.Effect, error) {
	e := confirm.Effect{Verb: "delete cluster set " + o.Name}
	members, err := common.Members(ctx, o.Hub.Client, set)
	var invalid *common.InvalidSelectorError
	if err != nil && !errors.As(err, &invalid) {
		return e, fmt.Errorf("listing the clusters of set %s: %w", o.Name, err)
	}
	view, err := readPlacements(ctx, o.Hub.Client)
	if err != nil {
		// Neither its bindings nor the placements are known: ask.
		e.Changes = append(e.Changes, fmt.Sprintf("cluster set %s is deleted (it holds %s)", o.Name, plural(len(members), "cluster", "clusters")))
		e.Removes = append(e.Removes, fmt.Sprintf("its bindings, and what placements deliver to its clusters, may go (cannot tell which: %v)", err))
		return e, nil
	}
	e.Changes = append(e.Changes, fmt.Sprintf("cluster set %s is deleted (it holds %s)", o.Name, plural(len(members), "cluster", "clusters")))
	// A bound set was refused outright once: its bindings count as what
	// goes, so that a bound set is never deleted without a question.
	for _, ns := range bindingsOf(o.Name, view.bindings) {
		e.Removes = append(e.Removes, fmt.Sprintf("namespace %s: its binding %s is left without the set (it stays, unbound), so placements there may no longer choose the set's clusters", ns, o.Name))
	}
	others := slices.DeleteFunc(slices.Clone(view.sets), func(s clusterv1beta2.ManagedClusterSet) bool { return s.Name == o.Name })
	e.Removes = append(e.Removes, view.removes(view.losses(members, others, view.bindings))...)
	return e, nil
}

// clusterNamesOf are the clusters' names.
func clusterNamesOf(clusters []clusterv1.ManagedCluster) []string {
	names := make([]string, len(clusters))
	for i := range clusters {
		names[i] = clusters[i].Name
	}
	slices.Sort(names)
	return names
}
