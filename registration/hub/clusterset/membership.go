package clusterset

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Selector returns the label selector that picks set's clusters: for an
// ExclusiveClusterSetLabel set (the default type), the clusters whose
// cluster.open-cluster-management.io/clusterset label is the set's name;
// for a LabelSelector set, its labelSelector — an empty selector picks
// every cluster, a missing one none.
func Selector(set *clusterv1beta2.ManagedClusterSet) (labels.Selector, error) {
	sel := set.Spec.ClusterSelector
	switch sel.SelectorType {
	case "", clusterv1beta2.ExclusiveClusterSetLabel:
		return labels.SelectorFromSet(labels.Set{clusterv1beta2.ClusterSetLabel: set.Name}), nil
	case clusterv1beta2.LabelSelector:
		s, err := metav1.LabelSelectorAsSelector(sel.LabelSelector)
		if err != nil {
			return nil, fmt.Errorf("ManagedClusterSet %s has an invalid clusterSelector.labelSelector: %w", set.Name, err)
		}
		return s, nil
	}
	return nil, fmt.Errorf("ManagedClusterSet %s has selectorType %q: it must be %s or %s",
		set.Name, sel.SelectorType, clusterv1beta2.ExclusiveClusterSetLabel, clusterv1beta2.LabelSelector)
}

// Contains says whether cluster is in set.
func Contains(set *clusterv1beta2.ManagedClusterSet, cluster *clusterv1.ManagedCluster) (bool, error) {
	sel, err := Selector(set)
	if err != nil {
		return false, err
	}
	return sel.Matches(labels.Set(cluster.Labels)), nil
}

// Members lists the clusters in set, as c sees them.
func Members(ctx context.Context, c client.Reader, set *clusterv1beta2.ManagedClusterSet) ([]clusterv1.ManagedCluster, error) {
	sel, err := Selector(set)
	if err != nil {
		return nil, err
	}
	list := &clusterv1.ManagedClusterList{}
	if err := c.List(ctx, list, client.MatchingLabelsSelector{Selector: sel}); err != nil {
		return nil, fmt.Errorf("listing the clusters of ManagedClusterSet %s: %w", set.Name, err)
	}
	return list.Items, nil
}

// SetsOf returns the names of the sets among sets that cluster is in, in
// their order. A set whose selector is invalid holds no cluster.
func SetsOf(cluster *clusterv1.ManagedCluster, sets []clusterv1beta2.ManagedClusterSet) []string {
	var names []string
	for i := range sets {
		if in, err := Contains(&sets[i], cluster); err == nil && in {
			names = append(names, sets[i].Name)
		}
	}
	return names
}
