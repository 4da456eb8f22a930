package scheduler

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/corral-dev/corral/internal/testing/builder"
)

func TestMisconfigured(t *testing.T) {
	cases := map[string]struct {
		placement *clusterv1beta1.Placement
		message   string
	}{
		"negative numberOfClusters": {placement().NumberOfClusters(-1).Obj(), "spec.numberOfClusters is -1: it must be 0 or more"},
		"unknown built-in prioritizer": {placement().BuiltInPrioritizer("Fastest", 1).Obj(),
			`spec.prioritizerPolicy.configurations[0].scoreCoordinate.builtIn is "Fastest": it must be one of Balance, Steady`},
		"unknown mode": {placement().With(func(p *clusterv1beta1.Placement) { p.Spec.PrioritizerPolicy.Mode = "Greedy" }).Obj(),
			`spec.prioritizerPolicy.mode is "Greedy": it must be Additive or Exact`},
		"no scoreCoordinate": {placement().With(func(p *clusterv1beta1.Placement) {
			p.Spec.PrioritizerPolicy.Configurations = []clusterv1beta1.PrioritizerConfig{{Weight: 1}}
		}).Obj(), "scoreCoordinate is missing"},
		"AddOn without a score": {placement().With(func(p *clusterv1beta1.Placement) {
			p.Spec.PrioritizerPolicy.Configurations = []clusterv1beta1.PrioritizerConfig{{Weight: 1,
				ScoreCoordinate: &clusterv1beta1.ScoreCoordinate{Type: clusterv1beta1.ScoreCoordinateTypeAddOn}}}
		}).Obj(), "addOn must name a resourceName and a scoreName"},
		"weight out of range": {placement().BuiltInPrioritizer(Balance, 11).Obj(), "weight is 11: it must be between -10 and 10"},
		"bad CEL": {placement().Predicate(clusterv1beta1.ClusterSelector{CelSelector: clusterv1beta1.ClusterCelSelector{
			CelExpressions: []string{`managedCluster.metadata.labels["a"] ==`}}}).Obj(),
			`spec.predicates[0].requiredClusterSelector.celSelector.celExpressions[0] "managedCluster.metadata.labels[\"a\"] ==" does not compile`},
		"CEL that is not a bool": {placement().Predicate(clusterv1beta1.ClusterSelector{CelSelector: clusterv1beta1.ClusterCelSelector{
			CelExpressions: []string{`"x"`}}}).Obj(), "it must be a bool"},
		"bad label selector": {placement().Predicate(clusterv1beta1.ClusterSelector{LabelSelector: metav1.LabelSelector{
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Near"}}}}).Obj(), "labelSelector is invalid"},
		"toleration without key and not Exists": {placement().Tolerate(clusterv1beta1.Toleration{Value: "x"}).Obj(),
			"spec.tolerations[0] has no key, so its operator must be Exists"},
		"toleration Exists with a value": {placement().Tolerate(clusterv1beta1.Toleration{Key: "k", Operator: clusterv1beta1.TolerationOpExists, Value: "x"}).Obj(),
			"so its value must be empty"},
		"spread with an unknown key type": {placement().With(func(p *clusterv1beta1.Placement) {
			p.Spec.SpreadPolicy.SpreadConstraints = []clusterv1beta1.SpreadConstraintsTerm{{TopologyKey: "zone", TopologyKeyType: "Annotation"}}
		}).Obj(), `topologyKeyType is "Annotation"`},
		"clustersPerDecisionGroup neither a number nor a percentage": {placement().With(func(p *clusterv1beta1.Placement) {
			p.Spec.DecisionStrategy.GroupStrategy.ClustersPerDecisionGroup = intstr.FromString("half")
		}).Obj(), `clustersPerDecisionGroup is "half"`},
		"bad scoreRateLimit": {placement().With(func(p *clusterv1beta1.Placement) { p.Spec.ScoreRateLimit = "often" }).Obj(),
			`spec.scoreRateLimit is "often"`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := newFleet(cluster("a")).schedule(tc.placement)
			if r.Misconfigured == nil {
				t.Fatalf("not misconfigured; selected %v", selectedNames(r))
			}
			if !strings.Contains(r.Misconfigured.Error(), tc.message) {
				t.Errorf("message %q, want it to contain %q", r.Misconfigured, tc.message)
			}
			conds := r.Conditions(3)
			if conds[1].Type != clusterv1beta1.PlacementConditionMisconfigured || conds[1].Status != metav1.ConditionTrue || conds[1].ObservedGeneration != 3 {
				t.Errorf("misconfigured condition %+v", conds[1])
			}
			if conds[0].Status != metav1.ConditionFalse || conds[0].Reason != ReasonMisconfiguredSpec {
				t.Errorf("satisfied condition %+v", conds[0])
			}
		})
	}
}

func TestNumberOfClusters(t *testing.T) {
	f := newFleet(cluster("a"), cluster("b"), cluster("c"))
	cases := map[string]struct {
		placement *clusterv1beta1.Placement
		want      []string
		status    metav1.ConditionStatus
		reason    string
		message   string
	}{
		"unset: every match":      {placement().Obj(), []string{"a", "b", "c"}, metav1.ConditionTrue, ReasonAllScheduled, "3 clusters selected"},
		"fewer than match":        {placement().NumberOfClusters(2).Obj(), []string{"a", "b"}, metav1.ConditionTrue, ReasonAllScheduled, "2 clusters selected"},
		"as many as match":        {placement().NumberOfClusters(3).Obj(), []string{"a", "b", "c"}, metav1.ConditionTrue, ReasonAllScheduled, "3 clusters selected"},
		"more than match":         {placement().NumberOfClusters(5).Obj(), []string{"a", "b", "c"}, metav1.ConditionFalse, ReasonNotAllScheduled, "3 clusters match, 5 wanted"},
		"zero, as OCM says":       {placement().NumberOfClusters(0).Obj(), []string{}, metav1.ConditionFalse, ReasonNoClusterMatched, "numberOfClusters is 0"},
		"none match, some wanted": {placement().NumberOfClusters(2).RequireLabels("x", "y").Obj(), []string{}, metav1.ConditionFalse, ReasonNoClusterMatched, "none of the 3 candidate clusters matches the placement's predicates and tolerations, 2 wanted"},
		"none match, zero wanted": {placement().NumberOfClusters(0).RequireLabels("x", "y").Obj(), []string{}, metav1.ConditionFalse, ReasonNoClusterMatched, "none of the 3 candidate clusters matches"},
		"none match, all wanted":  {placement().RequireLabels("x", "y").Obj(), []string{}, metav1.ConditionFalse, ReasonNoClusterMatched, "none of the 3 candidate clusters matches"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := f.schedule(tc.placement)
			if diff := cmp.Diff(tc.want, selectedNames(r)); diff != "" {
				t.Errorf("selected (-want +got):\n%s", diff)
			}
			c := r.Conditions(1)[0]
			if c.Status != tc.status || c.Reason != tc.reason || !strings.Contains(c.Message, tc.message) {
				t.Errorf("PlacementSatisfied %s %s %q, want %s %s containing %q", c.Status, c.Reason, c.Message, tc.status, tc.reason, tc.message)
			}
		})
	}
}

func TestAClusterBeingDeletedIsNotPlaced(t *testing.T) {
	f := newFleet(cluster("a"), cluster("b").Finalizer(clusterv1.ManagedClusterFinalizer).Deleting(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)), cluster("c")).decided("p", "a", "b")
	r := f.schedule(placement().NumberOfClusters(2).Obj())
	if diff := cmp.Diff([]string{"a", "c"}, selectedNames(r)); diff != "" {
		t.Errorf("selected (-want +got):\n%s", diff)
	}
}

func TestSpreadPolicy(t *testing.T) {
	zones := newFleet(
		cluster("a1").Label("zone", "a"), cluster("a2").Label("zone", "a"), cluster("a3").Label("zone", "a"),
		cluster("b1").Label("zone", "b"), cluster("b2").Label("zone", "b"), cluster("c1").Label("zone", "c"), cluster("x"))
	term := func(skew int32, when clusterv1beta1.UnsatisfiableMaxSkewAction) func(*clusterv1beta1.Placement) {
		return func(p *clusterv1beta1.Placement) {
			p.Spec.SpreadPolicy.SpreadConstraints = []clusterv1beta1.SpreadConstraintsTerm{
				{TopologyKey: "zone", TopologyKeyType: clusterv1beta1.TopologyKeyTypeLabel, MaxSkew: skew, WhenUnsatisfiable: when}}
		}
	}
	cases := map[string]struct {
		placement *clusterv1beta1.Placement
		want      []string
	}{
		"maxSkew 1 spreads over the zones": {placement().NumberOfClusters(3).ExactPrioritizers().With(term(1, clusterv1beta1.DoNotSchedule)).Obj(), []string{"a1", "b1", "c1"}},
		"maxSkew 2 lets a zone run ahead":  {placement().NumberOfClusters(3).ExactPrioritizers().With(term(2, clusterv1beta1.DoNotSchedule)).Obj(), []string{"a1", "a2", "b1"}},
		"DoNotSchedule stops when the skew would break, and skips a cluster without the key": {
			placement().NumberOfClusters(7).ExactPrioritizers().With(term(1, clusterv1beta1.DoNotSchedule)).Obj(), []string{"a1", "b1", "c1", "a2", "b2"}},
		"ScheduleAnyway goes on past the skew": {placement().NumberOfClusters(6).ExactPrioritizers().With(term(1, clusterv1beta1.ScheduleAnyway)).Obj(),
			[]string{"a1", "b1", "c1", "a2", "b2", "x"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := zones.schedule(tc.placement)
			if r.Misconfigured != nil {
				t.Fatal(r.Misconfigured)
			}
			if diff := cmp.Diff(tc.want, selectedNames(r)); diff != "" {
				t.Errorf("selected (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecisionGroupsAndPages(t *testing.T) {
	var clusters []*builder.ClusterBuilder
	for i := range 250 {
		b := cluster(fmt.Sprintf("c%03d", i))
		if i%5 == 0 {
			b.Label("canary", "true")
		}
		clusters = append(clusters, b)
	}
	f := newFleet(clusters...)
	type page struct {
		Name  string
		Index int
		Group string
		N     int
	}
	cases := map[string]struct {
		placement *clusterv1beta1.Placement
		groups    []int
		pages     []page
	}{
		"no strategy: one group, pages of 100": {
			placement: placement().Obj(), groups: []int{250},
			pages: []page{{"p-decision-1", 0, "", 100}, {"p-decision-2", 0, "", 100}, {"p-decision-3", 0, "", 50}},
		},
		"clustersPerDecisionGroup as a number": {
			placement: placement().With(func(p *clusterv1beta1.Placement) {
				p.Spec.DecisionStrategy.GroupStrategy.ClustersPerDecisionGroup = intstr.FromInt32(120)
			}).Obj(), groups: []int{120, 120, 10},
			pages: []page{{"p-decision-1", 0, "", 100}, {"p-decision-2", 0, "", 20}, {"p-decision-3", 1, "", 100},
				{"p-decision-4", 1, "", 20}, {"p-decision-5", 2, "", 10}},
		},
		"clustersPerDecisionGroup as a percentage, rounded up": {
			placement: placement().NumberOfClusters(10).With(func(p *clusterv1beta1.Placement) {
				p.Spec.DecisionStrategy.GroupStrategy.ClustersPerDecisionGroup = intstr.FromString("25%")
			}).Obj(), groups: []int{3, 3, 3, 1},
			pages: []page{{"p-decision-1", 0, "", 3}, {"p-decision-2", 1, "", 3}, {"p-decision-3", 2, "", 3}, {"p-decision-4", 3, "", 1}},
		},
		"predefined groups first, the rest after": {
			placement: placement().With(func(p *clusterv1beta1.Placement) {
				p.Spec.DecisionStrategy.GroupStrategy.DecisionGroups = []clusterv1beta1.DecisionGroup{{GroupName: "canary",
					ClusterSelector: clusterv1beta1.GroupClusterSelector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"canary": "true"}}}}}
				p.Spec.DecisionStrategy.GroupStrategy.ClustersPerDecisionGroup = intstr.FromInt32(150)
			}).Obj(), groups: []int{50, 150, 50},
			pages: []page{{"p-decision-1", 0, "canary", 50}, {"p-decision-2", 1, "", 100}, {"p-decision-3", 1, "", 50}, {"p-decision-4", 2, "", 50}},
		},
		"nothing selected: one empty page": {
			placement: placement().NumberOfClusters(0).Obj(), groups: []int{0}, pages: []page{{"p-decision-1", 0, "", 0}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := f.schedule(tc.placement)
			var groups []int
			for i, g := range r.Groups {
				if g.Index != i {
					t.Errorf("group %d has index %d", i, g.Index)
				}
				groups = append(groups, len(g.Clusters))
			}
			if diff := cmp.Diff(tc.groups, groups); diff != "" {
				t.Errorf("group sizes (-want +got):\n%s", diff)
			}
			var pages []page
			seen := map[string]bool{}
			for _, pg := range r.Pages("p") {
				pages = append(pages, page{pg.Name, pg.GroupIndex, pg.GroupName, len(pg.Decisions)})
				for _, d := range pg.Decisions {
					if seen[d.ClusterName] {
						t.Errorf("cluster %s is in two pages", d.ClusterName)
					}
					seen[d.ClusterName] = true
				}
				l := pg.Labels("p")
				if l[clusterv1beta1.PlacementLabel] != "p" || l[clusterv1beta1.DecisionGroupIndexLabel] != fmt.Sprint(pg.GroupIndex) ||
					l[clusterv1beta1.DecisionGroupNameLabel] != pg.GroupName {
					t.Errorf("page %s labels %v", pg.Name, l)
				}
			}
			if diff := cmp.Diff(tc.pages, pages); diff != "" {
				t.Errorf("pages (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSortByScore(t *testing.T) {
	f := newFleet(cluster("a").CPU("1", "8"), cluster("b").CPU("8", "8"), cluster("c").CPU("4", "8"))
	p := placement().ExactPrioritizers().BuiltInPrioritizer(ResourceAllocatableCPU, 1).Obj()
	byName := f.schedule(p).Pages("p")[0].Decisions
	p.Spec.SortBy = clusterv1beta1.PlacementSortByScore
	byScore := f.schedule(p).Pages("p")[0].Decisions
	names := func(ds []clusterv1beta1.ClusterDecision) []string {
		var out []string
		for _, d := range ds {
			out = append(out, d.ClusterName)
		}
		return out
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, names(byName)); diff != "" {
		t.Errorf("by name (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"b", "c", "a"}, names(byScore)); diff != "" {
		t.Errorf("by score (-want +got):\n%s", diff)
	}
	if byScore[0].Score != 100 {
		t.Errorf("decision score %d, want 100", byScore[0].Score)
	}
}

func TestSortByScoreOrdersAcrossPages(t *testing.T) {
	// 250 clusters whose allocatable CPU falls as their names rise: the
	// best 100 by score are c249…c150, the last by name.
	var clusters []*builder.ClusterBuilder
	for i := range 250 {
		clusters = append(clusters, cluster(fmt.Sprintf("c%03d", i)).CPU(fmt.Sprint(i+1), "256"))
	}
	p := placement().ExactPrioritizers().BuiltInPrioritizer(ResourceAllocatableCPU, 1).With(func(p *clusterv1beta1.Placement) {
		p.Spec.SortBy = clusterv1beta1.PlacementSortByScore
	}).Obj()
	pages := newFleet(clusters...).schedule(p).Pages("p")
	if len(pages) != 3 {
		t.Fatalf("%d pages, want 3", len(pages))
	}
	first := pages[0].Decisions
	if first[0].ClusterName != "c249" || first[99].ClusterName != "c150" {
		t.Errorf("the first page runs from %s to %s, want c249 (best) to c150: the best 100 come first", first[0].ClusterName, first[99].ClusterName)
	}
	var last int64 = 101
	for _, pg := range pages {
		for _, d := range pg.Decisions {
			if d.Score > last {
				t.Fatalf("%s scores %d after a decision scoring %d: not in score order across pages", d.ClusterName, d.Score, last)
			}
			last = d.Score
		}
	}
}

func TestExplainSaysWhyEachClusterWasLeftOut(t *testing.T) {
	f := newFleet(cluster("a").Label("env", "prod"), cluster("b").Label("env", "dev"), cluster("c").Label("env", "prod"),
		cluster("d").Label(clusterv1beta1.PlacementLabel, "x").Label("cluster.open-cluster-management.io/clusterset", "other"))
	r := f.schedule(placement().NumberOfClusters(1).RequireLabels("env", "prod").Obj())
	want := map[string]string{"a": "", "b": FilterPredicate, "c": "", "d": FilterClusterSet}
	for c, dropped := range want {
		if got := explained(r, c).DroppedBy; got != dropped {
			t.Errorf("%s dropped by %q, want %q", c, got, dropped)
		}
	}
	if ex := explained(r, "a"); !ex.Selected || ex.Rank != 1 || len(ex.Scores) != 2 {
		t.Errorf("a: %+v, want selected, rank 1, two scores", ex)
	}
	if ex := explained(r, "c"); ex.Selected || ex.Note != "ranked 2; 1 wanted" {
		t.Errorf("c: %+v, want not selected with a note", ex)
	}
}

func TestTheFewBestAreTheBestOfAFullRanking(t *testing.T) {
	var clusters []*builder.ClusterBuilder
	for i := range 200 {
		clusters = append(clusters, cluster(fmt.Sprintf("c%03d", i)).CPU(fmt.Sprint(1+i%7), "8"))
	}
	f := newFleet(clusters...).decided("x", "c006", "c013")
	p := placement().NumberOfClusters(10).ExactPrioritizers().BuiltInPrioritizer(ResourceAllocatableCPU, 1).BuiltInPrioritizer(Balance, 1).Obj()
	fast := Schedule(p, f.snapshot(), Options{Now: now})
	full := Schedule(p, f.snapshot(), Options{Now: now, Explain: true})
	if diff := cmp.Diff(full.Selected, fast.Selected); diff != "" {
		t.Errorf("top 10 (-full ranking +one pass):\n%s", diff)
	}
}
