package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	propagationv1alpha1 "github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/registration/common"
)

// placementView is what the clusterset verbs read before they change
// anything, to say what a change of sets or bindings takes away from
// clusters: the placements that choose each cluster now, the sets and the
// bindings, and what those placements deliver (ManifestWorkReplicaSets,
// Propagations and ClusterPropagations, addons installed by their install
// strategies).
type placementView struct {
	// choosing are the placements whose decisions hold each cluster.
	choosing   map[string][]*clusterv1beta1.Placement
	sets       []clusterv1beta2.ManagedClusterSet
	bindings   []clusterv1beta2.ManagedClusterSetBinding
	deliveries []delivery
	addons     []addonv1alpha1.ClusterManagementAddOn
	// enabled holds "cluster/addon" for each ManagedClusterAddOn.
	enabled map[string]bool
}

// readPlacements reads the view. An error means the user may not read all
// of it: the verbs then say that what placements deliver may go, without
// saying what.
func readPlacements(ctx context.Context, c client.Reader) (*placementView, error) {
	decisions := &clusterv1beta1.PlacementDecisionList{}
	placements := &clusterv1beta1.PlacementList{}
	sets := &clusterv1beta2.ManagedClusterSetList{}
	bindings := &clusterv1beta2.ManagedClusterSetBindingList{}
	replicaSets := &workv1alpha1.ManifestWorkReplicaSetList{}
	props := &propagationv1alpha1.PropagationList{}
	cprops := &propagationv1alpha1.ClusterPropagationList{}
	cmas := &addonv1alpha1.ClusterManagementAddOnList{}
	mcas := &addonv1alpha1.ManagedClusterAddOnList{}
	for _, l := range []struct {
		list client.ObjectList
		what string
	}{
		{decisions, "placement decisions"}, {placements, "placements"}, {sets, "cluster sets"},
		{bindings, "cluster set bindings"}, {replicaSets, "ManifestWorkReplicaSets"},
		{props, "propagations"}, {cprops, "cluster propagations"},
		{cmas, "addons"}, {mcas, "enabled addons"},
	} {
		if err := c.List(ctx, l.list); err != nil && !meta.IsNoMatchError(err) {
			return nil, fmt.Errorf("listing %s: %w", l.what, err)
		}
	}
	v := &placementView{choosing: map[string][]*clusterv1beta1.Placement{}, sets: sets.Items, bindings: bindings.Items,
		deliveries: deliveriesOf(replicaSets.Items, props.Items, cprops.Items), addons: cmas.Items, enabled: map[string]bool{}}
	byKey := map[string]*clusterv1beta1.Placement{}
	for i := range placements.Items {
		p := &placements.Items[i]
		byKey[p.Namespace+"/"+p.Name] = p
	}
	for _, d := range decisions.Items {
		p := byKey[d.Namespace+"/"+d.Labels[clusterv1beta1.PlacementLabel]]
		if p == nil {
			continue // gone: it chooses nothing
		}
		for _, cd := range d.Status.Decisions {
			if !slices.Contains(v.choosing[cd.ClusterName], p) {
				v.choosing[cd.ClusterName] = append(v.choosing[cd.ClusterName], p)
			}
		}
	}
	for _, mca := range mcas.Items {
		v.enabled[mca.Namespace+"/"+mca.Name] = true
	}
	return v, nil
}

