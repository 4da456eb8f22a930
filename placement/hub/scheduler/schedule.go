package scheduler

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/corral-dev/corral/internal/clusterselector"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
)

// Schedule decides which clusters p selects in snap. It only reads its
// arguments.
func Schedule(p *clusterv1beta1.Placement, snap Snapshot, opts Options) *Result {
	plan, err := Compile(p, snap)
	if err != nil {
		return &Result{Misconfigured: err, MisconfiguredMessage: err.Error()}
	}
	return plan.Schedule(snap, opts)
}

// SchedulingDisabled says whether the placement carries the api's
// PlacementDisableAnnotation set to "true": a hub's scheduler then leaves
// it and its decisions to another controller, as OCM's does.
func SchedulingDisabled(p *clusterv1beta1.Placement) bool {
	return p.Annotations[clusterv1beta1.PlacementDisableAnnotation] == "true"
}

// Plan is a placement compiled to be scheduled again and again: its
// selectors parsed, its CEL compiled, its prioritizers weighed.
type Plan struct {
	p *clusterv1beta1.Placement
	c *compiled
}

// Compile checks and compiles p; a spec the scheduler cannot act on is a
// *MisconfiguredError. CEL's scores() reads AddOnPlacementScores from
// snap, which must live as long as the plan.
func Compile(p *clusterv1beta1.Placement, snap Snapshot) (*Plan, error) {
	c, err := compile(p, clusterselector.NewCompiler(snap))
	if err != nil {
		return nil, err
	}
	return &Plan{p: p, c: c}, nil
}

// For is the plan for p, a newer version of the plan's placement with the
// same spec: it shares the compiled spec, and lets the older version go.
func (pl *Plan) For(p *clusterv1beta1.Placement) *Plan { return &Plan{p: p, c: pl.c} }

// Placement is the placement the plan was compiled from.
func (pl *Plan) Placement() *clusterv1beta1.Placement { return pl.p }

// Schedule decides which clusters the plan's placement selects in snap.
func (pl *Plan) Schedule(snap Snapshot, opts Options) *Result {
	p, c := pl.p, pl.c
	r := &Result{Namespace: p.Namespace, Wanted: c.wanted, SortByScore: c.sortByScore}
	r.BoundSets = snap.BoundSets(p.Namespace)
	r.EligibleSets = eligible(r.BoundSets, p.Spec.ClusterSets)
	decided := snap.Decided(p.Namespace, p.Name)
	for _, pr := range c.prioritizers {
		r.Prioritizers = append(r.Prioritizers, Weight{Name: pr.name, Weight: pr.weight})
	}

	// Filters.
	var (
		feasible  []*clusterv1.ManagedCluster
		preferNot []bool
		requeue   time.Time
		explained map[string]*ClusterResult
	)
	if opts.Explain {
		explained = map[string]*ClusterResult{}
	}
	for _, cluster := range snap.Clusters() {
		var ex *ClusterResult
		if opts.Explain {
			r.Clusters = append(r.Clusters, ClusterResult{Name: cluster.Name})
			ex = &r.Clusters[len(r.Clusters)-1]
		}
		ok, why := inSets(snap.SetsOf(cluster.Name), r.EligibleSets, opts.Explain)
		if !record(ex, FilterClusterSet, ok, why) {
			continue
		}
		r.Candidates++
		ok, why = c.matchesPredicates(cluster, opts.Explain)
		if !record(ex, FilterPredicate, ok, why) {
			continue
		}
		v := tolerate(cluster, p.Spec.Tolerations, decided.Has(cluster.Name), opts.Now, opts.Explain)
		if !record(ex, FilterTaintToleration, v.pass, v.why) {
			continue
		}
		if !v.until.IsZero() && (requeue.IsZero() || v.until.Before(requeue)) {
			requeue = v.until
		}
		feasible = append(feasible, cluster)
		preferNot = append(preferNot, v.preferNot)
	}
	r.Feasible = len(feasible)
	if opts.Explain {
		for i := range r.Clusters {
			explained[r.Clusters[i].Name] = &r.Clusters[i]
		}
	}

	// Prioritizers.
	totals := make([]int64, len(feasible))
	in := &scoreInput{snap: snap, decided: decided, spread: c.spread, now: opts.Now, feasible: feasible, namespace: p.Namespace, name: p.Name}
	scores := make([]int64, len(feasible))
	for _, pr := range c.prioritizers {
		clear(scores)
		if until := pr.score(in, scores); !until.IsZero() && (requeue.IsZero() || until.Before(requeue)) {
			requeue = until
		}
		for i, s := range scores {
			totals[i] += s * int64(pr.weight)
			if opts.Explain {
				ex := explained[feasible[i].Name]
				ex.Scores = append(ex.Scores, PrioritizerScore{Prioritizer: pr.name, Weight: pr.weight, Score: s})
			}
		}
	}
	r.Ranges = in.ranges

	// Rank: a cluster the placement would rather avoid last, then the
	// highest total, then by name.
	order := make([]int, len(feasible))
	for i := range order {
		order[i] = i
	}
	rank := func(a, b int) int {
		if preferNot[a] != preferNot[b] {
			if preferNot[a] {
				return 1
			}
			return -1
		}
		if totals[a] != totals[b] {
			return cmp.Compare(totals[b], totals[a])
		}
		return strings.Compare(feasible[a].Name, feasible[b].Name)
	}
	if !opts.Explain && len(c.spread) == 0 && c.wanted >= 0 && c.wanted < len(order)/8 {
		// Only the best few matter, and the best left out for the
		// margin: keep them, sorted, in one pass.
		order = topK(order, c.wanted+1, rank)
	} else {
		slices.SortFunc(order, rank)
	}
	r.Margin = margin(c, order, totals, preferNot)
	chosen, notes := choose(c, feasible, order, opts.Explain)
	for _, i := range chosen {
		r.Selected = append(r.Selected, Decision{Cluster: feasible[i].Name, Score: totals[i]})
	}
	r.Groups = groups(c, r.Selected, feasible, chosen)
	if !requeue.IsZero() {
		r.RequeueAfter = max(requeue.Sub(opts.Now), time.Millisecond)
	}
	if opts.Explain {
		explainRanks(r, explained, feasible, order, totals, preferNot, notes)
	}
	return r
}

