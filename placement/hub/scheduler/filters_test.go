package scheduler

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"

	"github.com/corral-dev/corral/internal/testing/builder"
)

func TestClusterSetFilter(t *testing.T) {
	other := clusterv1beta2.ManagedClusterSet{ObjectMeta: metav1.ObjectMeta{Name: "other"}}
	byLabel := clusterv1beta2.ManagedClusterSet{ObjectMeta: metav1.ObjectMeta{Name: "prod"}, Spec: clusterv1beta2.ManagedClusterSetSpec{
		ClusterSelector: clusterv1beta2.ManagedClusterSelector{SelectorType: clusterv1beta2.LabelSelector,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}}}}
	cases := map[string]struct {
		fleet     func() *fleet
		placement *clusterv1beta1.Placement
		want      []string
		reason    string
		// message is a part of the PlacementSatisfied message.
		message string
	}{
		"every cluster of the bound set": {
			fleet:     func() *fleet { return newFleet(cluster("a"), cluster("b")) },
			placement: placement().Obj(), want: []string{"a", "b"}, reason: ReasonAllScheduled,
		},
		"no binding in the namespace selects nothing": {
			fleet: func() *fleet {
				f := newFleet(cluster("a"))
				f.bindings = nil
				return f.bind("elsewhere", "s", true)
			},
			placement: placement().Obj(), want: []string{}, reason: ReasonNoBindings,
			message: "bound to namespace apps: bind one with `corral clusterset bind SET --namespace apps`",
		},
		"a binding that is not Bound does not count": {
			fleet: func() *fleet {
				f := newFleet(cluster("a"))
				f.bindings = nil
				return f.bind(ns, "s", false)
			},
			placement: placement().Obj(), want: []string{}, reason: ReasonNoBindings,
		},
		"a binding of a set that does not exist does not count": {
			fleet: func() *fleet {
				f := newFleet(cluster("a"))
				f.bindings = nil
				return f.bind(ns, "gone", true)
			},
			placement: placement().Obj(), want: []string{}, reason: ReasonNoBindings,
		},
		"clusterSets restricts to the intersection": {
			fleet: func() *fleet {
				f := newFleet(cluster("a"), cluster("b").Label(clusterv1beta2.ClusterSetLabel, "other"))
				f.sets = append(f.sets, other)
				return f.bind(ns, "other", true)
			},
			placement: placement().With(func(p *clusterv1beta1.Placement) { p.Spec.ClusterSets = []string{"other"} }).Obj(),
			want:      []string{"b"}, reason: ReasonAllScheduled,
		},
		"clusterSets naming only unbound sets": {
			fleet:     func() *fleet { return newFleet(cluster("a")) },
			placement: placement().With(func(p *clusterv1beta1.Placement) { p.Spec.ClusterSets = []string{"other"} }).Obj(),
			want:      []string{}, reason: ReasonNoIntersection, message: "none of spec.clusterSets is bound to namespace apps (bound: s)",
		},
		"a label-selector set": {
			fleet: func() *fleet {
				f := newFleet(cluster("a").Label("env", "prod"), cluster("b"))
				f.sets = append(f.sets, byLabel)
				return f.bind(ns, "prod", true)
			},
			placement: placement().With(func(p *clusterv1beta1.Placement) { p.Spec.ClusterSets = []string{"prod"} }).Obj(),
			want:      []string{"a"}, reason: ReasonAllScheduled,
		},
		"a bound set with no cluster": {
			fleet: func() *fleet {
				f := newFleet(cluster("a").Label(clusterv1beta2.ClusterSetLabel, "other"))
				return f
			},
			placement: placement().Obj(), want: []string{}, reason: ReasonSetsEmpty,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := tc.fleet().schedule(tc.placement)
			if diff := cmp.Diff(tc.want, selectedNames(r)); diff != "" {
				t.Errorf("selected (-want +got):\n%s", diff)
			}
			c := r.Conditions(1)[0]
			if c.Reason != tc.reason || !strings.Contains(c.Message, tc.message) {
				t.Errorf("PlacementSatisfied %s %q, want %s containing %q", c.Reason, c.Message, tc.reason, tc.message)
			}
		})
	}
}

