package scheduler

import (
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
)

// now is the fake time the tests schedule at.
var now = time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)

const ns = "apps"

type clusterBuilder struct{ c clusterv1.ManagedCluster }

// cluster is a cluster of the set "s" (bound to ns in fleet).
func cluster(name string) *clusterBuilder {
	return &clusterBuilder{c: clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: name,
		Labels: map[string]string{clusterv1beta2.ClusterSetLabel: "s"}}}}
}

func (b *clusterBuilder) label(k, v string) *clusterBuilder { b.c.Labels[k] = v; return b }
func (b *clusterBuilder) claim(k, v string) *clusterBuilder {
	b.c.Status.ClusterClaims = append(b.c.Status.ClusterClaims, clusterv1.ManagedClusterClaim{Name: k, Value: v})
	return b
}
func (b *clusterBuilder) taint(key, value string, effect clusterv1.TaintEffect, added time.Time) *clusterBuilder {
	b.c.Spec.Taints = append(b.c.Spec.Taints, clusterv1.Taint{Key: key, Value: value, Effect: effect, TimeAdded: metav1.NewTime(added)})
	return b
}
func (b *clusterBuilder) cpu(alloc, capacity string) *clusterBuilder {
	if b.c.Status.Allocatable == nil {
		b.c.Status.Allocatable, b.c.Status.Capacity = clusterv1.ResourceList{}, clusterv1.ResourceList{}
	}
	b.c.Status.Allocatable[clusterv1.ResourceCPU] = resource.MustParse(alloc)
	b.c.Status.Capacity[clusterv1.ResourceCPU] = resource.MustParse(capacity)
	return b
}
func (b *clusterBuilder) deleting() *clusterBuilder {
	b.c.DeletionTimestamp = &metav1.Time{Time: time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)}
	b.c.Finalizers = []string{clusterv1.ManagedClusterFinalizer}
	return b
}
func (b *clusterBuilder) obj() clusterv1.ManagedCluster { return b.c }

type placementBuilder struct{ p clusterv1beta1.Placement }

func placement() *placementBuilder {
	return &placementBuilder{p: clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "p", Generation: 1}}}
}