// losses are the placements that choose each of clusters now and may no
// longer once the clusters, sets and bindings are as given (the state
// after a verb): none of the cluster's sets then is bound to the
// placement's namespace and named by it. Clusters that lose none are left
// out.
func (v *placementView) losses(clusters []clusterv1.ManagedCluster, sets []clusterv1beta2.ManagedClusterSet,
	bindings []clusterv1beta2.ManagedClusterSetBinding) map[string][]*clusterv1beta1.Placement {
	lost := map[string][]*clusterv1beta1.Placement{}
	for i := range clusters {
		mc := &clusters[i]
		after := common.SetsOf(mc, sets)
		for _, p := range v.choosing[mc.Name] {
			if !slices.ContainsFunc(after, func(set string) bool { return eligibleIn(set, p, bindings) }) {
				lost[mc.Name] = append(lost[mc.Name], p)
			}
		}
		slices.SortFunc(lost[mc.Name], func(a, b *clusterv1beta1.Placement) int { return strings.Compare(key(a), key(b)) })
	}
	return lost
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

// removes says, one line each, what lost takes from each cluster: the
// placements that drop it, the deliveries (deliveriesOf) whose objects leave
// it, and the addons whose install strategy placed them there. A
// delivery or addon another of its placements still chooses the cluster
// for stays.
func (v *placementView) removes(lost map[string][]*clusterv1beta1.Placement) []string {
	clusters := make([]string, 0, len(lost))
	for c := range lost {
		clusters = append(clusters, c)
	}
	slices.Sort(clusters)
	var lines []string
	for _, c := range clusters {
		// still says whether placement ns/name chooses c after the change.
		still := func(ns, name string) bool {
			return slices.ContainsFunc(v.choosing[c], func(p *clusterv1beta1.Placement) bool {
				return p.Namespace == ns && p.Name == name && !slices.Contains(lost[c], p)
			})
		}
		for _, p := range lost[c] {
			lines = append(lines, fmt.Sprintf("%s: placement %s drops it", c, key(p)))
		}
		for _, d := range v.deliveries {
			if d.leaves(lost[c], still) {
				lines = append(lines, c+": "+d.what)
			}
		}
		for i := range v.addons {
			if by := addonPlacedBy(&v.addons[i], lost[c], still); by != "" && v.enabled[c+"/"+v.addons[i].Name] {
				lines = append(lines, fmt.Sprintf("%s: addon %s's agent is removed (its install strategy placed it there by placement %s)", c, v.addons[i].Name, by))
			}
		}
	}
	return lines
}

// delivery is what delivers objects to the clusters its placements
// choose, and so takes them away from a cluster they drop.
type delivery struct {
	// what says, after "CLUSTER: ", what leaving the cluster removes.
	what string
	// placements are the namespace/name of its placements.
	placements []types.NamespacedName
}

// deliveriesOf are the deliveries that remove what they delivered from
// a cluster they leave: every ManifestWorkReplicaSet, and the
// (Cluster)Propagations whose deletionPolicy is not Orphan (those leave
// the objects in place).
func deliveriesOf(rss []workv1alpha1.ManifestWorkReplicaSet, props []propagationv1alpha1.Propagation, cprops []propagationv1alpha1.ClusterPropagation) []delivery {
	var out []delivery
	for _, rs := range rss {
		d := delivery{what: fmt.Sprintf("ManifestWorkReplicaSet %s/%s's work leaves it, and what the work applied there is removed", rs.Namespace, rs.Name)}
		for _, ref := range rs.Spec.PlacementRefs {
			d.placements = append(d.placements, types.NamespacedName{Namespace: rs.Namespace, Name: ref.Name})
		}
		out = append(out, d)
	}
	for _, p := range props {
		if p.Spec.DeletionPolicy == propagationv1alpha1.DeletionPolicyOrphan {
			continue
		}
		d := delivery{what: fmt.Sprintf("Propagation %s/%s's objects leave it, and are removed there", p.Namespace, p.Name)}
		for _, ref := range p.Spec.PlacementRefs {
			d.placements = append(d.placements, types.NamespacedName{Namespace: p.Namespace, Name: ref.Name})
		}
		out = append(out, d)
	}
	for _, p := range cprops {
		if p.Spec.DeletionPolicy == propagationv1alpha1.DeletionPolicyOrphan {
			continue
		}
		d := delivery{what: fmt.Sprintf("ClusterPropagation %s's objects leave it, and are removed there", p.Name)}
		for _, ref := range p.Spec.PlacementRefs {
			d.placements = append(d.placements, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name})
		}
		out = append(out, d)
	}
	return out
}

// leaves says whether d delivers by one of lost and by none of its
// placements that still choose the cluster.
func (d delivery) leaves(lost []*clusterv1beta1.Placement, still func(ns, name string) bool) bool {
	by := false
	for _, ref := range d.placements {
		if still(ref.Namespace, ref.Name) {
			return false
		}
		by = by || slices.ContainsFunc(lost, func(p *clusterv1beta1.Placement) bool { return p.Namespace == ref.Namespace && p.Name == ref.Name })
	}
	return by
}

// addonPlacedBy is the placement of lost by which cma's install strategy
// places it on the cluster, when none of its placements still does; "" if
// none.
func addonPlacedBy(cma *addonv1alpha1.ClusterManagementAddOn, lost []*clusterv1beta1.Placement, still func(ns, name string) bool) string {
	if cma.Spec.InstallStrategy.Type != addonv1alpha1.AddonInstallStrategyPlacements {
		return ""
	}
	by := ""
	for _, ps := range cma.Spec.InstallStrategy.Placements {
		if still(ps.Namespace, ps.Name) {
			return ""
		}
		if by == "" && slices.ContainsFunc(lost, func(p *clusterv1beta1.Placement) bool { return p.Namespace == ps.Namespace && p.Name == ps.Name }) {
			by = ps.Namespace + "/" + ps.Name
		}
	}
	return by
}

// unreadable is the line a verb removes when it could not read what
// placements deliver to clusters.
func unreadable(clusters []string, err error) string {
	return fmt.Sprintf("%s: what placements deliver there may be removed (cannot tell which placements lose it: %v)", strings.Join(clusters, ", "), err)
}

// key is p's namespace/name.
func key(p *clusterv1beta1.Placement) string { return p.Namespace + "/" + p.Name }

// namespacesOf are the namespaces of the placements lost, sorted.
func namespacesOf(lost map[string][]*clusterv1beta1.Placement) []string {
	var namespaces []string
	for _, ps := range lost {
		for _, p := range ps {
			if !slices.Contains(namespaces, p.Namespace) {
				namespaces = append(namespaces, p.Namespace)
			}
		}
	}
	slices.Sort(namespaces)
	return namespaces
}