func TestPredicates(t *testing.T) {
	f := newFleet(
		cluster("a").Label("env", "prod").Label("region", "eu").Claim("platform", "aws"),
		cluster("b").Label("env", "dev").Claim("platform", "gcp"),
		cluster("c").Label("env", "prod").Label("region", "us"),
	).score("a", "demo", nil, clusterv1alpha1.AddOnPlacementScoreItem{Name: "cpu", Value: 80})
	cases := map[string]struct {
		placement *clusterv1beta1.Placement
		want      []string
	}{
		"no predicate selects every cluster":      {placement().Obj(), []string{"a", "b", "c"}},
		"an empty selector matches every cluster": {placement().Predicate(clusterv1beta1.ClusterSelector{}).Obj(), []string{"a", "b", "c"}},
		"label selector":                          {placement().RequireLabels("env", "prod").Obj(), []string{"a", "c"}},
		"labels ANDed within a predicate":         {placement().RequireLabels("env", "prod", "region", "us").Obj(), []string{"c"}},
		"predicates ORed":                         {placement().RequireLabels("region", "us").RequireLabels("env", "dev").Obj(), []string{"b", "c"}},
		"label expression": {placement().Predicate(clusterv1beta1.ClusterSelector{LabelSelector: metav1.LabelSelector{
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "region", Operator: metav1.LabelSelectorOpDoesNotExist}}}}).Obj(), []string{"b"}},
		"claim selector": {placement().Predicate(clusterv1beta1.ClusterSelector{ClaimSelector: clusterv1beta1.ClusterClaimSelector{
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "platform", Operator: metav1.LabelSelectorOpIn, Values: []string{"aws", "gcp"}}}}}).Obj(), []string{"a", "b"}},
		"claim and label ANDed": {placement().Predicate(clusterv1beta1.ClusterSelector{
			LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}},
			ClaimSelector: clusterv1beta1.ClusterClaimSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "platform", Operator: metav1.LabelSelectorOpExists}}}}).Obj(), []string{"a"}},
		"CEL on labels": {placement().Predicate(clusterv1beta1.ClusterSelector{CelSelector: clusterv1beta1.ClusterCelSelector{
			CelExpressions: []string{`managedCluster.metadata.labels["env"] == "prod"`, `managedCluster.metadata.name != "c"`}}}).Obj(), []string{"a"}},
		"CEL on an AddOnPlacementScore": {placement().Predicate(clusterv1beta1.ClusterSelector{CelSelector: clusterv1beta1.ClusterCelSelector{
			CelExpressions: []string{`managedCluster.scores("demo").filter(s, s.name == "cpu").all(s, s.value > 50)`}}}).Obj(), []string{"a"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := f.schedule(tc.placement)
			if r.Misconfigured != nil {
				t.Fatalf("misconfigured: %v", r.Misconfigured)
			}
			if diff := cmp.Diff(tc.want, selectedNames(r)); diff != "" {
				t.Errorf("selected (-want +got):\n%s", diff)
			}
			for _, c := range r.Clusters {
				wantDropped := !contains(tc.want, c.Name)
				if wantDropped != (c.DroppedBy == FilterPredicate) {
					t.Errorf("cluster %s droppedBy %q, want dropped by the predicates: %v", c.Name, c.DroppedBy, wantDropped)
				}
			}
		})
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func TestTaintToleration(t *testing.T) {
	added := now.Add(-time.Minute)
	cases := map[string]struct {
		cluster     *builder.ClusterBuilder
		tolerations []clusterv1beta1.Toleration
		inDecision  bool
		selected    bool
		requeue     time.Duration
		note        string
	}{
		"NoSelect untolerated": {
			cluster: cluster("c").Taint("gpu", "", clusterv1.TaintEffectNoSelect, added),
		},
		"NoSelect tolerated by key and value": {
			cluster:     cluster("c").Taint("gpu", "a100", clusterv1.TaintEffectNoSelect, added),
			tolerations: []clusterv1beta1.Toleration{{Key: "gpu", Value: "a100"}}, selected: true,
		},
		"Equal with another value does not tolerate": {
			cluster:     cluster("c").Taint("gpu", "a100", clusterv1.TaintEffectNoSelect, added),
			tolerations: []clusterv1beta1.Toleration{{Key: "gpu", Operator: clusterv1beta1.TolerationOpEqual, Value: "h100"}},
		},
		"Exists tolerates every value": {
			cluster:     cluster("c").Taint("gpu", "a100", clusterv1.TaintEffectNoSelect, added),
			tolerations: []clusterv1beta1.Toleration{{Key: "gpu", Operator: clusterv1beta1.TolerationOpExists}}, selected: true,
		},
		"an empty key with Exists tolerates every taint": {
			cluster: cluster("c").Taint("gpu", "a100", clusterv1.TaintEffectNoSelect, added).
				Taint(clusterv1.ManagedClusterTaintUnreachable, "", clusterv1.TaintEffectNoSelect, added),
			tolerations: []clusterv1beta1.Toleration{{Operator: clusterv1beta1.TolerationOpExists}}, selected: true,
		},
		"another effect does not tolerate": {
			cluster:     cluster("c").Taint("gpu", "", clusterv1.TaintEffectNoSelect, added),
			tolerations: []clusterv1beta1.Toleration{{Key: "gpu", Operator: clusterv1beta1.TolerationOpExists, Effect: clusterv1.TaintEffectPreferNoSelect}},
		},
		"NoSelectIfNew keeps a new placement off": {
			cluster: cluster("c").Taint("drain", "", clusterv1.TaintEffectNoSelectIfNew, added),
		},
		"NoSelectIfNew lets a placement keep the cluster": {
			cluster: cluster("c").Taint("drain", "", clusterv1.TaintEffectNoSelectIfNew, added), inDecision: true, selected: true,
		},
		"NoSelectIfNew ignores tolerationSeconds": {
			cluster:     cluster("c").Taint("drain", "", clusterv1.TaintEffectNoSelectIfNew, now.Add(-time.Hour)),
			tolerations: []clusterv1beta1.Toleration{{Key: "drain", Operator: clusterv1beta1.TolerationOpExists, TolerationSeconds: ptr[int64](10)}}, selected: true,
		},
		"PreferNoSelect untolerated still selects when nothing else is there": {
			cluster: cluster("c").Taint("old", "", clusterv1.TaintEffectPreferNoSelect, added), selected: true,
			note: "PreferNoSelect",
		},
		"tolerationSeconds not yet run out: selected, requeued when it does": {
			cluster:     cluster("c").Taint(clusterv1.ManagedClusterTaintUnreachable, "", clusterv1.TaintEffectNoSelect, added),
			tolerations: []clusterv1beta1.Toleration{{Key: clusterv1.ManagedClusterTaintUnreachable, Operator: clusterv1beta1.TolerationOpExists, TolerationSeconds: ptr[int64](300)}},
			selected:    true, requeue: 4 * time.Minute,
		},
		"tolerationSeconds run out": {
			cluster:     cluster("c").Taint(clusterv1.ManagedClusterTaintUnreachable, "", clusterv1.TaintEffectNoSelect, added),
			tolerations: []clusterv1beta1.Toleration{{Key: clusterv1.ManagedClusterTaintUnreachable, Operator: clusterv1beta1.TolerationOpExists, TolerationSeconds: ptr[int64](60)}},
		},
		"a toleration without tolerationSeconds outlasts one with": {
			cluster: cluster("c").Taint("gpu", "", clusterv1.TaintEffectNoSelect, added),
			tolerations: []clusterv1beta1.Toleration{
				{Key: "gpu", Operator: clusterv1beta1.TolerationOpExists, TolerationSeconds: ptr[int64](1)},
				{Key: "gpu", Operator: clusterv1beta1.TolerationOpExists}},
			selected: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFleet(tc.cluster)
			if tc.inDecision {
				f.decided("p", "c")
			}
			p := placement().Obj()
			p.Spec.Tolerations = tc.tolerations
			r := f.schedule(p)
			if got := len(r.Selected) == 1; got != tc.selected {
				t.Fatalf("selected = %v, want %v (explained: %+v)", got, tc.selected, r.Clusters)
			}
			if !tc.selected && explained(r, "c").DroppedBy != FilterTaintToleration {
				t.Errorf("dropped by %q, want %s", explained(r, "c").DroppedBy, FilterTaintToleration)
			}
			if r.RequeueAfter != tc.requeue {
				t.Errorf("requeueAfter = %v, want %v", r.RequeueAfter, tc.requeue)
			}
			if note := explained(r, "c").Note; !strings.Contains(note, tc.note) {
				t.Errorf("note %q, want it to say %q", note, tc.note)
			}
		})
	}
}

func TestPreferNoSelectRanksLast(t *testing.T) {
	f := newFleet(cluster("a").Taint("old", "", clusterv1.TaintEffectPreferNoSelect, now), cluster("b"))
	r := f.schedule(placement().NumberOfClusters(1).Obj())
	if diff := cmp.Diff([]string{"b"}, selectedNames(r)); diff != "" {
		t.Errorf("selected (-want +got):\n%s", diff)
	}
	r = f.schedule(placement().NumberOfClusters(1).Tolerate(clusterv1beta1.Toleration{Key: "old", Operator: clusterv1beta1.TolerationOpExists}).Obj())
	if diff := cmp.Diff([]string{"a"}, selectedNames(r)); diff != "" {
		t.Errorf("tolerated: selected (-want +got):\n%s", diff)
	}
}
