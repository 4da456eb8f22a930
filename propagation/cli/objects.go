package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/output"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// worksSelector selects the ManifestWorks propagation/hub/distribute
// writes for r, in every cluster's namespace.
func (r ref) worksSelector() client.MatchingLabelsSelector {
	name, _ := labels.NewRequirement(v1alpha1.LabelPropagation, selection.Equals, []string{r.Name})
	ns, _ := labels.NewRequirement(v1alpha1.LabelPropagationNamespace, selection.DoesNotExist, nil)
	if !r.Cluster {
		ns, _ = labels.NewRequirement(v1alpha1.LabelPropagationNamespace, selection.Equals, []string{r.Namespace})
	}
	return client.MatchingLabelsSelector{Selector: labels.NewSelector().Add(*name, *ns)}
}

// objectRow is one delivered object on one cluster, as its work reports it.
type objectRow struct {
	cluster, object, applied, available, detail string
}

// printObjects prints, per cluster and per object, what the works of r
// report: applied, available, and what is wrong. A user who may not list
// ManifestWorks gets a note instead.
func printObjects(ctx context.Context, out io.Writer, c client.Client, r ref) error {
	works := &workv1.ManifestWorkList{}
	err := c.List(ctx, works, r.worksSelector())
	switch {
	case apierrors.IsForbidden(err):
		fmt.Fprintln(out, "\nnote: per-object status needs list on manifestworks in the clusters' namespaces: see docs/teams.md")
		return nil
	case err != nil:
		return fmt.Errorf("listing the ManifestWorks of %s: %w", r, err)
	}
	var rows []objectRow
	for _, w := range works.Items {
		for _, m := range w.Status.ResourceStatus.Manifests {
			rows = append(rows, objectRow{cluster: w.Namespace, object: objectName(m.ResourceMeta),
				applied: condStatus(m.Conditions, workv1.ManifestApplied), available: condStatus(m.Conditions, workv1.ManifestAvailable),
				detail: objectProblems(m.Conditions)})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	slices.SortStableFunc(rows, func(a, b objectRow) int { return strings.Compare(a.cluster, b.cluster) })
	fmt.Fprintln(out)
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CLUSTER\tOBJECT\tAPPLIED\tAVAILABLE\tMESSAGE")
	for _, row := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", row.cluster, row.object, row.applied, row.available, output.OrDash(row.detail))
	}
	return tw.Flush()
}

func objectName(r workv1.ManifestResourceMeta) string {
	kind := r.Kind
	if kind == "" {
		kind = r.Resource
	}
	return kindName(kind, r.Namespace, r.Name)
}

// kindName is how the verbs name an object: "deployment shop/web".
func kindName(kind, namespace, name string) string {
	if namespace != "" {
		name = namespace + "/" + name
	}
	return strings.ToLower(kind) + " " + name
}

// condStatus is a condition's status, or "-" before it is reported.
func condStatus(conds []metav1.Condition, t string) string {
	if c := meta.FindStatusCondition(conds, t); c != nil {
		return string(c.Status)
	}
	return "-"
}

// objectProblems are the messages of an object's Applied and Available
// conditions that are not True, and of Degraded when True.
func objectProblems(conds []metav1.Condition) string {
	var out []string
	for _, c := range conds {
		good := c.Type == workv1.ManifestApplied || c.Type == workv1.ManifestAvailable
		wrong := good && c.Status != metav1.ConditionTrue || c.Type == workv1.ManifestDegraded && c.Status == metav1.ConditionTrue
		if wrong && c.Message != "" {
			out = append(out, c.Type+": "+c.Message)
		}
	}
	return strings.Join(out, "; ")
}
