package hub

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/corral-dev/corral/placement/hub/scheduler"
)

var t0 = time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)

func TestHoldScores(t *testing.T) {
	type decision = clusterv1beta1.ClusterDecision
	held := []decision{{ClusterName: "a", Score: 30}, {ClusterName: "b", Score: 20}}
	cases := map[string]struct {
		selected    []scheduler.Decision
		written     time.Time // LastScoreUpdateTime; zero: none
		limit       time.Duration
		sortBy      bool
		want        []decision
		wantNew     bool
		wantHeldFor time.Duration
	}{
		"same clusters, scores written 10s ago: held for the 50s left": {
			selected: []scheduler.Decision{{Cluster: "a", Score: 35}, {Cluster: "b", Score: 20}}, written: t0.Add(-10 * time.Second), limit: time.Minute,
			want: held, wantHeldFor: 50 * time.Second,
		},
		"same clusters, scores written a minute ago: written": {
			selected: []scheduler.Decision{{Cluster: "a", Score: 35}, {Cluster: "b", Score: 20}}, written: t0.Add(-time.Minute), limit: time.Minute,
			want: []decision{{ClusterName: "a", Score: 35}, {ClusterName: "b", Score: 20}}, wantNew: true,
		},
		"no limit: written": {
			selected: []scheduler.Decision{{Cluster: "a", Score: 35}, {Cluster: "b", Score: 20}}, written: t0, limit: 0,
			want: []decision{{ClusterName: "a", Score: 35}, {ClusterName: "b", Score: 20}}, wantNew: true,
		},
		"other clusters: written at once": {
			selected: []scheduler.Decision{{Cluster: "a", Score: 35}, {Cluster: "c", Score: 25}}, written: t0, limit: time.Minute,
			want: []decision{{ClusterName: "a", Score: 35}, {ClusterName: "c", Score: 25}}, wantNew: true,
		},
		"the same scores: nothing new": {
			selected: []scheduler.Decision{{Cluster: "a", Score: 30}, {Cluster: "b", Score: 20}}, written: t0, limit: time.Minute, want: held,
		},
		"sorted by score: ordered by the scores held": {
			selected: []scheduler.Decision{{Cluster: "b", Score: 50}, {Cluster: "a", Score: 30}}, written: t0, limit: time.Minute, sortBy: true,
			want: held, wantHeldFor: time.Minute,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := &clusterv1beta1.Placement{}
			if !tc.written.IsZero() {
				p.Status.LastScoreUpdateTime = &metav1.Time{Time: tc.written}
			}
			r := &scheduler.Result{Selected: tc.selected, Groups: []scheduler.Group{{Clusters: tc.selected}}, SortByScore: tc.sortBy}
			w := &work{placement: p, result: r, now: t0, scoreLimit: tc.limit,
				held: map[string]*clusterv1beta1.PlacementDecision{"p-decision-1": {Status: clusterv1beta1.PlacementDecisionStatus{Decisions: held}}}}
			got := holdScores(w)
			if got != tc.wantNew || w.heldFor != tc.wantHeldFor {
				t.Errorf("holdScores = %v, held for %s; want %v, %s", got, w.heldFor, tc.wantNew, tc.wantHeldFor)
			}
			pages := w.result.Pages("p")
			if diff := cmp.Diff(tc.want, pages[0].Decisions); diff != "" {
				t.Errorf("decisions (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHoldScoresOrdersAcrossPages: with sortBy Score, the held scores
// order a group across all its pages, so the first page holds the best
// by the scores shown, not only each page sorted on its own.
func TestHoldScoresOrdersAcrossPages(t *testing.T) {
	const n = 150
	var selected []scheduler.Decision
	held := map[string]*clusterv1beta1.PlacementDecision{"p-decision-1": {}, "p-decision-2": {}}
	for i := range n {
		name := fmt.Sprintf("c%03d", i)
		// Fresh scores rank c000 first; the held ones rank c149 first.
		selected = append(selected, scheduler.Decision{Cluster: name, Score: int64(n - i)})
		page := held[fmt.Sprintf("p-decision-%d", 1+i/scheduler.MaxDecisionsPerPage)]
		page.Status.Decisions = append(page.Status.Decisions, clusterv1beta1.ClusterDecision{ClusterName: name, Score: int64(i)})
	}
	p := &clusterv1beta1.Placement{}
	p.Status.LastScoreUpdateTime = &metav1.Time{Time: t0}
	r := &scheduler.Result{Selected: selected, Groups: []scheduler.Group{{Clusters: selected}}, SortByScore: true}
	w := &work{placement: p, result: r, now: t0, scoreLimit: time.Minute, held: held}
	if holdScores(w) {
		t.Fatal("holdScores says the scores are new; want them held")
	}
	pages := w.result.Pages("p")
	if len(pages) != 2 {
		t.Fatalf("%d pages, want 2", len(pages))
	}
	var got []string
	for _, pg := range pages {
		for _, d := range pg.Decisions {
			got = append(got, fmt.Sprintf("%s=%d", d.ClusterName, d.Score))
		}
	}
	var want []string
	for i := n - 1; i >= 0; i-- {
		want = append(want, fmt.Sprintf("c%03d=%d", i, i))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decisions across pages (-want +got):\n%s", diff)
	}
	if r.Groups[0].Clusters[0].Score != n {
		t.Errorf("the scheduler's result was changed: first score %d, want %d", r.Groups[0].Clusters[0].Score, n)
	}
}

func TestAfterScoreChange(t *testing.T) {
	byScore := &clusterv1beta1.Placement{Spec: clusterv1beta1.PlacementSpec{ScoreRateLimit: "1m",
		PrioritizerPolicy: clusterv1beta1.PrioritizerPolicy{Mode: clusterv1beta1.PrioritizerPolicyModeExact,
			Configurations: []clusterv1beta1.PrioritizerConfig{{Weight: 1, ScoreCoordinate: &clusterv1beta1.ScoreCoordinate{
				Type: clusterv1beta1.ScoreCoordinateTypeAddOn, AddOn: &clusterv1beta1.AddOnScore{ResourceName: "demo", ScoreName: "demo"}}}}}}}
	byCEL := byScore.DeepCopy()
	byCEL.Spec.Predicates = []clusterv1beta1.ClusterPredicate{{RequiredClusterSelector: clusterv1beta1.ClusterSelector{
		CelSelector: clusterv1beta1.ClusterCelSelector{CelExpressions: []string{`managedCluster.scores("demo").all(s, s.value > 10)`}}}}}
	type change struct {
		held  bool
		delta int64
	}
	cases := map[string]struct {
		placement *clusterv1beta1.Placement
		never     bool // never scheduled
		changes   []change
		// want is the last change's verdict: -1 never, else the wait.
		want time.Duration
	}{
		"never scheduled: at once":                          {placement: byScore, never: true, changes: []change{{false, 1}}, want: 0},
		"a CEL predicate reads scores: at once":             {placement: byCEL, changes: []change{{true, 0}}, want: 0},
		"no total moves: never":                             {placement: byScore, changes: []change{{true, 0}}, want: -1},
		"a move as large as the margin: at once":            {placement: byScore, changes: []change{{false, -10}}, want: 0},
		"smaller moves adding up to the margin: at once":    {placement: byScore, changes: []change{{false, 4}, {true, -6}}, want: 0},
		"a small move of a cluster not held: never":         {placement: byScore, changes: []change{{false, 4}}, want: -1},
		"a small move of a cluster held: at the rate limit": {placement: byScore, changes: []change{{true, 4}}, want: 40 * time.Second},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := &Controller{opts: Options{ScoreInterval: DefaultScoreInterval}}
			p := tc.placement.DeepCopy()
			p.Status.LastScoreUpdateTime = &metav1.Time{Time: t0.Add(-20 * time.Second)}
			plan, err := scheduler.Compile(p, scheduler.NewSnapshot(nil, nil, nil, nil, nil))
			if err != nil {
				t.Fatal(err)
			}
			e := &entry{placement: p, plan: plan}
			if !tc.never {
				e.last.Store(&scheduler.Memo{Margin: 10})
			}
			got := time.Duration(-1)
			for _, ch := range tc.changes {
				got = -1
				if wait, ok := c.afterScoreChange(e, ch.held, ch.delta, t0); ok {
					got = wait
				}
			}
			if got != tc.want {
				t.Errorf("after the changes: %s, want %s (-1: never)", got, tc.want)
			}
		})
	}
}
