package builder

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
)

// ClusterSetBuilder builds a ManagedClusterSet.
type ClusterSetBuilder struct {
	s clusterv1beta2.ManagedClusterSet
}

// ClusterSet is the ManagedClusterSet name at generation 1, holding its
// clusters by the exclusive cluster-set label.
func ClusterSet(name string) *ClusterSetBuilder {
	return &ClusterSetBuilder{s: clusterv1beta2.ManagedClusterSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Generation: 1},
		Spec: clusterv1beta2.ManagedClusterSetSpec{ClusterSelector: clusterv1beta2.ManagedClusterSelector{
			SelectorType: clusterv1beta2.ExclusiveClusterSetLabel,
		}},
	}}
}

// Selector makes the set hold the clusters sel selects (nil: none).
func (b *ClusterSetBuilder) Selector(sel *metav1.LabelSelector) *ClusterSetBuilder {
	b.s.Spec.ClusterSelector = clusterv1beta2.ManagedClusterSelector{SelectorType: clusterv1beta2.LabelSelector, LabelSelector: sel}
	return b
}

// Obj is a copy of the ManagedClusterSet built so far.
func (b *ClusterSetBuilder) Obj() *clusterv1beta2.ManagedClusterSet { return b.s.DeepCopy() }
