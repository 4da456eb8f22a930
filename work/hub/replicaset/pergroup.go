package replicaset

import (
	"fmt"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	rolloutsdk "open-cluster-management.io/sdk-go/pkg/apis/cluster/v1alpha1"
	placementsdk "open-cluster-management.io/sdk-go/pkg/apis/cluster/v1beta1"
)

// progressivePerGroup is the ProgressivePerGroup rollout: the mandatory
// decision groups first, then the others, each in index order, one group
// at a time. A group is finished when each of its clusters succeeded (and
// minSuccessTime passed) or failed: Failed, or Progressing or Failed past
// progressDeadline (TimeOut). A mandatory group tolerates no failure; any
// other group maxFailures of its own clusters (a number, or a percentage
// of the group's size, rounded up). More failures in a group stop the
// rollout: no cluster starts after that (MaxFailureBreach).
//
// The rollout does not go past the first unfinished group, nor past a
// finished one while a cluster of any group is still in progress (or in
// its minSuccessTime); it starts the clusters of the group it stops at
// that have not started.
//
// The statuses and now must be on one clock. It returns what OCM's rollout
// helper (sdk-go's RolloutHandler) does, but for three faults of the
// helper, which the api's docs contradict:
//   - it weighs the failures so far against the clusters in progress or
//     to start, among which it does not count those past their
//     progressDeadline: when the earlier groups have as many of these as
//     the next group has clusters, the group after starts too, or a group
//     in progress is passed;
//   - once the mandatory groups succeeded, a cluster of another group past
//     its progressDeadline stops the rollout, within maxFailures or not;
//   - a maxFailures larger than a group tolerates no failure in it.
func progressivePerGroup(tracker *placementsdk.PlacementDecisionClustersTracker, strategy *clusterv1alpha1.RolloutProgressivePerGroup,
	existing []rolloutsdk.ClusterRolloutStatus, now time.Time) (rolloutsdk.RolloutResult, error) {
	if strategy == nil {
		strategy = &clusterv1alpha1.RolloutProgressivePerGroup{}
	}
	deadline, err := progressDeadline(strategy.ProgressDeadline)
	if err != nil {
		return rolloutsdk.RolloutResult{}, err
	}
	if _, err := intstr.GetScaledValueFromIntOrPercent(&strategy.MaxFailures, 1, true); err != nil {
		return rolloutsdk.RolloutResult{}, fmt.Errorf("maxFailures: %w", err)
	}
	result, states, busy := settleAll(tracker.ExistingClusterGroupsBesides().GetClusters(), existing, strategy.MinSuccessTime.Duration, deadline, now)

	for _, g := range rolloutOrder(tracker, strategy.MandatoryDecisionGroups.MandatoryDecisionGroups) {
		allowed := 0
		if !g.mandatory {
			allowed, _ = intstr.GetScaledValueFromIntOrPercent(&strategy.MaxFailures, g.clusters.Len(), true)
			allowed = max(allowed, 0)
		}
		toStart, failures := g.survey(states)
		if failures > allowed {
			result.MaxFailureBreach = true
			return result, nil
		}
		result.ClustersToRollout = append(result.ClustersToRollout, toStart...)
		if busy || len(toStart) > 0 {
			return result, nil
		}
	}
	return result, nil
}

// settleAll settles at now the statuses of the decided clusters that
// started (not ToApply), by cluster, and sorts them into a result: those
// Progressing or Failed within their deadline, or in their minSuccessTime,
// to roll out, with when to look again, and those past their deadline
// timed out; the statuses of clusters no longer decided are removed. busy
// says a cluster is still in progress or in its minSuccessTime; a Failed
// one is not: it counts as failed already.
func settleAll(decided sets.Set[string], existing []rolloutsdk.ClusterRolloutStatus, minSuccess time.Duration, deadline *time.Duration,
	now time.Time) (rolloutsdk.RolloutResult, map[string]rolloutsdk.ClusterRolloutStatus, bool) {
	var result rolloutsdk.RolloutResult
	states := map[string]rolloutsdk.ClusterRolloutStatus{}
	busy := false
	for _, st := range existing {
		if !decided.Has(st.ClusterName) {
			result.ClustersRemoved = append(result.ClustersRemoved, st)
			continue
		}
		if st.Status == rolloutsdk.ToApply {
			continue // it starts with its group
		}
		st = settle(st, minSuccess, deadline, now)
		states[st.ClusterName] = st
		switch st.Status {
		case rolloutsdk.TimeOut:
			result.ClustersTimeOut = append(result.ClustersTimeOut, st)
		case rolloutsdk.Progressing, rolloutsdk.Failed:
			result.ClustersToRollout = append(result.ClustersToRollout, st)
			busy = busy || st.Status == rolloutsdk.Progressing
		case rolloutsdk.Succeeded:
			if st.RecheckTime != nil { // in its minSuccessTime
				result.ClustersToRollout = append(result.ClustersToRollout, st)
				busy = true
			}
		}
	}
	result.RecheckAfter = soonest(result.ClustersToRollout, now)
	return result, states, busy
}

