package scheduler

import (
	"time"

	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
)

// MaxScore and MinScore bound what one prioritizer gives one cluster.
const (
	MaxScore = 100
	MinScore = -100
)

// scoreInput is what the prioritizers read besides the clusters.
type scoreInput struct {
	snap      Snapshot
	decided   Names
	spread    []spreadTerm
	now       time.Time
	feasible  []*clusterv1.ManagedCluster
	namespace string
	name      string
	// ranges record the least and the most allocatable of each resource
	// a prioritizer scaled by.
	ranges []Range
}

// score fills out[i] with the prioritizer's score of in.feasible[i] and
// returns when a score it used stops being valid (zero when none does).
func (pr *prioritizer) score(in *scoreInput, out []int64) time.Time {
	switch pr.builtIn {
	case Balance:
		balance(in, out)
	case Steady:
		for i, c := range in.feasible {
			if in.decided.Has(c.Name) {
				out[i] = MaxScore
			}
		}
	case ResourceAllocatableCPU:
		in.ranges = append(in.ranges, allocatable(in.snap, in.feasible, clusterv1.ResourceCPU, out))
	case ResourceAllocatableMemory:
		in.ranges = append(in.ranges, allocatable(in.snap, in.feasible, clusterv1.ResourceMemory, out))
	case Spread:
		spreadScores(in, out)
	case "":
		return addOnScores(in, pr.addOnResource, pr.addOnScore, out)
	}
	return time.Time{}
}

// usage scales count of max to MaxScore (unused) … MinScore (the most
// used), as OCM's Balance does.
func usage(count, most int) int64 {
	if count == 0 || most == 0 {
		return MaxScore
	}
	return 2 * int64(float64(MaxScore)*(0.5-float64(count)/float64(most)))
}

// balance favours the clusters the fewest other placements selected.
func balance(in *scoreInput, out []int64) {
	counts := in.snap.DecisionCounts()
	most := 0
	for cluster, n := range counts {
		if in.decided.Has(cluster) {
			n--
		}
		most = max(most, n)
	}
	for i, c := range in.feasible {
		n := counts[c.Name]
		if in.decided.Has(c.Name) {
			n--
		}
		out[i] = usage(n, most)
	}
}

// allocatable scales each cluster's allocatable resource between the
// least (MinScore) and the most (MaxScore) among the feasible clusters; a
// cluster that reports no allocatable or capacity scores 0, and all score
// MaxScore when they are equal.
func allocatable(snap Snapshot, feasible []*clusterv1.ManagedCluster, resource clusterv1.ResourceName, out []int64) Range {
	values := make([]float64, len(feasible))
	has := make([]bool, len(feasible))
	lo, hi, seen := 0.0, 0.0, false
	for i, c := range feasible {
		v, ok := snap.Allocatable(c, resource)
		if !ok {
			continue
		}
		values[i], has[i] = v, true
		if !seen || v < lo {
			lo = v
		}
		if !seen || v > hi {
			hi = v
		}
		seen = true
	}
	for i := range feasible {
		switch {
		case !has[i]:
			out[i] = 0
		case hi == lo:
			out[i] = MaxScore
		default:
			out[i] = int64(((values[i]-lo)/(hi-lo) - 0.5) * 2 * MaxScore)
		}
	}
	return Range{Resource: resource, Min: lo, Max: hi}
}

// addOnScores reads the named score of each cluster's AddOnPlacementScore;
// a missing or expired one scores 0. It returns the earliest validUntil
// still to come.
func addOnScores(in *scoreInput, resource, name string, out []int64) time.Time {
	var next time.Time
	for i, c := range in.feasible {
		s := in.snap.Score(c.Name, resource)
		out[i] = addOnScore(s, name, in.now)
		if s != nil && s.Status.ValidUntil != nil && in.now.Before(s.Status.ValidUntil.Time) &&
			(next.IsZero() || s.Status.ValidUntil.Time.Before(next)) {
			next = s.Status.ValidUntil.Time
		}
	}
	return next
}

// addOnScore is the named score of an AddOnPlacementScore at now: 0 when
// the score, or the item, is missing or its validUntil has passed.
func addOnScore(s *clusterv1alpha1.AddOnPlacementScore, name string, now time.Time) int64 {
	if s == nil || s.Status.ValidUntil != nil && !now.Before(s.Status.ValidUntil.Time) {
		return 0
	}
	for _, item := range s.Status.Scores {
		if item.Name == name {
			return int64(clamp(item.Value))
		}
	}
	return 0
}

func clamp(v int32) int32 {
	return min(max(v, MinScore), MaxScore)
}

// spreadScores favours clusters in the topologies (of the spread
// constraints' keys) that the fewest other placements selected clusters
// of: Balance by topology. Without spread constraints every cluster
// scores 0.
func spreadScores(in *scoreInput, out []int64) {
	if len(in.spread) == 0 {
		return
	}
	counts := in.snap.DecisionCounts()
	for _, term := range in.spread {
		byDomain := map[string]int{}
		for _, c := range in.snap.Clusters() {
			n := counts[c.Name]
			if in.decided.Has(c.Name) {
				n--
			}
			if d, ok := term.domain(c); ok && n > 0 {
				byDomain[d] += n
			}
		}
		most := 0
		for _, n := range byDomain {
			most = max(most, n)
		}
		for i, c := range in.feasible {
			if d, ok := term.domain(c); ok {
				out[i] += usage(byDomain[d], most)
			}
		}
	}
	for i := range out {
		out[i] /= int64(len(in.spread))
	}
}

// domain is the cluster's value of the term's topology key.
func (t *spreadTerm) domain(c *clusterv1.ManagedCluster) (string, bool) {
	if !t.claim {
		v, ok := c.Labels[t.key]
		return v, ok
	}
	for _, claim := range c.Status.ClusterClaims {
		if claim.Name == t.key {
			return claim.Value, true
		}
	}
	return "", false
}
