package scheduler

import (
	"fmt"
	"slices"
	"strings"
	"time"

	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
)

// inSets says whether the cluster is in one of eligible; why not, in
// words, when explain.
func inSets(clusterSets, eligible []string, explain bool) (bool, string) {
	for _, s := range clusterSets {
		if slices.Contains(eligible, s) {
			return true, ""
		}
	}
	if !explain {
		return false, ""
	}
	if len(clusterSets) == 0 {
		return false, "in no ManagedClusterSet"
	}
	return false, fmt.Sprintf("its sets (%s) are not bound to the namespace or not in spec.clusterSets", strings.Join(clusterSets, ", "))
}

// matchesPredicates: no predicate matches every cluster; otherwise one
// must match.
func (c *compiled) matchesPredicates(cluster *clusterv1.ManagedCluster, explain bool) (bool, string) {
	if len(c.predicates) == 0 {
		return true, ""
	}
	var why []string
	for i := range c.predicates {
		ok, reason := c.predicates[i].Matches(cluster, explain)
		if ok {
			return true, detail(explain, "matches predicate %d", i)
		}
		if explain {
			why = append(why, fmt.Sprintf("predicate %d: %s", i, reason))
		}
	}
	return false, strings.Join(why, "; ")
}

func detail(explain bool, format string, args ...any) string {
	if !explain {
		return ""
	}
	return fmt.Sprintf(format, args...)
}

// taintVerdict is what a cluster's taints say of one placement.
type taintVerdict struct {
	// pass: no taint keeps the placement off the cluster.
	pass bool
	// preferNot: a PreferNoSelect taint is not tolerated, so the cluster
	// is ranked after every other.
	preferNot bool
	// until is when a toleration with tolerationSeconds runs out, the
	// verdict changing; zero when none does.
	until time.Time
	why   string
}

// tolerate judges the cluster's taints against the tolerations at now;
// inDecision says whether the placement holds the cluster already
// (NoSelectIfNew lets it keep it).
func tolerate(c *clusterv1.ManagedCluster, tolerations []clusterv1beta1.Toleration, inDecision bool, now time.Time, explain bool) taintVerdict {
	v := taintVerdict{pass: true}
	for i := range c.Spec.Taints {
		taint := &c.Spec.Taints[i]
		if taint.Effect == clusterv1.TaintEffectNoSelectIfNew && inDecision {
			continue
		}
		tolerated, until := tolerated(taint, tolerations, now)
		if !until.IsZero() && (v.until.IsZero() || until.Before(v.until)) {
			v.until = until
		}
		if tolerated {
			continue
		}
		switch taint.Effect {
		case clusterv1.TaintEffectPreferNoSelect:
			v.preferNot = true
			if explain && v.why == "" {
				v.why = fmt.Sprintf("taint %s is PreferNoSelect and not tolerated: ranked last", taintString(taint))
			}
		default:
			v.pass = false
			v.why = detail(explain, "taint %s is not tolerated", taintString(taint))
			return v
		}
	}
	return v
}

// tolerated says whether a toleration tolerates the taint at now, and,
// when a toleration with tolerationSeconds does, until when.
// tolerationSeconds counts from the taint's timeAdded and only applies to
// NoSelect and PreferNoSelect.
func tolerated(taint *clusterv1.Taint, tolerations []clusterv1beta1.Toleration, now time.Time) (bool, time.Time) {
	var until time.Time
	for i := range tolerations {
		t := &tolerations[i]
		if !tolerationMatches(t, taint) {
			continue
		}
		if t.TolerationSeconds == nil || taint.Effect == clusterv1.TaintEffectNoSelectIfNew {
			return true, time.Time{}
		}
		end := taint.TimeAdded.Add(time.Duration(*t.TolerationSeconds) * time.Second)
		if now.Before(end) {
			if until.IsZero() || end.After(until) {
				until = end
			}
		}
	}
	return !until.IsZero(), until
}

func tolerationMatches(t *clusterv1beta1.Toleration, taint *clusterv1.Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Key != "" && t.Key != taint.Key {
		return false
	}
	switch t.Operator {
	case clusterv1beta1.TolerationOpExists:
		return true
	default:
		return t.Value == taint.Value
	}
}

func taintString(t *clusterv1.Taint) string {
	if t.Value == "" {
		return fmt.Sprintf("%s:%s", t.Key, t.Effect)
	}
	return fmt.Sprintf("%s=%s:%s", t.Key, t.Value, t.Effect)
}
