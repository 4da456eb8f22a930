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

	"github.com/corral-dev/corral/registration/hub/clusterset"
)

// droppingPlacements are the placements (namespace/name) that choose mc
// now and may no longer once it is in exclusive set to: none of its sets
// then is bound to their namespace and named by them. They re-decide
// without it, and what they deliver there is removed. It is a best effort:
// what the user may not read is left out.
func (o *ClusterSetSetOptions) droppingPlacements(ctx context.Context, mc *clusterv1.ManagedCluster, to string) []string {
	log := ctrl.LoggerFrom(ctx)
	decisions, err := o.clusters.ClusterV1beta1().PlacementDecisions(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		log.V(1).Info("Cannot list placement decisions; not saying which placements drop the cluster", "err", err)
		return nil
	}
	choosing := map[string]bool{}
	for _, d := range decisions.Items {
		if slices.ContainsFunc(d.Status.Decisions, func(cd clusterv1beta1.ClusterDecision) bool { return cd.ClusterName == mc.Name }) {
			choosing[d.Namespace+"/"+d.Labels[clusterv1beta1.PlacementLabel]] = true
		}
	}
	if len(choosing) == 0 {
		return nil
	}
	sets, err := o.clusters.ClusterV1beta2().ManagedClusterSets().List(ctx, metav1.ListOptions{})
	if err != nil {
		log.V(1).Info("Cannot list cluster sets; not saying which placements drop the cluster", "err", err)
		return nil
	}
	bindings, err := o.clusters.ClusterV1beta2().ManagedClusterSetBindings(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		log.V(1).Info("Cannot list cluster set bindings; not saying which placements drop the cluster", "err", err)
		return nil
	}
	moved := mc.DeepCopy()
	if moved.Labels == nil {
		moved.Labels = map[string]string{}
	}
	moved.Labels[clusterv1beta2.ClusterSetLabel] = to
	after := clusterset.SetsOf(moved, sets.Items)
	var dropping []string
	for key := range choosing {
		ns, name, _ := strings.Cut(key, "/")
		p, err := o.clusters.ClusterV1beta1().Placements(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			continue
		}
		if !slices.ContainsFunc(after, func(set string) bool { return eligibleIn(set, p, bindings.Items) }) {
			dropping = append(dropping, key)
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
