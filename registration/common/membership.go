package common

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
			return nil, &InvalidSelectorError{fmt.Errorf("ManagedClusterSet %s has an invalid clusterSelector.labelSelector: %w", set.Name, err)}
		}
		return s, nil
	}
	return nil, &InvalidSelectorError{fmt.Errorf("ManagedClusterSet %s has selectorType %q: it must be %s or %s",
		set.Name, sel.SelectorType, clusterv1beta2.ExclusiveClusterSetLabel, clusterv1beta2.LabelSelector)}
}

// InvalidSelectorError is the error of a set whose clusterSelector cannot
// be evaluated: such a set holds no cluster until it is fixed, which
// retrying will not do.
type InvalidSelectorError struct{ err error }

func (e *InvalidSelectorError) Error() string { return e.err.Error() }
func (e *InvalidSelectorError) Unwrap() error { return e.err }

// Contains says whether cluster is in set.
func Contains(set *clusterv1beta2.ManagedClusterSet, cluster *clusterv1.ManagedCluster) (bool, error) {
	sel, err := Selector(set)
	if err != nil {
		return false, err
	}
	return sel.Matches(labels.Set(cluster.Labels)), nil
}

// Members lists the clusters in set, as c sees them, with opts added to
// the List: client.UnsafeDisableDeepCopy spares a caller that only reads
// them a copy of every cluster in a cache. A set whose selector is invalid
// fails with an *InvalidSelectorError.
func Members(ctx context.Context, c client.Reader, set *clusterv1beta2.ManagedClusterSet, opts ...client.ListOption) ([]clusterv1.ManagedCluster, error) {
	sel, err := Selector(set)
	if err != nil {
		return nil, err
	}
	list := &clusterv1.ManagedClusterList{}
	if err := c.List(ctx, list, append([]client.ListOption{client.MatchingLabelsSelector{Selector: sel}}, opts...)...); err != nil {
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
