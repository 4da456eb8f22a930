package scheduler

import (
	"fmt"
	"slices"
	"strings"

	clusterv1 "open-cluster-management.io/api/cluster/v1"
)

// choose picks, from the feasible clusters in rank order, the wanted
// number: the best ranked, or with spread constraints the best ranked that
// keep every topology within its maxSkew. With explain, notes says why a
// cluster was passed over for the spread.
func choose(c *compiled, feasible []*clusterv1.ManagedCluster, order []int, explain bool) ([]int, map[int]string) {
	wanted := c.wanted
	if wanted < 0 || wanted > len(order) {
		wanted = len(order)
	}
	if len(c.spread) == 0 {
		return order[:wanted:wanted], nil
	}
	return spreadChoose(c.spread, feasible, order, wanted, explain)
}

// spreadState counts the chosen clusters by topology for one term.
type spreadState struct {
	term   *spreadTerm
	counts map[string]int
}

// skewAfter is the term's skew if a cluster of domain d were added: its
// domain's count minus the smallest count of any domain.
func (s *spreadState) skewAfter(d string) int {
	n := s.counts[d] + 1
	low := n
	for dom, c := range s.counts {
		if dom != d && c < low {
			low = c
		}
	}
	return n - low
}

// spreadChoose picks clusters one at a time: the best ranked that breaks
// no DoNotSchedule term (a cluster without the term's key cannot be
// placed by it) and, among those, breaks the fewest ScheduleAnyway terms,
// the earlier terms weighing more. It stops early when only clusters
// breaking a DoNotSchedule term are left.
func spreadChoose(terms []spreadTerm, feasible []*clusterv1.ManagedCluster, order []int, wanted int, explain bool) ([]int, map[int]string) {
	states := make([]spreadState, len(terms))
	for t := range terms {
		states[t] = spreadState{term: &terms[t], counts: map[string]int{}}
		for _, i := range order {
			if d, ok := terms[t].domain(feasible[i]); ok {
				states[t].counts[d] += 0
			}
		}
	}
	var (
		chosen []int
		notes  map[int]string
		left   = slices.Clone(order)
	)
	if explain {
		notes = map[int]string{}
	}
	for len(chosen) < wanted && len(left) > 0 {
		best, bestBreaks := -1, ""
		for pos, i := range left {
			breaks, blocked := spreadBreaks(states, feasible[i])
			if blocked != "" {
				if explain {
					notes[i] = blocked
				}
				continue
			}
			if best < 0 || breaks < bestBreaks {
				best, bestBreaks = pos, breaks
			}
			if !strings.Contains(breaks, "1") {
				break
			}
		}
		if best < 0 {
			break
		}
		i := left[best]
		left = slices.Delete(left, best, best+1)
		chosen = append(chosen, i)
		delete(notes, i)
		for t := range states {
			if d, ok := states[t].term.domain(feasible[i]); ok {
				states[t].counts[d]++
			}
		}
	}
	return chosen, notes
}

// spreadBreaks says which ScheduleAnyway terms adding the cluster would
// break ("0110": the second and third), or why a DoNotSchedule term
// forbids it.
func spreadBreaks(states []spreadState, c *clusterv1.ManagedCluster) (string, string) {
	var b strings.Builder
	for t := range states {
		s := &states[t]
		d, ok := s.term.domain(c)
		switch {
		case !ok && s.term.hard:
			return "", fmt.Sprintf("has no topology key %s (DoNotSchedule)", s.term.key)
		case !ok:
			b.WriteByte('0')
		case s.skewAfter(d) > s.term.maxSkew && s.term.hard:
			return "", fmt.Sprintf("%s=%s would exceed maxSkew %d (DoNotSchedule)", s.term.key, d, s.term.maxSkew)
		case s.skewAfter(d) > s.term.maxSkew:
			b.WriteByte('1')
		default:
			b.WriteByte('0')
		}
	}
	return b.String(), ""
}
