package cli

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/output"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// showCluster prints what one cluster receives of the propagation: the
// objects of its ManifestWorks, exactly as the work agent applies them
// (each cluster's own, with its share of divided replicas and its
// overrides), with -o yaml|json; else a summary: the revision it has,
// the overrides and shares, and the objects.
func (o *GetOptions) showCluster(ctx context.Context, cluster string) error {
	p, err := o.target.get(ctx, o.Hub.Client)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(p.Status.Clusters, func(c v1alpha1.ClusterStatus) bool { return c.Cluster == cluster })
	if i < 0 {
		names := make([]string, 0, len(p.Status.Clusters))
		for _, c := range p.Status.Clusters {
			names = append(names, c.Cluster)
		}
		return fmt.Errorf("the placements of %s do not select cluster %s (they select: %s): corral placement explain tells why", o.target, cluster, output.OrDash(strings.Join(names, ", ")))
	}
	cs := p.Status.Clusters[i]
	objs, err := o.received(ctx, cluster)
	if err != nil {
		return err
	}
	if len(objs) == 0 {
		why := clusterMessage(cs)
		if why == "" {
			why = "the rollout has not reached it"
		}
		return fmt.Errorf("cluster %s has nothing of %s yet: %s", cluster, o.target, why)
	}
	if o.Output != "" {
		items := make([]any, len(objs))
		for i := range objs {
			items[i] = objs[i].Object
		}
		return output.Print(o.Out, o.Output, map[string]any{"apiVersion": "v1", "kind": "List", "items": items}, nil)
	}
	fmt.Fprintf(o.Out, "Cluster %s has revision %d of %s (delivered: %d).\n", cluster, cs.Revision, o.target, p.Status.DeliveredRevision)
	if msg := clusterMessage(cs); msg != "" {
		fmt.Fprintf(o.Out, "%s\n", msg)
	}
	fmt.Fprintf(o.Out, "Overrides applied: %s\n", output.OrDash(strings.Join(cs.Overrides, "; ")))
	if len(cs.Replicas) > 0 {
		shares := make([]string, 0, len(cs.Replicas))
		for _, s := range cs.Replicas {
			shares = append(shares, fmt.Sprintf("%s %s: %d", strings.ToLower(s.Kind), s.Name, s.Replicas))
		}
		fmt.Fprintf(o.Out, "Replicas (divided): %s\n", strings.Join(shares, ", "))
	}
	printDrift(o.Out, []v1alpha1.ClusterStatus{cs})
	fmt.Fprintln(o.Out)
	tw := tabwriter.NewWriter(o.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "OBJECT\tAPIVERSION")
	for _, obj := range objs {
		fmt.Fprintf(tw, "%s\t%s\n", kindName(obj.GetKind(), obj.GetNamespace(), obj.GetName()), obj.GetAPIVersion())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "\n-o yaml prints the objects as cluster %s receives them.\n", cluster)
	return nil
}

// received are the objects of the propagation's works in the cluster's
// namespace, in delivery order (by part, then as each work holds them).
func (o *GetOptions) received(ctx context.Context, cluster string) ([]*unstructured.Unstructured, error) {
	works := &workv1.ManifestWorkList{}
	err := o.Hub.Client.List(ctx, works, client.InNamespace(cluster), o.target.worksSelector())
	switch {
	case apierrors.IsForbidden(err):
		return nil, fmt.Errorf("reading what cluster %s receives needs list on manifestworks in namespace %s: see docs/teams.md", cluster, cluster)
	case err != nil:
		return nil, fmt.Errorf("listing the ManifestWorks of %s on cluster %s: %w", o.target, cluster, err)
	}
	slices.SortFunc(works.Items, func(a, b workv1.ManifestWork) int { return cmp.Compare(partOf(a.Name), partOf(b.Name)) })
	var out []*unstructured.Unstructured
	for _, w := range works.Items {
		for _, m := range w.Spec.Workload.Manifests {
			obj := &unstructured.Unstructured{}
			if err := obj.UnmarshalJSON(m.Raw); err != nil {
				return nil, fmt.Errorf("ManifestWork %s/%s holds an object that does not decode: %w", w.Namespace, w.Name, err)
			}
			out = append(out, obj)
		}
	}
	return out, nil
}

// partOf is the part number a work's name ends in (-N).
func partOf(name string) int {
	i := strings.LastIndex(name, "-")
	n, _ := strconv.Atoi(name[i+1:])
	return n
}
