package scheduler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
)

func TestPrioritizerScores(t *testing.T) {
	later, earlier := now.Add(time.Hour), now.Add(-time.Second)
	cases := map[string]struct {
		fleet       *fleet
		placement   *clusterv1beta1.Placement
		prioritizer string
		want        map[string]int64
		requeue     time.Duration
	}{
		"Balance: unused 100, the most used -100, between in proportion": {
			fleet:     newFleet(cluster("a"), cluster("b"), cluster("c")).decided("x", "a", "b").decided("y", "a"),
			placement: placement().Obj(), prioritizer: Balance,
			want: map[string]int64{"a": -100, "b": 0, "c": 100},
		},
		"Balance does not count the placement's own decisions": {
			fleet:     newFleet(cluster("a"), cluster("b")).decided("p", "a").decided("x", "b"),
			placement: placement().Obj(), prioritizer: Balance,
			want: map[string]int64{"a": 100, "b": -100},
		},
		"Steady: 100 for the clusters the placement holds": {
			fleet:     newFleet(cluster("a"), cluster("b")).decided("p", "b").decided("x", "a"),
			placement: placement().Obj(), prioritizer: Steady,
			want: map[string]int64{"a": 0, "b": 100},
		},
		"ResourceAllocatableCPU: least -100, most 100, missing 0": {
			fleet:     newFleet(cluster("a").CPU("2", "4"), cluster("b").CPU("6", "8"), cluster("c").CPU("4", "8"), cluster("d")),
			placement: placement().ExactPrioritizers().BuiltInPrioritizer(ResourceAllocatableCPU, 1).Obj(), prioritizer: ResourceAllocatableCPU,
			want: map[string]int64{"a": -100, "b": 100, "c": 0, "d": 0},
		},
		"ResourceAllocatableCPU: all equal score 100": {
			fleet:     newFleet(cluster("a").CPU("2", "4"), cluster("b").CPU("2", "4")),
			placement: placement().ExactPrioritizers().BuiltInPrioritizer(ResourceAllocatableCPU, 1).Obj(), prioritizer: ResourceAllocatableCPU,
			want: map[string]int64{"a": 100, "b": 100},
		},
		"ResourceAllocatableMemory without any memory reported scores 0": {
			fleet:     newFleet(cluster("a").CPU("2", "4")),
			placement: placement().ExactPrioritizers().BuiltInPrioritizer(ResourceAllocatableMemory, 1).Obj(), prioritizer: ResourceAllocatableMemory,
			want: map[string]int64{"a": 0},
		},
		"AddOn: the named score; missing resource, missing name or expired score 0; out of range clamped": {
			fleet: newFleet(cluster("a"), cluster("b"), cluster("c"), cluster("d"), cluster("e")).
				score("a", "demo", &later, item("demo", 42), item("other", 7)).
				score("b", "demo", nil, item("other", 7)).
				score("c", "demo", &earlier, item("demo", 90)).
				score("e", "demo", nil, item("demo", 250)),
			placement: placement().ExactPrioritizers().AddOnPrioritizer("demo", "demo", 1).Obj(), prioritizer: "AddOn/demo/demo",
			want: map[string]int64{"a": 42, "b": 0, "c": 0, "d": 0, "e": 100}, requeue: time.Hour,
		},
		"Spread: clusters of the topology others use least score highest": {
			fleet: newFleet(cluster("a").Label("zone", "1"), cluster("b").Label("zone", "1"), cluster("c").Label("zone", "2"), cluster("d")).
				decided("x", "a", "b").decided("y", "c"),
			placement: placement().ExactPrioritizers().BuiltInPrioritizer(Spread, 1).With(func(p *clusterv1beta1.Placement) {
				p.Spec.SpreadPolicy.SpreadConstraints = []clusterv1beta1.SpreadConstraintsTerm{{TopologyKey: "zone", TopologyKeyType: clusterv1beta1.TopologyKeyTypeLabel}}
			}).Obj(), prioritizer: Spread,
			want: map[string]int64{"a": -100, "b": -100, "c": 0, "d": 0},
		},
		"Spread without spread constraints scores 0": {
			fleet:     newFleet(cluster("a")).decided("x", "a"),
			placement: placement().ExactPrioritizers().BuiltInPrioritizer(Spread, 1).Obj(), prioritizer: Spread,
			want: map[string]int64{"a": 0},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := tc.fleet.schedule(tc.placement)
			if r.Misconfigured != nil {
				t.Fatal(r.Misconfigured)
			}
			got := map[string]int64{}
			for c := range tc.want {
				got[c] = scoreOf(r, c, tc.prioritizer)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s scores (-want +got):\n%s", tc.prioritizer, diff)
			}
			if r.RequeueAfter != tc.requeue {
				t.Errorf("requeueAfter = %v, want %v", r.RequeueAfter, tc.requeue)
			}
		})
	}
}

func TestPrioritizerPolicy(t *testing.T) {
	f := newFleet(cluster("a").CPU("8", "8"), cluster("b").CPU("1", "8"), cluster("c").CPU("4", "8")).
		decided("p", "b").decided("x", "a")
	cases := map[string]struct {
		placement *clusterv1beta1.Placement
		weights   []Weight
		want      []string
	}{
		"Additive by default: Balance and Steady at 1": {
			placement: placement().NumberOfClusters(1).Obj(), weights: []Weight{{Balance, 1}, {Steady, 1}}, want: []string{"b"},
		},
		"Additive adds to the defaults": {
			placement: placement().NumberOfClusters(1).BuiltInPrioritizer(ResourceAllocatableCPU, 3).Obj(),
			weights:   []Weight{{Balance, 1}, {Steady, 1}, {ResourceAllocatableCPU, 3}}, want: []string{"a"},
		},
		"Additive overrides a default's weight; 0 disables it": {
			placement: placement().NumberOfClusters(1).BuiltInPrioritizer(Steady, 0).Obj(), weights: []Weight{{Balance, 1}}, want: []string{"b"},
		},
		"Exact uses only what it names": {
			placement: placement().NumberOfClusters(1).ExactPrioritizers().BuiltInPrioritizer(ResourceAllocatableCPU, 1).Obj(),
			weights:   []Weight{{ResourceAllocatableCPU, 1}}, want: []string{"a"},
		},
		"a negative weight picks the last": {
			placement: placement().NumberOfClusters(1).ExactPrioritizers().BuiltInPrioritizer(ResourceAllocatableCPU, -1).Obj(),
			weights:   []Weight{{ResourceAllocatableCPU, -1}}, want: []string{"b"},
		},
		"Exact with nothing named: ties broken by name": {
			placement: placement().NumberOfClusters(2).ExactPrioritizers().Obj(), want: []string{"a", "b"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := f.schedule(tc.placement)
			if diff := cmp.Diff(tc.weights, r.Prioritizers); diff != "" {
				t.Errorf("prioritizers (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, selectedNames(r)); diff != "" {
				t.Errorf("selected (-want +got):\n%s", diff)
			}
		})
	}
}