// margin is Result.Margin of the ranked order.
func margin(c *compiled, order []int, totals []int64, preferNot []bool) int64 {
	switch {
	case len(c.spread) > 0:
		return 0
	case c.wanted <= 0 || c.wanted >= len(order):
		return math.MaxInt64
	}
	last, next := order[c.wanted-1], order[c.wanted]
	if preferNot[last] != preferNot[next] {
		return math.MaxInt64 // a PreferNoSelect cluster ranks last whatever its score
	}
	return totals[last] - totals[next]
}

// topK returns the k best of order by rank, best first.
func topK(order []int, k int, rank func(a, b int) int) []int {
	best := make([]int, 0, k+1)
	for _, i := range order {
		if len(best) == k && (k == 0 || rank(i, best[k-1]) >= 0) {
			continue
		}
		pos, _ := slices.BinarySearchFunc(best, i, rank)
		best = slices.Insert(best, pos, i)
		if len(best) > k {
			best = best[:k]
		}
	}
	return best
}

// record adds a filter's verdict to ex (when explaining) and returns it.
func record(ex *ClusterResult, filter string, passed bool, why string) bool {
	if ex != nil {
		ex.Filters = append(ex.Filters, FilterResult{Filter: filter, Passed: passed, Detail: why})
		if !passed {
			ex.DroppedBy = filter
		}
	}
	return passed
}

// eligible are the bound sets the placement may use: all of them, or
// those spec.clusterSets names too.
func eligible(bound, wanted []string) []string {
	if len(wanted) == 0 {
		return bound
	}
	var out []string
	for _, s := range bound {
		if slices.Contains(wanted, s) {
			out = append(out, s)
		}
	}
	return out
}

func explainRanks(r *Result, explained map[string]*ClusterResult, feasible []*clusterv1.ManagedCluster, order []int, totals []int64, preferNot []bool, notes map[int]string) {
	for rank, i := range order {
		ex := explained[feasible[i].Name]
		ex.Total, ex.Rank = totals[i], rank+1
		if preferNot[i] {
			ex.Note = "a PreferNoSelect taint it does not tolerate ranks it last"
		}
		if n, ok := notes[i]; ok {
			ex.Note = n
		}
	}
	for _, g := range r.Groups {
		for _, d := range g.Clusters {
			ex := explained[d.Cluster]
			ex.Selected, ex.Group = true, groupLabel(g)
		}
	}
	for _, i := range order {
		if ex := explained[feasible[i].Name]; !ex.Selected && ex.Note == "" {
			ex.Note = fmt.Sprintf("ranked %d; %d wanted", ex.Rank, r.Wanted)
		}
	}
}

func groupLabel(g Group) string {
	if g.Name == "" {
		return fmt.Sprint(g.Index)
	}
	return fmt.Sprintf("%d (%s)", g.Index, g.Name)
}
