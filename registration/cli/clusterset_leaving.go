package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/corral-dev/corral/registration/common"
)

// placementView is what clusterset set reads once, before it moves any
// cluster, to say which placements lose one: the placements that choose a
// cluster now, the sets and the bindings.
type placementView struct {
	// choosing are the placements whose decisions hold each cluster.
	choosing map[string][]*clusterv1beta1.Placement
	sets     []clusterv1beta2.ManagedClusterSet
	bindings []clusterv1beta2.ManagedClusterSetBinding
}

// readPlacements reads the view, or nil when the user may not read all of
// it: saying which placements lose a cluster is a best effort.
func (o *ClusterSetSetOptions) readPlacements(ctx context.Context) *placementView {
	log := ctrl.LoggerFrom(ctx)
	decisions, err := o.Hub.Clusters.ClusterV1beta1().PlacementDecisions(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		log.V(1).Info("Cannot list placement decisions; not saying which placements lose the clusters", "err", err)
		return nil
	}
	sets, err := o.Hub.Clusters.ClusterV1beta2().ManagedClusterSets().List(ctx, metav1.ListOptions{})
	if err != nil {
		log.V(1).Info("Cannot list cluster sets; not saying which placements lose the clusters", "err", err)
		return nil
	}
	bindings, err := o.Hub.Clusters.ClusterV1beta2().ManagedClusterSetBindings(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		log.V(1).Info("Cannot list cluster set bindings; not saying which placements lose the clusters", "err", err)
		return nil
	}
	v := &placementView{choosing: map[string][]*clusterv1beta1.Placement{}, sets: sets.Items, bindings: bindings.Items}
	placements := map[string]*clusterv1beta1.Placement{}
	for _, d := range decisions.Items {
		key := d.Namespace + "/" + d.Labels[clusterv1beta1.PlacementLabel]
		p, ok := placements[key]
		if !ok {
			if p, err = o.Hub.Clusters.ClusterV1beta1().Placements(d.Namespace).Get(ctx, d.Labels[clusterv1beta1.PlacementLabel], metav1.GetOptions{}); err != nil {
				p = nil // gone, or not readable: it chooses nothing here
			}
			placements[key] = p
		}
		if p == nil {
			continue
		}
		for _, cd := range d.Status.Decisions {
			if !slices.Contains(v.choosing[cd.ClusterName], p) {
				v.choosing[cd.ClusterName] = append(v.choosing[cd.ClusterName], p)
			}
		}
	}
	return v
}

// dropping are the placements (namespace/name) that choose mc now and may
// no longer once it is in exclusive set to: none of its sets then is bound
// to their namespace and named by them. They re-decide without it, and
// what they deliver there is removed. A nil view knows of none.
func (v *placementView) dropping(mc *clusterv1.ManagedCluster, to string) []string {
	if v == nil || len(v.choosing[mc.Name]) == 0 {
		return nil
	}
	moved := mc.DeepCopy()
	if moved.Labels == nil {
		moved.Labels = map[string]string{}
	}
	moved.Labels[clusterv1beta2.ClusterSetLabel] = to
	after := common.SetsOf(moved, v.sets)
	var dropping []string
	for _, p := range v.choosing[mc.Name] {
		if !slices.ContainsFunc(after, func(set string) bool { return eligibleIn(set, p, v.bindings) }) {
			dropping = append(dropping, p.Namespace+"/"+p.Name)
		}
	}
	slices.Sort(dropping)
	return dropping
}

// eligibleIn says whether placement p may choose clusters of set: the set
// is bound to p's namespace and, if p names sets, among them.
func eligibleIn(set string, p *clusterv1beta1.Placement, bindings []clusterv1beta2.ManagedClusterSetBinding) bool {
	if len(p.Spec.ClusterSets) > 0 && !slices.Contains(p.Spec.ClusterSets, set) {
		return false
	}
	return slices.ContainsFunc(bindings, func(b clusterv1beta2.ManagedClusterSetBinding) bool {
		return b.Namespace == p.Namespace && b.Spec.ClusterSet == set &&
			meta.IsStatusConditionTrue(b.Status.Conditions, clusterv1beta2.ClusterSetBindingBoundType)
	})
}

// sayDropping tells what moving mc to set to does to the placements that
// choose it.
func (o *ClusterSetSetOptions) sayDropping(mc *clusterv1.ManagedCluster, to string, dropping []string) {
	var namespaces []string
	for _, key := range dropping {
		if ns, _, _ := strings.Cut(key, "/"); !slices.Contains(namespaces, ns) {
			namespaces = append(namespaces, ns)
		}
	}
	switch len(dropping) {
	case 0:
	case 1:
		fmt.Fprintf(o.Out, "%s: placement %s may no longer choose it (none of its sets is bound to namespace %s and named by the placement): "+
			"the placement drops it, and what it delivers there is removed; to keep it there, let the placement use set %s "+
			"(bind it in namespace %s, and list it in spec.clusterSets if the placement lists sets)\n",
			mc.Name, dropping[0], namespaces[0], to, namespaces[0])
	default:
		fmt.Fprintf(o.Out, "%s: placements %s may no longer choose it (none of its sets is bound to their namespace and named by them): "+
			"they drop it, and what they deliver there is removed; to keep it there, let them use set %s "+
			"(bind it in namespaces %s, and list it in spec.clusterSets where a placement lists sets)\n",
			mc.Name, strings.Join(dropping, ", "), to, strings.Join(namespaces, ", "))
	}
}
