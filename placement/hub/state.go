package hub

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/types"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"

	"github.com/corral-dev/corral/placement/hub/scheduler"
	"github.com/corral-dev/corral/registration/common"
)

// state is the scheduler's picture of the hub, kept by the informers'
// handlers and read by the workers: every object the scheduler reads,
// indexed for it. It is the scheduler.Snapshot the workers schedule over,
// under its read lock.
type state struct {
	mu sync.RWMutex

	clusters map[string]*clusterv1.ManagedCluster
	sorted   []*clusterv1.ManagedCluster // clusters by name
	setsOf   map[string][]string
	// allocatable caches each cluster's allocatable cpu and memory.
	allocatable map[string]map[clusterv1.ResourceName]float64
	sets        map[string]*clusterv1beta2.ManagedClusterSet
	// bound is, by namespace, the bound sets of each binding.
	bindings map[string]map[string]*clusterv1beta2.ManagedClusterSetBinding
	bound    map[string][]string
	// scores are by resource name, then cluster.
	scores map[string]map[string]*clusterv1alpha1.AddOnPlacementScore

	placements map[types.NamespacedName]*entry
	// pages are each placement's PlacementDecisions by name: what the
	// hub holds, or what this scheduler just wrote.
	pages   map[types.NamespacedName]map[string]*clusterv1beta1.PlacementDecision
	decided map[types.NamespacedName]scheduler.Names
	counts  map[string]int
	// pending are the pages being written: their events wait for the
	// write's result.
	pending map[pageKey]bool
}

// entry is one placement and its compiled plan.
type entry struct {
	placement *clusterv1beta1.Placement
	plan      *scheduler.Plan
	err       error // why it does not compile
	// last is the memo of the last scheduling, nil before; moved is how
	// far score changes since then have moved the totals of its
	// clusters, against last's margin. The placement's worker sets both
	// and score events add to moved, all under the read lock, hence
	// atomic.
	last  atomic.Pointer[scheduler.Memo]
	moved atomic.Int64
}

// disabled says whether the placement's scheduling is disabled.
func (e *entry) disabled() bool { return scheduler.SchedulingDisabled(e.placement) }

// setPlacement keeps a newer version of the entry's placement with the
// same spec, in the plan too, so that the older version is not kept.
func (e *entry) setPlacement(p *clusterv1beta1.Placement) {
	e.placement = p
	if e.plan != nil {
		e.plan = e.plan.For(p)
	}
}

var _ scheduler.Snapshot = &state{}

func newState() *state {
	return &state{
		clusters: map[string]*clusterv1.ManagedCluster{}, setsOf: map[string][]string{},
		allocatable: map[string]map[clusterv1.ResourceName]float64{},
		sets:        map[string]*clusterv1beta2.ManagedClusterSet{}, bindings: map[string]map[string]*clusterv1beta2.ManagedClusterSetBinding{},
		bound: map[string][]string{}, scores: map[string]map[string]*clusterv1alpha1.AddOnPlacementScore{},
		placements: map[types.NamespacedName]*entry{},
		pages:      map[types.NamespacedName]map[string]*clusterv1beta1.PlacementDecision{},
		decided:    map[types.NamespacedName]scheduler.Names{}, counts: map[string]int{},
		pending: map[pageKey]bool{},
	}
}

// The scheduler.Snapshot methods; callers hold the read lock.

func (s *state) Clusters() []*clusterv1.ManagedCluster { return s.sorted }
func (s *state) SetsOf(cluster string) []string        { return s.setsOf[cluster] }
func (s *state) BoundSets(namespace string) []string   { return s.bound[namespace] }
func (s *state) Score(cluster, name string) *clusterv1alpha1.AddOnPlacementScore {
	return s.scores[name][cluster]
}
func (s *state) Decided(namespace, placement string) scheduler.Names {
	return s.decided[types.NamespacedName{Namespace: namespace, Name: placement}]
}
func (s *state) DecisionCounts() map[string]int { return s.counts }
func (s *state) Allocatable(c *clusterv1.ManagedCluster, resource clusterv1.ResourceName) (float64, bool) {
	if byResource, ok := s.allocatable[c.Name]; ok {
		v, ok := byResource[resource]
		return v, ok
	}
	return scheduler.Allocatable(c, resource)
}

