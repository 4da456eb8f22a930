package hub

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	clusterlisters "open-cluster-management.io/api/client/cluster/listers/cluster/v1beta1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"

	"github.com/corral-dev/corral/internal/testing/builder"
	"github.com/corral-dev/corral/placement/hub/scheduler"
)

func page(name string, clusters ...string) *clusterv1beta1.PlacementDecision {
	d := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Name: name}}
	for _, c := range clusters {
		d.Status.Decisions = append(d.Status.Decisions, clusterv1beta1.ClusterDecision{ClusterName: c})
	}
	return d
}

func TestStateCountsDecisionsAcrossPages(t *testing.T) {
	s := newState()
	p, q := types.NamespacedName{Namespace: "ns", Name: "p"}, types.NamespacedName{Namespace: "ns", Name: "q"}
	steps := []struct {
		name   string
		apply  func()
		counts map[string]int
	}{
		{"p's first page", func() { s.setPage(p, "p-decision-1", page("p-decision-1", "a", "b")) }, map[string]int{"a": 1, "b": 1}},
		{"p's second page", func() { s.setPage(p, "p-decision-2", page("p-decision-2", "c")) }, map[string]int{"a": 1, "b": 1, "c": 1}},
		{"q holds a too", func() { s.setPage(q, "q-decision-1", page("q-decision-1", "a")) }, map[string]int{"a": 2, "b": 1, "c": 1}},
		{"p's first page changes", func() { s.setPage(p, "p-decision-1", page("p-decision-1", "b", "d")) }, map[string]int{"a": 1, "b": 1, "c": 1, "d": 1}},
		{"p's second page goes", func() { s.setPage(p, "p-decision-2", nil) }, map[string]int{"a": 1, "b": 1, "d": 1}},
		{"q's page goes", func() { s.setPage(q, "q-decision-1", nil) }, map[string]int{"b": 1, "d": 1}},
		{"a page nobody knew goes", func() { s.setPage(q, "q-decision-9", nil) }, map[string]int{"b": 1, "d": 1}},
	}
	for _, step := range steps {
		step.apply()
		if diff := cmp.Diff(step.counts, s.DecisionCounts()); diff != "" {
			t.Errorf("after %s: counts (-want +got):\n%s", step.name, diff)
		}
	}
	if got := s.Decided("ns", "p"); !got.Has("b") || !got.Has("d") || len(got) != 2 {
		t.Errorf("p decided %v, want b and d", got)
	}
	if got := s.Decided("ns", "q"); len(got) != 0 {
		t.Errorf("q decided %v, want nothing", got)
	}
}

func TestStateKeepsClustersSortedAndTheirSets(t *testing.T) {
	s := newState()
	s.setSet("red", &clusterv1beta2.ManagedClusterSet{ObjectMeta: metav1.ObjectMeta{Name: "red"}})
	s.setCluster("c", builder.Cluster("c").InSet("red").Obj())
	s.setCluster("a", builder.Cluster("a").InSet("blue").Obj())
	s.setCluster("b", builder.Cluster("b").InSet("red").Obj())
	s.setCluster("a", builder.Cluster("a").InSet("red").Obj())
	s.setCluster("c", nil)
	var names []string
	for _, c := range s.Clusters() {
		names = append(names, c.Name)
	}
	if diff := cmp.Diff([]string{"a", "b"}, names); diff != "" {
		t.Errorf("clusters (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"red"}, s.SetsOf("a")); diff != "" {
		t.Errorf("sets of a (-want +got):\n%s", diff)
	}
	s.setSet("blue", &clusterv1beta2.ManagedClusterSet{ObjectMeta: metav1.ObjectMeta{Name: "blue"}})
	s.setCluster("d", builder.Cluster("d").InSet("blue").Obj())
	if diff := cmp.Diff([]string{"blue"}, s.SetsOf("d")); diff != "" {
		t.Errorf("sets of d (-want +got):\n%s", diff)
	}
	s.setSet("red", nil)
	if got := s.SetsOf("a"); len(got) != 0 {
		t.Errorf("a is in %v once red is gone", got)
	}
}

func TestStateBindsOnlyBoundBindingsOfExistingSets(t *testing.T) {
	s := newState()
	binding := func(name, set string, bound bool) *clusterv1beta2.ManagedClusterSetBinding {
		status := metav1.ConditionFalse
		if bound {
			status = metav1.ConditionTrue
		}
		return &clusterv1beta2.ManagedClusterSetBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
			Spec:   clusterv1beta2.ManagedClusterSetBindingSpec{ClusterSet: set},
			Status: clusterv1beta2.ManagedClusterSetBindingStatus{Conditions: []metav1.Condition{{Type: clusterv1beta2.ClusterSetBindingBoundType, Status: status}}}}
	}
	s.setSet("red", &clusterv1beta2.ManagedClusterSet{ObjectMeta: metav1.ObjectMeta{Name: "red"}})
	s.setBinding("ns", "red", binding("red", "red", true))
	s.setBinding("ns", "blue", binding("blue", "blue", true))   // no such set
	s.setBinding("ns", "green", binding("green", "red", false)) // not bound
	if diff := cmp.Diff([]string{"red"}, s.BoundSets("ns")); diff != "" {
		t.Errorf("bound (-want +got):\n%s", diff)
	}
	s.setSet("blue", &clusterv1beta2.ManagedClusterSet{ObjectMeta: metav1.ObjectMeta{Name: "blue"}})
	if diff := cmp.Diff([]string{"blue", "red"}, s.BoundSets("ns")); diff != "" {
		t.Errorf("bound once blue exists (-want +got):\n%s", diff)
	}
	s.setBinding("ns", "red", nil)
	if diff := cmp.Diff([]string{"blue"}, s.BoundSets("ns")); diff != "" {
		t.Errorf("bound once red's binding goes (-want +got):\n%s", diff)
	}
}

