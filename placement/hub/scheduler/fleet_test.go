package scheduler

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"

	"github.com/corral-dev/corral/internal/testing/builder"
)

// now is the fake time the tests schedule at.
var now = time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)

const ns = "apps"

// cluster is a cluster of the set "s" (bound to ns in fleet).
func cluster(name string) *builder.ClusterBuilder { return builder.Cluster(name).InSet("s") }

// placement is the placement ns/p the tests schedule, at generation 1.
func placement() *builder.PlacementBuilder { return builder.Placement(ns, "p").Generation(1) }

// fleet is a hub: set "s" bound to ns, these clusters, scores and
// decisions.
type fleet struct {
	clusters  []clusterv1.ManagedCluster
	sets      []clusterv1beta2.ManagedClusterSet
	bindings  []clusterv1beta2.ManagedClusterSetBinding
	scores    []clusterv1alpha1.AddOnPlacementScore
	decisions []clusterv1beta1.PlacementDecision
}

func newFleet(clusters ...*builder.ClusterBuilder) *fleet {
	f := &fleet{}
	for _, c := range clusters {
		f.clusters = append(f.clusters, *c.Obj())
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
