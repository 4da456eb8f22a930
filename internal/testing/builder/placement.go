package builder

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
)

// PlacementBuilder builds a Placement.
type PlacementBuilder struct{ p clusterv1beta1.Placement }

// Placement is the Placement namespace/name, with nothing else set: it
// selects every cluster of the sets bound to its namespace.
func Placement(namespace, name string) *PlacementBuilder {
	return &PlacementBuilder{p: clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}}
}

// Generation sets metadata.generation.
func (b *PlacementBuilder) Generation(g int64) *PlacementBuilder {
	b.p.Generation = g
	return b
}

// NumberOfClusters has the placement select n clusters at most.
func (b *PlacementBuilder) NumberOfClusters(n int32) *PlacementBuilder {
	b.p.Spec.NumberOfClusters = &n
	return b
}

// RequireLabels adds a predicate requiring the labels (key, value pairs).
func (b *PlacementBuilder) RequireLabels(kv ...string) *PlacementBuilder {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return b.Predicate(clusterv1beta1.ClusterSelector{LabelSelector: metav1.LabelSelector{MatchLabels: m}})
}

// Predicate adds a predicate requiring s.
func (b *PlacementBuilder) Predicate(s clusterv1beta1.ClusterSelector) *PlacementBuilder {
	b.p.Spec.Predicates = append(b.p.Spec.Predicates, clusterv1beta1.ClusterPredicate{RequiredClusterSelector: s})
	return b
}

// Tolerate adds the toleration t.
func (b *PlacementBuilder) Tolerate(t clusterv1beta1.Toleration) *PlacementBuilder {
	b.p.Spec.Tolerations = append(b.p.Spec.Tolerations, t)
	return b
}

// ExactPrioritizers has only the prioritizers configured score, not the
// default ones beside them.
func (b *PlacementBuilder) ExactPrioritizers() *PlacementBuilder {
	b.p.Spec.PrioritizerPolicy.Mode = clusterv1beta1.PrioritizerPolicyModeExact
	return b
}

// BuiltInPrioritizer adds the built-in prioritizer name at weight.
func (b *PlacementBuilder) BuiltInPrioritizer(name string, weight int32) *PlacementBuilder {
	b.p.Spec.PrioritizerPolicy.Configurations = append(b.p.Spec.PrioritizerPolicy.Configurations, clusterv1beta1.PrioritizerConfig{
		ScoreCoordinate: &clusterv1beta1.ScoreCoordinate{Type: clusterv1beta1.ScoreCoordinateTypeBuiltIn, BuiltIn: name}, Weight: weight})
	return b
}

// AddOnPrioritizer adds a prioritizer of the score named score in the
// AddOnPlacementScores named resourceName, at weight.
func (b *PlacementBuilder) AddOnPrioritizer(resourceName, score string, weight int32) *PlacementBuilder {
	b.p.Spec.PrioritizerPolicy.Configurations = append(b.p.Spec.PrioritizerPolicy.Configurations, clusterv1beta1.PrioritizerConfig{
		ScoreCoordinate: &clusterv1beta1.ScoreCoordinate{Type: clusterv1beta1.ScoreCoordinateTypeAddOn,
			AddOn: &clusterv1beta1.AddOnScore{ResourceName: resourceName, ScoreName: score}}, Weight: weight})
	return b
}

// With changes the placement with change, for a field no other method
// sets (nil changes nothing).
func (b *PlacementBuilder) With(change func(*clusterv1beta1.Placement)) *PlacementBuilder {
	if change != nil {
		change(&b.p)
	}
	return b
}

// Obj is a copy of the Placement built so far.
func (b *PlacementBuilder) Obj() *clusterv1beta1.Placement { return b.p.DeepCopy() }
