package scheduler

import (
	"fmt"
	"math"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/corral-dev/corral/internal/testing/builder"
)

func TestAffected(t *testing.T) {
	prod := func(name string) *builder.ClusterBuilder { return cluster(name).Label("env", "prod") }
	cases := map[string]struct {
		placement *clusterv1beta1.Placement
		old, new  *builder.ClusterBuilder
		held      bool
		want      bool
	}{
		"a cluster that starts to match": {
			placement: placement().RequireLabels("env", "prod").Obj(), old: cluster("x"), new: prod("x"), want: true,
		},
		"a held cluster that stops matching": {
			placement: placement().RequireLabels("env", "prod").Obj(), old: prod("x"), new: cluster("x"), held: true, want: true,
		},
		"a cluster not held that stops matching": {
			placement: placement().NumberOfClusters(1).RequireLabels("env", "prod").Obj(), old: prod("x"), new: cluster("x"), want: false,
		},
		"a cluster not held that stops matching and bounded the CPU range": {
			placement: placement().NumberOfClusters(1).RequireLabels("env", "prod").BuiltInPrioritizer(ResourceAllocatableCPU, 1).Obj(),
			old:       prod("x").CPU("64", "64"), new: cluster("x").CPU("64", "64"), want: true,
		},
		"a label nothing reads": {
			placement: placement().RequireLabels("env", "prod").Obj(), old: prod("x"), new: prod("x").Label("team", "a"), held: true, want: false,
		},
		"a cluster that matches neither before nor after": {
			placement: placement().RequireLabels("env", "prod").Obj(), old: cluster("x"), new: cluster("x").Label("env", "dev"), want: false,
		},
		"a new cluster that matches": {
			placement: placement().Obj(), new: cluster("x"), want: true,
		},
		"a deleted cluster that was held": {
			placement: placement().Obj(), old: cluster("x"), held: true, want: true,
		},
		"allocatable a resource prioritizer reads": {
			placement: placement().BuiltInPrioritizer(ResourceAllocatableCPU, 1).Obj(), old: cluster("x").CPU("4", "8"), new: cluster("x").CPU("2", "8"), want: true,
		},
		"allocatable nothing reads": {
			placement: placement().Obj(), old: cluster("x").CPU("4", "8"), new: cluster("x").CPU("2", "8"), held: true, want: false,
		},
		"a taint that is not tolerated, on a held cluster": {
			placement: placement().Obj(), old: cluster("x"), new: cluster("x").Taint("gpu", "", clusterv1.TaintEffectNoSelect, now), held: true, want: true,
		},
		"a PreferNoSelect taint": {
			placement: placement().Obj(), old: cluster("x"), new: cluster("x").Taint("old", "", clusterv1.TaintEffectPreferNoSelect, now), held: true, want: true,
		},
		"a topology label a spread constraint reads": {
			placement: placement().With(func(p *clusterv1beta1.Placement) {
				p.Spec.SpreadPolicy.SpreadConstraints = []clusterv1beta1.SpreadConstraintsTerm{{TopologyKey: "zone", TopologyKeyType: clusterv1beta1.TopologyKeyTypeLabel}}
			}).Obj(), old: cluster("x").Label("zone", "a"), new: cluster("x").Label("zone", "b"), held: true, want: true,
		},
		"a cluster moved out of the bound set": {
			placement: placement().Obj(), old: cluster("x"), new: cluster("x").Label("cluster.open-cluster-management.io/clusterset", "other"), held: true, want: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFleet(cluster("y").CPU("1", "64"))
			if tc.new != nil {
				f.clusters = append(f.clusters, *tc.new.Obj())
			}
			if tc.held {
				f.decided("p", "x")
			}
			snap := f.snapshot()
			plan, err := Compile(tc.placement, snap)
			if err != nil {
				t.Fatal(err)
			}
			last := plan.Schedule(newFleet(cluster("y").CPU("1", "64"), prod("x").CPU("64", "64")).snapshot(), Options{Now: now})
			version := func(b *builder.ClusterBuilder) Version {
				if b == nil {
					return Version{}
				}
				c := *b.Obj()
				return Version{Cluster: &c, Sets: []string{c.Labels["cluster.open-cluster-management.io/clusterset"]}}
			}
			if got := plan.Affected(snap, version(tc.old), version(tc.new), now, last.Memo()); got != tc.want {
				t.Errorf("Affected = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestAffectedBeforeTheFirstScheduling(t *testing.T) {
	f := newFleet()
	plan, err := Compile(placement().Obj(), f.snapshot())
	if err != nil {
		t.Fatal(err)
	}
	c := *cluster("x").Obj()
	if !plan.Affected(f.snapshot(), Version{}, Version{Cluster: &c}, now.Add(time.Second), nil) {
		t.Error("a placement never scheduled is not affected")
	}
}

func TestReadsScore(t *testing.T) {
	cases := map[string]struct {
		placement *clusterv1beta1.Placement
		want      bool
	}{
		"an AddOn prioritizer of that score": {placement().AddOnPrioritizer("demo", "cpu", 1).Obj(), true},
		"an AddOn prioritizer of another":    {placement().AddOnPrioritizer("other", "cpu", 1).Obj(), false},
		"CEL calls scores()": {placement().Predicate(clusterv1beta1.ClusterSelector{CelSelector: clusterv1beta1.ClusterCelSelector{
			CelExpressions: []string{`managedCluster.scores("demo").all(s, s.value > 10)`}}}).Obj(), true},
		"CEL that reads no score": {placement().Predicate(clusterv1beta1.ClusterSelector{CelSelector: clusterv1beta1.ClusterCelSelector{
			CelExpressions: []string{"true"}}}).Obj(), false},
		"no score at all": {placement().Obj(), false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			plan, err := Compile(tc.placement, newFleet().snapshot())
			if err != nil {
				t.Fatal(err)
			}
			if got := plan.ReadsScore("demo"); got != tc.want {
				t.Errorf("ReadsScore(demo) = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestAffectedCountsCandidatesWhileNoneMatches(t *testing.T) {
	p := placement().RequireLabels("env", "prod").Obj()
	x := *cluster("x").Obj() // a candidate that matches nothing
	cases := map[string]struct {
		last *fleet
		want bool
	}{
		"none matched last time: the condition counts candidates": {newFleet(cluster("y")), true},
		"some matched: the candidates count for nothing":          {newFleet(cluster("y").Label("env", "prod")), false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			snap := tc.last.snapshot()
			plan, err := Compile(p, snap)
			if err != nil {
				t.Fatal(err)
			}
			last := plan.Schedule(snap, Options{Now: now})
			if got := plan.Affected(snap, Version{}, Version{Cluster: &x, Sets: []string{"s"}}, now, last.Memo()); got != tc.want {
				t.Errorf("Affected = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestMargin(t *testing.T) {
	f := newFleet()
	for i := range 20 {
		name := fmt.Sprintf("c%02d", i)
		f.clusters = append(f.clusters, *cluster(name).Obj())
		f.score(name, "demo", nil, item("demo", int32(5*i)))
	}
	byScore := func(n int32) *builder.PlacementBuilder {
		return placement().NumberOfClusters(n).ExactPrioritizers().AddOnPrioritizer("demo", "demo", 2)
	}
	cases := map[string]struct {
		placement *clusterv1beta1.Placement
		want      int64
	}{
		"the last chosen against the best left out, weighted": {byScore(1).Obj(), 10},
		"as many wanted as there are":                         {byScore(20).Obj(), math.MaxInt64},
		"every cluster wanted":                                {placement().ExactPrioritizers().AddOnPrioritizer("demo", "demo", 1).Obj(), math.MaxInt64},
		"none wanted":                                         {byScore(0).Obj(), math.MaxInt64},
		"a spread policy: any change may count": {byScore(3).With(func(p *clusterv1beta1.Placement) {
			p.Spec.SpreadPolicy.SpreadConstraints = []clusterv1beta1.SpreadConstraintsTerm{{TopologyKey: "zone", TopologyKeyType: clusterv1beta1.TopologyKeyTypeLabel}}
		}).Obj(), 0},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			// Without Explain, as the hub schedules: the few best are
			// kept in one pass.
			r := Schedule(tc.placement, f.snapshot(), Options{Now: now})
			if r.Margin != tc.want {
				t.Errorf("Margin = %d, want %d", r.Margin, tc.want)
			}
		})
	}
}

func TestScoreDelta(t *testing.T) {
	plan, err := Compile(placement().ExactPrioritizers().AddOnPrioritizer("demo", "cpu", 2).AddOnPrioritizer("demo", "mem", 1).AddOnPrioritizer("other", "cpu", 5).Obj(), newFleet().snapshot())
	if err != nil {
		t.Fatal(err)
	}
	score := func(validUntil *time.Time, items ...clusterv1alpha1.AddOnPlacementScoreItem) *clusterv1alpha1.AddOnPlacementScore {
		f := newFleet().score("x", "demo", validUntil, items...)
		return &f.scores[0]
	}
	past := now.Add(-time.Second)
	cases := map[string]struct {
		old, new *clusterv1alpha1.AddOnPlacementScore
		want     int64
	}{
		"each weighted score that moves": {score(nil, item("cpu", 10), item("mem", 5)), score(nil, item("cpu", 30), item("mem", 0)), 2*20 - 5},
		"a new score":                    {nil, score(nil, item("cpu", 10)), 20},
		"a score that expired":           {score(nil, item("cpu", 10)), score(&past, item("cpu", 10)), -20},
		"clamped to 100":                 {score(nil, item("cpu", 100)), score(nil, item("cpu", 500)), 0},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := plan.ScoreDelta("demo", tc.old, tc.new, now); got != tc.want {
				t.Errorf("ScoreDelta = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestGroupLength(t *testing.T) {
	cases := map[string]struct {
		v     intstr.IntOrString
		total int
		want  int
	}{
		"a number":                         {v: intstr.FromInt32(3), total: 10, want: 3},
		"a number in a string":             {v: intstr.FromString("3"), total: 10, want: 3},
		"a percentage, rounded up":         {v: intstr.FromString("25%"), total: 10, want: 3},
		"7% of 100 is 7, not a float's 8":  {v: intstr.FromString("7%"), total: 100, want: 7},
		"28% of 25 is 7":                   {v: intstr.FromString("28%"), total: 25, want: 7},
		"55% of 100 is 55":                 {v: intstr.FromString("55%"), total: 100, want: 55},
		"unset: one group of all":          {total: 10, want: 10},
		"more than the total: one group":   {v: intstr.FromInt32(50), total: 10, want: 10},
		"0%: one group":                    {v: intstr.FromString("0%"), total: 10, want: 10},
		"a percentage of nothing: nothing": {v: intstr.FromString("20%"), total: 0, want: 0},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := groupLength(tc.v, tc.total)
			if err != nil || got != tc.want {
				t.Errorf("groupLength(%v, %d) = %d, %v; want %d", tc.v, tc.total, got, err, tc.want)
			}
		})
	}
	if _, err := groupLength(intstr.FromString("half"), 10); err == nil {
		t.Error(`groupLength("half") gives no error`)
	}
}