// Writers; callers hold the write lock.

// setCluster stores or (nil) removes a cluster and returns its sets.
func (s *state) setCluster(name string, c *clusterv1.ManagedCluster) []string {
	i, found := slices.BinarySearchFunc(s.sorted, name, func(c *clusterv1.ManagedCluster, n string) int { return strings.Compare(c.Name, n) })
	switch {
	case c == nil && found:
		s.sorted = slices.Delete(s.sorted, i, i+1)
	case c != nil && found:
		s.sorted[i] = c
	case c != nil:
		s.sorted = slices.Insert(s.sorted, i, c)
	}
	if c == nil {
		delete(s.clusters, name)
		delete(s.setsOf, name)
		delete(s.allocatable, name)
		return nil
	}
	s.clusters[name] = c
	byResource := map[clusterv1.ResourceName]float64{}
	for _, r := range []clusterv1.ResourceName{clusterv1.ResourceCPU, clusterv1.ResourceMemory} {
		if v, ok := scheduler.Allocatable(c, r); ok {
			byResource[r] = v
		}
	}
	s.allocatable[name] = byResource
	s.setsOf[name] = s.membership(c)
	return s.setsOf[name]
}

func (s *state) membership(c *clusterv1.ManagedCluster) []string {
	var names []string
	for name, set := range s.sets {
		if in, err := common.Contains(set, c); err == nil && in {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// setSet stores or removes a set and recomputes every cluster's sets and
// the bound sets.
func (s *state) setSet(name string, set *clusterv1beta2.ManagedClusterSet) {
	if set == nil {
		delete(s.sets, name)
	} else {
		s.sets[name] = set
	}
	for n, c := range s.clusters {
		s.setsOf[n] = s.membership(c)
	}
	for ns := range s.bindings {
		s.rebind(ns)
	}
}

// setBinding stores or removes a binding and recomputes its namespace's
// bound sets.
func (s *state) setBinding(namespace, name string, b *clusterv1beta2.ManagedClusterSetBinding) {
	if b == nil {
		delete(s.bindings[namespace], name)
	} else {
		if s.bindings[namespace] == nil {
			s.bindings[namespace] = map[string]*clusterv1beta2.ManagedClusterSetBinding{}
		}
		s.bindings[namespace][name] = b
	}
	s.rebind(namespace)
}

func (s *state) rebind(namespace string) {
	var bound []string
	for _, b := range s.bindings[namespace] {
		if _, ok := s.sets[b.Spec.ClusterSet]; ok && scheduler.IsBound(b) {
			bound = append(bound, b.Spec.ClusterSet)
		}
	}
	slices.Sort(bound)
	s.bound[namespace] = slices.Compact(bound)
}

func (s *state) setScore(namespace, name string, score *clusterv1alpha1.AddOnPlacementScore) {
	if score == nil {
		delete(s.scores[name], namespace)
		return
	}
	if s.scores[name] == nil {
		s.scores[name] = map[string]*clusterv1alpha1.AddOnPlacementScore{}
	}
	s.scores[name][namespace] = score
}

// setPage stores or removes one PlacementDecision of a placement and keeps
// the decided sets and counts in step.
func (s *state) setPage(key types.NamespacedName, name string, d *clusterv1beta1.PlacementDecision) {
	pages := s.pages[key]
	if d == nil {
		if pages == nil {
			return
		}
		delete(pages, name)
	} else {
		if pages == nil {
			pages = map[string]*clusterv1beta1.PlacementDecision{}
			s.pages[key] = pages
		}
		pages[name] = d
	}
	var names []string
	for _, pg := range pages {
		for _, cd := range pg.Status.Decisions {
			names = append(names, cd.ClusterName)
		}
	}
	now := scheduler.NewNames(names...)
	before := s.decided[key]
	for _, c := range before {
		if !now.Has(c) {
			s.counts[c]--
			if s.counts[c] <= 0 {
				delete(s.counts, c)
			}
		}
	}
	for _, c := range now {
		if !before.Has(c) {
			s.counts[c]++
		}
	}
	if len(pages) == 0 {
		delete(s.pages, key)
		delete(s.decided, key)
		return
	}
	s.decided[key] = now
}
