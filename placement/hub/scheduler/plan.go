package scheduler

import (
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
)

// Version is one version of a cluster (nil when it does not exist) and the
// sets it is in, for Plan.Affected.
type Version struct {
	Cluster *clusterv1.ManagedCluster
	Sets    []string
}

// Affected says whether a change of one cluster from old to new can change
// what the plan's placement decides, last being what it decided last time
// (nil: never): the cluster becomes feasible; it stops being feasible
// and the placement held it, or it bounded the range a resource
// prioritizer scaled the others by; or, feasible before and after, a
// field one of its prioritizers, spread constraints or decision groups
// reads changed; or, when no cluster passed last time, it becomes or
// stops being a candidate, which the PlacementSatisfied condition counts.
// A change that is none of these (a heartbeat, a label nothing reads, a
// cluster the placement did not choose leaving) does not call for
// scheduling it again — with Balance, which changes as other placements
// choose, scheduling it again would move it for nothing.
func (pl *Plan) Affected(snap Snapshot, old, new Version, now time.Time, last *Memo) bool {
	p, c := pl.p, pl.c
	eligibleSets := eligible(snap.BoundSets(p.Namespace), p.Spec.ClusterSets)
	decided := snap.Decided(p.Namespace, p.Name)
	judge := func(v Version) (candidate bool, verdict taintVerdict) {
		if v.Cluster == nil {
			return false, taintVerdict{}
		}
		if ok, _ := inSets(v.Sets, eligibleSets, false); !ok {
			return false, taintVerdict{}
		}
		if ok, _ := c.matchesPredicates(v.Cluster, false); !ok {
			return true, taintVerdict{}
		}
		return true, tolerate(v.Cluster, p.Spec.Tolerations, decided.Has(v.Cluster.Name), now, false)
	}
	candOld, vOld := judge(old)
	candNew, vNew := judge(new)
	switch {
	case last == nil:
		return true
	case !vOld.pass && vNew.pass:
		return true
	case vOld.pass && !vNew.pass:
		return decided.Has(old.Cluster.Name) || c.bounds(old.Cluster, last)
	case !vOld.pass:
		return last.NoneFeasible && candOld != candNew
	case vOld.preferNot != vNew.preferNot || !vOld.until.Equal(vNew.until):
		return true
	}
	return c.readsChanged(old.Cluster, new.Cluster)
}

// bounds says whether the cluster's allocatable was the least or the most
// a resource prioritizer saw last time.
func (c *compiled) bounds(cluster *clusterv1.ManagedCluster, last *Memo) bool {
	for _, r := range last.Ranges {
		if v, ok := Allocatable(cluster, r.Resource); ok && (v <= r.Min || v >= r.Max) {
			return true
		}
	}
	return false
}

// readsChanged says whether a field the prioritizers, spread constraints
// or decision groups read differs between two versions of a cluster.
func (c *compiled) readsChanged(old, new *clusterv1.ManagedCluster) bool {
	if c.usesResource && (!equality.Semantic.DeepEqual(old.Status.Allocatable, new.Status.Allocatable) ||
		!equality.Semantic.DeepEqual(old.Status.Capacity, new.Status.Capacity)) {
		return true
	}
	for i := range c.spread {
		dOld, okOld := c.spread[i].domain(old)
		dNew, okNew := c.spread[i].domain(new)
		if dOld != dNew || okOld != okNew {
			return true
		}
	}
	for i := range c.groups {
		mOld, _ := c.groups[i].sel.Matches(old, false)
		mNew, _ := c.groups[i].sel.Matches(new, false)
		if mOld != mNew {
			return true
		}
	}
	return false
}

// ReadsScore says whether the plan reads the AddOnPlacementScore of that
// name: an AddOn prioritizer names it, or a CEL expression may.
func (pl *Plan) ReadsScore(name string) bool {
	if pl.c.celScores {
		return true
	}
	return slices.ContainsFunc(pl.c.prioritizers, func(pr prioritizer) bool { return pr.addOnResource == name })
}

// ReadsOtherDecisions says whether the plan weighs other placements'
// decisions: a Balance prioritizer, or a Spread one with constraints.
func (pl *Plan) ReadsOtherDecisions() bool {
	return slices.ContainsFunc(pl.c.prioritizers, func(pr prioritizer) bool {
		return pr.weight != 0 && (pr.builtIn == Balance || pr.builtIn == Spread && len(pl.c.spread) > 0)
	})
}

// ReadsScores says whether the plan reads any AddOnPlacementScore: an
// AddOn prioritizer, or a CEL expression that may call scores().
func (pl *Plan) ReadsScores() bool {
	return pl.c.celScores || slices.ContainsFunc(pl.c.prioritizers, func(pr prioritizer) bool { return pr.weight != 0 && pr.addOnResource != "" })
}

// FiltersByScore says whether a score change may change which clusters
// pass the plan's filters: a CEL expression may call scores().
func (pl *Plan) FiltersByScore() bool { return pl.c.celScores }

// ScoreDelta is how much a cluster's total moves when its
// AddOnPlacementScore of that name changes from old to new (nil: none),
// judged at now: the weighted change of each AddOn prioritizer reading it.
func (pl *Plan) ScoreDelta(name string, old, new *clusterv1alpha1.AddOnPlacementScore, now time.Time) int64 {
	var delta int64
	for _, pr := range pl.c.prioritizers {
		if pr.addOnResource == name {
			delta += int64(pr.weight) * (addOnScore(new, pr.addOnScore, now) - addOnScore(old, pr.addOnScore, now))
		}
	}
	return delta
}

// Feasible says whether the cluster, in these sets, passes the plan's
// filters now.
func (pl *Plan) Feasible(snap Snapshot, v Version, now time.Time) bool {
	if v.Cluster == nil {
		return false
	}
	p := pl.p
	if ok, _ := inSets(v.Sets, eligible(snap.BoundSets(p.Namespace), p.Spec.ClusterSets), false); !ok {
		return false
	}
	if ok, _ := pl.c.matchesPredicates(v.Cluster, false); !ok {
		return false
	}
	return tolerate(v.Cluster, p.Spec.Tolerations, snap.Decided(p.Namespace, p.Name).Has(v.Cluster.Name), now, false).pass
}

// ScoreRateLimit is spec.scoreRateLimit, false when the spec leaves it
// out.
func (pl *Plan) ScoreRateLimit() (time.Duration, bool) { return pl.c.scoreLimit, pl.c.scoreLimitSet }
