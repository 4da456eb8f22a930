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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"

	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/registration/common"
)

// ClusterSetSetOptions are the options of `corral clusterset set`.
type ClusterSetSetOptions struct {
	Out io.Writer
	Hub hubclient.Hub
	// Name is the exclusive set the clusters move into.
	Name     string
	Clusters []string
}

// NewClusterSetSetOptions returns the defaults.
func NewClusterSetSetOptions(out io.Writer) *ClusterSetSetOptions {
	return &ClusterSetSetOptions{Out: out, Hub: hubclient.New()}
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

For each cluster moved it names the placements that choose it now and may
no longer (none of its new sets is bound to their namespace and named by
them): they drop it, and what they deliver there is removed.`,
		Example: "  corral clusterset set prod --clusters cluster1,cluster2",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return hubclient.Run(cmd.Context(), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the hub's flags and --clusters.
func (o *ClusterSetSetOptions) AddFlags(fs *pflag.FlagSet) {
	o.Hub.AddFlags(fs)
	fs.StringSliceVar(&o.Clusters, "clusters", o.Clusters, "the clusters to put in the set (required)")
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

// Run checks the set and every cluster, then labels the clusters that are
// not in the set yet.
func (o *ClusterSetSetOptions) Run(ctx context.Context) error {
	set, err := getSet(ctx, o.Hub.Clusters, o.Name)
	if err != nil {
		return err
	}
	if set.Spec.ClusterSelector.SelectorType == clusterv1beta2.LabelSelector {
		return fmt.Errorf("cluster set %s holds the clusters matching %s, not a label of its own: change the clusters' labels instead; nothing was changed",
			o.Name, describeSelector(set))
	}
	var found []*clusterv1.ManagedCluster
	var missing []string
	for _, name := range o.Clusters {
		mc, err := o.Hub.Clusters.ClusterV1().ManagedClusters().Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			missing = append(missing, name)
		case err != nil:
			return fmt.Errorf("getting cluster %s: %w; nothing was changed", name, err)
		default:
			found = append(found, mc)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("no such cluster on the hub: %s; nothing was changed", strings.Join(missing, ", "))
	}
	var errs []error
	view := o.readPlacements(ctx)
	for _, mc := range found {
		if err := o.label(ctx, mc, view); err != nil {
			errs = append(errs, err)
		}
	}
	return oneLine(errs)
}

// label puts mc in the set, saying what changed, and which placements of
// view lose it.
func (o *ClusterSetSetOptions) label(ctx context.Context, mc *clusterv1.ManagedCluster, view *placementView) error {
	from := mc.Labels[clusterv1beta2.ClusterSetLabel]
	if from == o.Name {
		fmt.Fprintf(o.Out, "%s: already in cluster set %s\n", mc.Name, o.Name)
		return nil
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"labels": map[string]string{clusterv1beta2.ClusterSetLabel: o.Name},
	}})
	if err != nil {
		return err
	}
	dropping := view.dropping(mc, o.Name)
	if _, err := o.Hub.Clusters.ClusterV1().ManagedClusters().Patch(ctx, mc.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("putting %s in cluster set %s: %w", mc.Name, o.Name, err)
	}
	if from == "" {
		fmt.Fprintf(o.Out, "%s: put in cluster set %s\n", mc.Name, o.Name)
	} else {
		fmt.Fprintf(o.Out, "%s: moved from cluster set %s to %s\n", mc.Name, from, o.Name)
	}
	o.sayDropping(mc, o.Name, dropping)
	return nil
}
