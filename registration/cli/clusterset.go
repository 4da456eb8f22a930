package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/registration/hub/clusterset"
)

// NewCmdClusterSet returns `corral clusterset` and its verbs.
func NewCmdClusterSet(out io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "clusterset",
		Aliases: []string{"clustersets"},
		Short:   "Group clusters into ManagedClusterSets and bind the sets to namespaces",
		Long: `Group clusters into ManagedClusterSets and bind the sets to namespaces.

A set holds clusters either by its exclusive label — a cluster labelled
cluster.open-cluster-management.io/clusterset=SET is in SET and in no other
such set — or by a label selector over the clusters' labels. The hub keeps
two sets: 'default' (exclusive) and 'global' (every cluster). A binding of a
set in a namespace lets placements in that namespace choose its clusters.`,
	}
	cmd.AddCommand(
		NewCmdClusterSetCreate(out),
		NewCmdClusterSetDelete(out),
		NewCmdClusterSetSet(out),
		NewCmdClusterSetBind(out),
		NewCmdClusterSetUnbind(out),
		NewCmdClusterSetGet(out),
	)
	return cmd
}

// getSet gets the set name, or says in one line that it does not exist.
func getSet(ctx context.Context, c client.Reader, name string) (*clusterv1beta2.ManagedClusterSet, error) {
	set := &clusterv1beta2.ManagedClusterSet{}
	err := c.Get(ctx, client.ObjectKey{Name: name}, set)
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("there is no cluster set %s on the hub: create it with 'corral clusterset create %s'", name, name)
	}
	if err != nil {
		return nil, fmt.Errorf("getting cluster set %s: %w", name, err)
	}
	return set, nil
}

// bindingsOf returns the namespaces where set is bound, from bindings.
func bindingsOf(set string, bindings []clusterv1beta2.ManagedClusterSetBinding) []string {
	var namespaces []string
	for _, b := range bindings {
		if b.Spec.ClusterSet == set {
			namespaces = append(namespaces, b.Namespace)
		}
	}
	return namespaces
}

// describeSelector says which clusters a set selects, for a table.
func describeSelector(set *clusterv1beta2.ManagedClusterSet) string {
	sel := set.Spec.ClusterSelector
	if sel.SelectorType != clusterv1beta2.LabelSelector {
		return clusterv1beta2.ClusterSetLabel + "=" + set.Name
	}
	switch {
	case sel.LabelSelector == nil:
		return "<none>"
	case len(sel.LabelSelector.MatchLabels) == 0 && len(sel.LabelSelector.MatchExpressions) == 0:
		return "<all>"
	}
	return metav1.FormatLabelSelector(sel.LabelSelector)
}

// isBuiltin says whether the hub keeps the set name itself.
func isBuiltin(name string) bool {
	_, ok := clusterset.BuiltinSelector(name)
	return ok
}

func joinOrDash(items []string) string {
	if len(items) == 0 {
		return "-"
	}
	return strings.Join(items, ",")
}
