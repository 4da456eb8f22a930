package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// NewCmdPlacement returns `corral placement` and its verbs.
func NewCmdPlacement(out io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "placement",
		Short: "Create, show, delete placements, and explain how they choose their clusters",
	}
	cmd.AddCommand(NewCmdCreate(out), NewCmdGet(out), NewCmdDelete(out), NewCmdExplain(out))
	return cmd
}

// teamsDoc is where a team's user reads which rights each verb needs.
const teamsDoc = "docs/teams.md"

// Hints for a user who may read their namespace but not the clusters.
const (
	hintClusters = "for each cluster's reasons, ask for get/list on managedclusters and managedclustersets: see " + teamsDoc
	hintSets     = "to check that the cluster sets exist, ask for get on managedclustersets: see " + teamsDoc
)

// addNamespaceFlag registers -n/--namespace.
func addNamespaceFlag(fs *pflag.FlagSet, ns *string, usage string) {
	fs.StringVarP(ns, "namespace", "n", *ns, usage)
}

// decided lists the clusters the PlacementDecisions of the placement
// ns/name hold, sorted.
func decided(ctx context.Context, c client.Client, ns, name string) ([]string, error) {
	list := &clusterv1beta1.PlacementDecisionList{}
	if err := c.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{clusterv1beta1.PlacementLabel: name}); err != nil {
		return nil, fmt.Errorf("listing the PlacementDecisions of placement %s/%s: %w", ns, name, err)
	}
	return decisionClusters(list.Items), nil
}

// decisionClusters are the clusters decisions hold, sorted, each once.
func decisionClusters(decisions []clusterv1beta1.PlacementDecision) []string {
	out := []string{}
	for _, d := range decisions {
		for _, cd := range d.Status.Decisions {
			out = append(out, cd.ClusterName)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// clusterList is names for a table cell or a sentence: the first few and
// how many more.
func clusterList(names []string, most int) string {
	if len(names) <= most {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s, +%d more", strings.Join(names[:most], ", "), len(names)-most)
}
