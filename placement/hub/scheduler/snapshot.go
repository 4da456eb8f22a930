package scheduler

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/sets"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"

	"github.com/corral-dev/corral/registration/common"
)

// Snapshot is the part of the hub Schedule reads. Schedule only reads it;
// what it returns must not change while Schedule runs.
type Snapshot interface {
	// Clusters are every ManagedCluster, ordered by name.
	Clusters() []*clusterv1.ManagedCluster
	// SetsOf names the ManagedClusterSets the cluster is in.
	SetsOf(cluster string) []string
	// BoundSets names the sets bound to the namespace: those of its
	// ManagedClusterSetBindings whose Bound condition is True.
	BoundSets(namespace string) []string
	// Score is the AddOnPlacementScore of that name in the cluster's
	// namespace, nil when there is none.
	Score(cluster, name string) *clusterv1alpha1.AddOnPlacementScore
	// Decided is the set of clusters the placement's PlacementDecisions
	// hold now; empty for a new placement.
	Decided(namespace, placement string) Names
	// DecisionCounts counts, for each cluster, the placements whose
	// decisions hold it (the placement being scheduled among them).
	DecisionCounts() map[string]int
	// Allocatable is the cluster's allocatable amount of cpu or memory,
	// false when it reports no allocatable or no capacity of it.
	Allocatable(cluster *clusterv1.ManagedCluster, resource clusterv1.ResourceName) (float64, bool)
}

// Allocatable reads a cluster's allocatable amount of a resource, false
// when it reports no allocatable or no capacity of it: Snapshot.Allocatable
// computed, for snapshots that do not keep it.
func Allocatable(c *clusterv1.ManagedCluster, resource clusterv1.ResourceName) (float64, bool) {
	a, ok := c.Status.Allocatable[resource]
	if _, okCap := c.Status.Capacity[resource]; !ok || !okCap {
		return 0, false
	}
	return a.AsApproximateFloat64(), true
}

// MemSnapshot is a Snapshot built from lists of objects: for
// `corral placement explain` and tests.
type MemSnapshot struct {
	clusters  []*clusterv1.ManagedCluster
	setsOf    map[string][]string
	bound     map[string][]string
	scores    map[string]map[string]*clusterv1alpha1.AddOnPlacementScore
	decided   map[string]Names
	decisions map[string]int
	alloc     map[string]map[clusterv1.ResourceName]float64
}

var _ Snapshot = &MemSnapshot{}

// Placeable is the cluster as placements see it: none (nil) when it is
// being deleted. A cluster on its way out is given nothing new, and the
// placements that chose it let it go, so that what they put there is
// removed while its agent is still there to do it.
func Placeable(c *clusterv1.ManagedCluster) *clusterv1.ManagedCluster {
	if c == nil || !c.DeletionTimestamp.IsZero() {
		return nil
	}
	return c
}

// NewSnapshot builds a snapshot of these objects, without the clusters
// being deleted (see Placeable). A set whose selector is invalid holds no
// cluster.
func NewSnapshot(clusters []clusterv1.ManagedCluster, clusterSets []clusterv1beta2.ManagedClusterSet,
	bindings []clusterv1beta2.ManagedClusterSetBinding, scores []clusterv1alpha1.AddOnPlacementScore,
	decisions []clusterv1beta1.PlacementDecision,
) *MemSnapshot {
	s := &MemSnapshot{
		setsOf: map[string][]string{}, bound: map[string][]string{},
		scores: map[string]map[string]*clusterv1alpha1.AddOnPlacementScore{}, decided: map[string]Names{}, decisions: map[string]int{},
		alloc: map[string]map[clusterv1.ResourceName]float64{},
	}
	for i := range clusters {
		c := Placeable(&clusters[i])
		if c == nil {
			continue
		}
		s.clusters = append(s.clusters, c)
		s.setsOf[c.Name] = common.SetsOf(c, clusterSets)
		s.alloc[c.Name] = map[clusterv1.ResourceName]float64{}
		for _, r := range []clusterv1.ResourceName{clusterv1.ResourceCPU, clusterv1.ResourceMemory} {
			if v, ok := Allocatable(c, r); ok {
				s.alloc[c.Name][r] = v
			}
		}
	}
	slices.SortFunc(s.clusters, func(a, b *clusterv1.ManagedCluster) int { return strings.Compare(a.Name, b.Name) })
	exists := sets.New[string]()
	for i := range clusterSets {
		exists.Insert(clusterSets[i].Name)
	}
	for i := range bindings {
		if b := &bindings[i]; IsBound(b) && exists.Has(b.Spec.ClusterSet) {
			s.bound[b.Namespace] = append(s.bound[b.Namespace], b.Spec.ClusterSet)
		}
	}
	for i := range scores {
		byCluster := s.scores[scores[i].Name]
		if byCluster == nil {
			byCluster = map[string]*clusterv1alpha1.AddOnPlacementScore{}
			s.scores[scores[i].Name] = byCluster
		}
		byCluster[scores[i].Namespace] = &scores[i]
	}
	held := map[string][]string{}
	for i := range decisions {
		d := &decisions[i]
		key := d.Namespace + "/" + d.Labels[clusterv1beta1.PlacementLabel]
		for _, cd := range d.Status.Decisions {
			held[key] = append(held[key], cd.ClusterName)
		}
	}
	for key, names := range held {
		s.decided[key] = NewNames(names...)
		for _, c := range s.decided[key] {
			s.decisions[c]++
		}
	}
	return s
}

// IsBound says whether a ManagedClusterSetBinding binds its set: its Bound
// condition is True.
func IsBound(b *clusterv1beta2.ManagedClusterSetBinding) bool {
	return meta.IsStatusConditionTrue(b.Status.Conditions, clusterv1beta2.ClusterSetBindingBoundType)
}

func (s *MemSnapshot) Clusters() []*clusterv1.ManagedCluster { return s.clusters }
func (s *MemSnapshot) SetsOf(cluster string) []string        { return s.setsOf[cluster] }
func (s *MemSnapshot) BoundSets(namespace string) []string   { return s.bound[namespace] }
func (s *MemSnapshot) Score(cluster, name string) *clusterv1alpha1.AddOnPlacementScore {
	return s.scores[name][cluster]
}
func (s *MemSnapshot) Decided(namespace, placement string) Names {
	return s.decided[namespace+"/"+placement]
}
func (s *MemSnapshot) DecisionCounts() map[string]int { return s.decisions }
func (s *MemSnapshot) Allocatable(c *clusterv1.ManagedCluster, resource clusterv1.ResourceName) (float64, bool) {
	v, ok := s.alloc[c.Name][resource]
	return v, ok
}