func (b *placementBuilder) n(n int32) *placementBuilder { b.p.Spec.NumberOfClusters = &n; return b }
func (b *placementBuilder) labels(kv ...string) *placementBuilder {
	m := map[string]string{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	b.p.Spec.Predicates = append(b.p.Spec.Predicates, clusterv1beta1.ClusterPredicate{
		RequiredClusterSelector: clusterv1beta1.ClusterSelector{LabelSelector: metav1.LabelSelector{MatchLabels: m}}})
	return b
}
func (b *placementBuilder) pred(s clusterv1beta1.ClusterSelector) *placementBuilder {
	b.p.Spec.Predicates = append(b.p.Spec.Predicates, clusterv1beta1.ClusterPredicate{RequiredClusterSelector: s})
	return b
}
func (b *placementBuilder) tolerate(t clusterv1beta1.Toleration) *placementBuilder {
	b.p.Spec.Tolerations = append(b.p.Spec.Tolerations, t)
	return b
}
func (b *placementBuilder) exact() *placementBuilder {
	b.p.Spec.PrioritizerPolicy.Mode = clusterv1beta1.PrioritizerPolicyModeExact
	return b
}
func (b *placementBuilder) builtIn(name string, w int32) *placementBuilder {
	b.p.Spec.PrioritizerPolicy.Configurations = append(b.p.Spec.PrioritizerPolicy.Configurations, clusterv1beta1.PrioritizerConfig{
		ScoreCoordinate: &clusterv1beta1.ScoreCoordinate{Type: clusterv1beta1.ScoreCoordinateTypeBuiltIn, BuiltIn: name}, Weight: w})
	return b
}
func (b *placementBuilder) addOn(resourceName, score string, w int32) *placementBuilder {
	b.p.Spec.PrioritizerPolicy.Configurations = append(b.p.Spec.PrioritizerPolicy.Configurations, clusterv1beta1.PrioritizerConfig{
		ScoreCoordinate: &clusterv1beta1.ScoreCoordinate{Type: clusterv1beta1.ScoreCoordinateTypeAddOn,
			AddOn: &clusterv1beta1.AddOnScore{ResourceName: resourceName, ScoreName: score}}, Weight: w})
	return b
}
func (b *placementBuilder) with(f func(*clusterv1beta1.Placement)) *placementBuilder {
	f(&b.p)
	return b
}
func (b *placementBuilder) obj() *clusterv1beta1.Placement { return &b.p }

// fleet is a hub: set "s" bound to ns, these clusters, scores and
// decisions.
type fleet struct {
	clusters  []clusterv1.ManagedCluster
	sets      []clusterv1beta2.ManagedClusterSet
	bindings  []clusterv1beta2.ManagedClusterSetBinding
	scores    []clusterv1alpha1.AddOnPlacementScore
	decisions []clusterv1beta1.PlacementDecision
}

func newFleet(clusters ...*clusterBuilder) *fleet {
	f := &fleet{}
	for _, c := range clusters {
		f.clusters = append(f.clusters, c.obj())
	}
	f.sets = append(f.sets, clusterv1beta2.ManagedClusterSet{ObjectMeta: metav1.ObjectMeta{Name: "s"}})
	f.bind(ns, "s", true)
	return f
}

func (f *fleet) bind(namespace, set string, bound bool) *fleet {
	status := metav1.ConditionFalse
	if bound {
		status = metav1.ConditionTrue
	}
	f.bindings = append(f.bindings, clusterv1beta2.ManagedClusterSetBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: set}, Spec: clusterv1beta2.ManagedClusterSetBindingSpec{ClusterSet: set},
		Status: clusterv1beta2.ManagedClusterSetBindingStatus{Conditions: []metav1.Condition{{Type: clusterv1beta2.ClusterSetBindingBoundType, Status: status}}}})
	return f
}

func (f *fleet) score(cluster, name string, validUntil *time.Time, items ...clusterv1alpha1.AddOnPlacementScoreItem) *fleet {
	s := clusterv1alpha1.AddOnPlacementScore{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: name},
		Status: clusterv1alpha1.AddOnPlacementScoreStatus{Scores: items}}
	if validUntil != nil {
		t := metav1.NewTime(*validUntil)
		s.Status.ValidUntil = &t
	}
	f.scores = append(f.scores, s)
	return f
}

func item(name string, v int32) clusterv1alpha1.AddOnPlacementScoreItem {
	return clusterv1alpha1.AddOnPlacementScoreItem{Name: name, Value: v}
}

// decided records that placement (in ns) holds these clusters.
func (f *fleet) decided(placement string, clusters ...string) *fleet {
	d := clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: placement + "-decision-1",
		Labels: map[string]string{clusterv1beta1.PlacementLabel: placement}}}
	for _, c := range clusters {
		d.Status.Decisions = append(d.Status.Decisions, clusterv1beta1.ClusterDecision{ClusterName: c})
	}
	f.decisions = append(f.decisions, d)
	return f
}

func (f *fleet) snapshot() *MemSnapshot {
	return NewSnapshot(f.clusters, f.sets, f.bindings, f.scores, f.decisions)
}

func (f *fleet) schedule(p *clusterv1beta1.Placement) *Result {
	return Schedule(p, f.snapshot(), Options{Now: now, Explain: true})
}

func selectedNames(r *Result) []string {
	out := []string{}
	for _, d := range r.Selected {
		out = append(out, d.Cluster)
	}
	return out
}

func explained(r *Result, cluster string) ClusterResult {
	for _, c := range r.Clusters {
		if c.Name == cluster {
			return c
		}
	}
	return ClusterResult{}
}

func scoreOf(r *Result, cluster, prioritizer string) int64 {
	for _, s := range explained(r, cluster).Scores {
		if s.Prioritizer == prioritizer {
			return s.Score
		}
	}
	return -999
}

func ptr[T any](v T) *T { return &v }