func TestNewerResourceVersion(t *testing.T) {
	cases := map[string]struct {
		a, b string
		want bool
	}{
		"larger":           {"11", "9", true},
		"smaller":          {"9", "11", false},
		"equal":            {"10", "10", false},
		"not numbers":      {"x", "y", true},
		"equal non-number": {"x", "x", false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := newer(tc.a, tc.b); got != tc.want {
				t.Errorf("newer(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
			}
		})
	}
}

func TestTrimDropsWhatTheSchedulerNeverReads(t *testing.T) {
	d := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{
		Name: "p-decision-1", Labels: map[string]string{clusterv1beta1.PlacementLabel: "p"},
		OwnerReferences: []metav1.OwnerReference{{Kind: "Placement", Name: "p"}},
		ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "corral"}},
	}}
	got, err := trim(d)
	if err != nil {
		t.Fatal(err)
	}
	out := got.(*clusterv1beta1.PlacementDecision)
	if out.OwnerReferences != nil || out.ManagedFields != nil {
		t.Errorf("trim kept owner references %v and managed fields %v", out.OwnerReferences, out.ManagedFields)
	}
	if out.Labels[clusterv1beta1.PlacementLabel] != "p" {
		t.Errorf("trim dropped the placement label: %v", out.Labels)
	}
	c := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "c", Annotations: map[string]string{"a": "b"},
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "corral"}}}}
	got, _ = trim(c)
	if mc := got.(*clusterv1.ManagedCluster); mc.ManagedFields != nil || mc.Annotations["a"] != "b" {
		t.Errorf("trim on a cluster: managed fields %v, annotations %v; want none, and the annotations kept (CEL reads them)", mc.ManagedFields, mc.Annotations)
	}
}

func TestSharedPrefersTheInformersCopyOfTheSameVersion(t *testing.T) {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	cached := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p-decision-1", ResourceVersion: "5"}}
	if err := indexer.Add(cached); err != nil {
		t.Fatal(err)
	}
	c := &Controller{decisions: clusterlisters.NewPlacementDecisionLister(indexer)}
	same := cached.DeepCopy()
	if got := c.shared(same); got != cached {
		t.Error("a write the informer already holds was kept as the response, not the informer's copy")
	}
	newer := cached.DeepCopy()
	newer.ResourceVersion = "6"
	if got := c.shared(newer); got != newer {
		t.Error("a write newer than the informer's copy was replaced by the older copy")
	}
	other := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "q-decision-1", ResourceVersion: "7"}}
	if got := c.shared(other); got != other {
		t.Error("a write the informer has not seen was not kept")
	}
}

func TestSetPlacementLetsTheOlderVersionGo(t *testing.T) {
	older := &clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", Generation: 1, ResourceVersion: "5"}}
	plan, err := scheduler.Compile(older, newState())
	if err != nil {
		t.Fatal(err)
	}
	e := &entry{placement: older, plan: plan}
	status := older.DeepCopy()
	status.ResourceVersion, status.Status.NumberOfSelectedClusters = "6", 3
	e.setPlacement(status)
	if e.placement != status || e.plan.Placement() != status {
		t.Error("the entry or its plan still holds the older version of the placement")
	}
}