// rolloutGroup is a decision group in rollout order.
type rolloutGroup struct {
	key       placementsdk.GroupKey
	clusters  sets.Set[string]
	mandatory bool
}

// survey is the group's clusters to start now, those with no status, and
// its count of failed clusters.
func (g rolloutGroup) survey(states map[string]rolloutsdk.ClusterRolloutStatus) ([]rolloutsdk.ClusterRolloutStatus, int) {
	var (
		toStart  []rolloutsdk.ClusterRolloutStatus
		failures int
	)
	for _, c := range sets.List(g.clusters) {
		st, ok := states[c]
		switch {
		case !ok:
			toStart = append(toStart, rolloutsdk.ClusterRolloutStatus{ClusterName: c, GroupKey: g.key, Status: rolloutsdk.ToApply})
		case st.Status == rolloutsdk.Failed || st.Status == rolloutsdk.TimeOut:
			failures++
		}
	}
	return toStart, failures
}

// rolloutOrder is the placement's decision groups, the mandatory ones
// (selected by name, or by index when no name is given) first, each part
// in index order. The keys are made as in sdk-go's rollout helper, which
// does not export that piece.
func rolloutOrder(tracker *placementsdk.PlacementDecisionClustersTracker, mandatory []clusterv1alpha1.MandatoryDecisionGroup) []rolloutGroup {
	keys := make([]placementsdk.GroupKey, 0, len(mandatory))
	for _, m := range mandatory {
		if m.GroupName != "" {
			keys = append(keys, placementsdk.GroupKey{GroupName: m.GroupName})
		} else {
			keys = append(keys, placementsdk.GroupKey{GroupIndex: m.GroupIndex})
		}
	}
	first, rest := tracker.ExistingClusterGroups(keys...), tracker.ExistingClusterGroupsBesides(keys...)
	var groups []rolloutGroup
	for _, k := range first.GetOrderedGroupKeys() {
		groups = append(groups, rolloutGroup{key: k, clusters: first[k], mandatory: true})
	}
	for _, k := range rest.GetOrderedGroupKeys() {
		groups = append(groups, rolloutGroup{key: k, clusters: rest[k]})
	}
	return groups
}

// settle is a started cluster's status at now: TimeOut once Progressing or
// Failed for progressDeadline (nil: never); with RecheckTime when it
// changes next, at the end of its minSuccessTime or at its deadline.
func settle(st rolloutsdk.ClusterRolloutStatus, minSuccess time.Duration, deadline *time.Duration, now time.Time) rolloutsdk.ClusterRolloutStatus {
	since := now
	if st.LastTransitionTime != nil {
		since = st.LastTransitionTime.Time
	}
	switch st.Status {
	case rolloutsdk.Succeeded:
		if end := since.Add(minSuccess); now.Before(end) {
			st.RecheckTime = &metav1.Time{Time: end}
		}
	case rolloutsdk.Progressing, rolloutsdk.Failed:
		if deadline == nil {
			break
		}
		end := since.Add(*deadline)
		st.RecheckTime = &metav1.Time{Time: end}
		if !now.Before(end) {
			st.Status = rolloutsdk.TimeOut
		}
	}
	return st
}

// soonest is how long from now until the first RecheckTime still to come,
// or nil.
func soonest(statuses []rolloutsdk.ClusterRolloutStatus, now time.Time) *time.Duration {
	var after []time.Duration
	for _, st := range statuses {
		if st.RecheckTime != nil && st.RecheckTime.After(now) {
			after = append(after, st.RecheckTime.Sub(now))
		}
	}
	if len(after) == 0 {
		return nil
	}
	d := slices.Min(after)
	return &d
}

// progressDeadline parses a progressDeadline: nil for "" and None, no
// deadline.
func progressDeadline(s string) (*time.Duration, error) {
	if s == "" || s == "None" {
		return nil, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return nil, fmt.Errorf("progressDeadline %q is not a duration such as 90s, 30m or 2h, nor None", s)
	}
	return &d, nil
}
