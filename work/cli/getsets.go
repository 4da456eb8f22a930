package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/output"
)

// runSets lists and prints the namespace's ManifestWorkReplicaSets.
func (o *GetOptions) runSets(ctx context.Context) error {
	list := &workv1alpha1.ManifestWorkReplicaSetList{}
	where := "namespace " + o.Namespace
	if o.AllNamespaces {
		where = "any namespace"
	}
	if err := o.Hub.Client.List(ctx, list, client.InNamespace(o.Namespace)); err != nil {
		return fmt.Errorf("listing ManifestWorkReplicaSets in %s: %w", where, err)
	}
	list.Items = slices.DeleteFunc(list.Items, func(s workv1alpha1.ManifestWorkReplicaSet) bool { return o.Name != "" && s.Name != o.Name })
	if len(list.Items) == 0 && o.Name != "" && o.AllNamespaces {
		return fmt.Errorf("no ManifestWorkReplicaSet %s in any namespace (see corral work get -A)", o.Name)
	}
	if len(list.Items) == 0 && o.Name != "" {
		return fmt.Errorf("no ManifestWorkReplicaSet %s in namespace %s (see corral work get -n %s)", o.Name, o.Namespace, o.Namespace)
	}
	slices.SortFunc(list.Items, func(a, b workv1alpha1.ManifestWorkReplicaSet) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	if o.Output != "" {
		return output.Objects(o.Out, o.Output, workv1alpha1.GroupVersion.String(), "ManifestWorkReplicaSet", list.Items, o.Name != "" && !o.AllNamespaces)
	}
	printSets(o.Out, where, list.Items)
	if o.AllNamespaces {
		return nil
	}
	if len(list.Items) == 0 && o.isCluster(ctx, o.Namespace) {
		fmt.Fprintf(o.Out, "%s is a cluster: its ManifestWorks show with corral work get --clusters %s\n", o.Namespace, o.Namespace)
	}
	return nil
}

// isCluster says whether name is known to be a ManagedCluster's.
func (o *GetOptions) isCluster(ctx context.Context, name string) bool {
	return o.Hub.Client.Get(ctx, client.ObjectKey{Name: name}, &clusterv1.ManagedCluster{}) == nil
}

// printSets prints a line per placement of each set, with the set's
// conditions that are not True on its first line.
func printSets(out io.Writer, where string, items []workv1alpha1.ManifestWorkReplicaSet) {
	if len(items) == 0 {
		fmt.Fprintf(out, "No ManifestWorkReplicaSets in %s.\n", where)
		return
	}
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	defer func() { _ = w.Flush() }()
	fmt.Fprintln(w, "NAMESPACE\tSET\tPLACEMENT\tGROUPS\tWORKS\tAPPLIED\tAVAILABLE\tDEGRADED\tDETAIL")
	for _, set := range items {
		var detail []string
		for _, c := range set.Status.Conditions {
			if c.Status != metav1.ConditionTrue && c.Message != "" {
				detail = append(detail, c.Type+": "+c.Message)
			}
		}
		if len(set.Status.Conditions) == 0 {
			detail = append(detail, "not looked at by the hub's work addon yet")
		}
		summaries := set.Status.PlacementsSummary
		if len(summaries) == 0 {
			summaries = []workv1alpha1.PlacementSummary{{AvailableDecisionGroups: "-", Summary: set.Status.Summary}}
		}
		for i, p := range summaries {
			name, line := p.Name, ""
			if name == "" {
				name = "-"
			}
			if i == 0 {
				line = strings.Join(detail, "; ")
			}
			sum := p.Summary
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d/%d\t%d\t%d\t%d\t%s\n", set.Namespace, set.Name, name, output.OrDash(p.AvailableDecisionGroups),
				sum.Total, sum.DesiredTotal, sum.Applied, sum.Available, sum.Degraded, line)
		}
	}
}
