package scheduler

import (
	"testing"
	"time"

	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
)

func TestAffected(t *testing.T) {
	prod := func(name string) *clusterBuilder { return cluster(name).label("env", "prod") }
	cases := map[string]struct {
		placement *clusterv1beta1.Placement
		old, new  *clusterBuilder
		held      bool
		want      bool
	}{
		"a cluster that starts to match": {
			placement: placement().labels("env", "prod").obj(), old: cluster("x"), new: prod("x"), want: true,
		},
		"a held cluster that stops matching": {
			placement: placement().labels("env", "prod").obj(), old: prod("x"), new: cluster("x"), held: true, want: true,
		},
		"a cluster not held that stops matching": {
			placement: placement().n(1).labels("env", "prod").obj(), old: prod("x"), new: cluster("x"), want: false,
		},
		"a cluster not held that stops matching and bounded the CPU range": {
			placement: placement().n(1).labels("env", "prod").builtIn(ResourceAllocatableCPU, 1).obj(),
			old:       prod("x").cpu("64", "64"), new: cluster("x").cpu("64", "64"), want: true,
		},
		"a label nothing reads": {
			placement: placement().labels("env", "prod").obj(), old: prod("x"), new: prod("x").label("team", "a"), held: true, want: false,
		},
		"a cluster that matches neither before nor after": {
			placement: placement().labels("env", "prod").obj(), old: cluster("x"), new: cluster("x").label("env", "dev"), want: false,
		},
		"a new cluster that matches": {
			placement: placement().obj(), new: cluster("x"), want: true,
		},
		"a deleted cluster that was held": {
			placement: placement().obj(), old: cluster("x"), held: true, want: true,
		},
		"allocatable a resource prioritizer reads": {
			placement: placement().builtIn(ResourceAllocatableCPU, 1).obj(), old: cluster("x").cpu("4", "8"), new: cluster("x").cpu("2", "8"), want: true,
		},
		"allocatable nothing reads": {
			placement: placement().obj(), old: cluster("x").cpu("4", "8"), new: cluster("x").cpu("2", "8"), held: true, want: false,
		},
		"a taint that is not tolerated, on a held cluster": {
			placement: placement().obj(), old: cluster("x"), new: cluster("x").taint("gpu", "", clusterv1.TaintEffectNoSelect, now), held: true, want: true,
		},
		"a PreferNoSelect taint": {
			placement: placement().obj(), old: cluster("x"), new: cluster("x").taint("old", "", clusterv1.TaintEffectPreferNoSelect, now), held: true, want: true,
		},
		"a topology label a spread constraint reads": {
			placement: placement().with(func(p *clusterv1beta1.Placement) {
				p.Spec.SpreadPolicy.SpreadConstraints = []clusterv1beta1.SpreadConstraintsTerm{{TopologyKey: "zone", TopologyKeyType: clusterv1beta1.TopologyKeyTypeLabel}}
			}).obj(), old: cluster("x").label("zone", "a"), new: cluster("x").label("zone", "b"), held: true, want: true,
		},
		"a cluster moved out of the bound set": {
			placement: placement().obj(), old: cluster("x"), new: cluster("x").label("cluster.open-cluster-management.io/clusterset", "other"), held: true, want: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFleet(cluster("y").cpu("1", "64"))
			if tc.new != nil {
				f.clusters = append(f.clusters, tc.new.obj())
			}
			if tc.held {
				f.decided("p", "x")
			}
			snap := f.snapshot()
			plan, err := Compile(tc.placement, snap)
			if err != nil {
				t.Fatal(err)
			}
			last := plan.Schedule(newFleet(cluster("y").cpu("1", "64"), prod("x").cpu("64", "64")).snapshot(), Options{Now: now})
			version := func(b *clusterBuilder) Version {
				if b == nil {
					return Version{}
				}
				c := b.obj()
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
	plan, err := Compile(placement().obj(), f.snapshot())
	if err != nil {
		t.Fatal(err)
	}
	c := cluster("x").obj()
	if !plan.Affected(f.snapshot(), Version{}, Version{Cluster: &c}, now.Add(time.Second), nil) {
		t.Error("a placement never scheduled is not affected")
	}
}

func TestReadsScore(t *testing.T) {
	cases := map[string]struct {
		placement *clusterv1beta1.Placement
		want      bool
	}{
		"an AddOn prioritizer of that score": {placement().addOn("demo", "cpu", 1).obj(), true},
		"an AddOn prioritizer of another":    {placement().addOn("other", "cpu", 1).obj(), false},
		"CEL may call scores()": {placement().pred(clusterv1beta1.ClusterSelector{CelSelector: clusterv1beta1.ClusterCelSelector{
			CelExpressions: []string{"true"}}}).obj(), true},
		"no score at all": {placement().obj(), false},
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
