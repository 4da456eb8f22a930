package rollout

import (
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	rolloutsdk "open-cluster-management.io/sdk-go/pkg/apis/cluster/v1alpha1"
	placementsdk "open-cluster-management.io/sdk-go/pkg/apis/cluster/v1beta1"

	"github.com/corral-dev/corral/internal/clustercount"
)

// Placement is one placement's rollout at one moment: its decisions and
// the statuses of the clusters it rolled out to, on an injected clock.
type Placement struct {
	Tracker *placementsdk.PlacementDecisionClustersTracker
	// Claimed are clusters an earlier placement of the same rollout has:
	// not this placement's.
	Claimed sets.Set[string]
	// PerGroup is the placement's clustersPerDecisionGroup, Progressive's
	// maxConcurrency when the strategy gives none.
	PerGroup intstr.IntOrString
	// Existing are the statuses of the clusters this placement rolled out
	// to, or ToApply for those it is still to roll out to.
	Existing []rolloutsdk.ClusterRolloutStatus
	Now      time.Time
}

// settings are what a rollout strategy says, whatever its type.
type settings struct {
	kind           clusterv1alpha1.RolloutType
	config         clusterv1alpha1.RolloutConfig
	mandatory      []clusterv1alpha1.MandatoryDecisionGroup
	maxConcurrency intstr.IntOrString
}

// settingsOf are the settings of a valid strategy; none given is All, the
// api's default. All has no minSuccessTime nor maxFailures: the api considers
// them for the progressive types only.
func settingsOf(s clusterv1alpha1.RolloutStrategy) settings {
	switch s.Type {
	case clusterv1alpha1.Progressive:
		out := settings{kind: s.Type}
		if p := s.Progressive; p != nil {
			out.config, out.mandatory, out.maxConcurrency = p.RolloutConfig, p.MandatoryDecisionGroups.MandatoryDecisionGroups, p.MaxConcurrency
		}
		return out
	case clusterv1alpha1.ProgressivePerGroup:
		out := settings{kind: s.Type}
		if p := s.ProgressivePerGroup; p != nil {
			out.config, out.mandatory = p.RolloutConfig, p.MandatoryDecisionGroups.MandatoryDecisionGroups
		}
		return out
	}
	out := settings{kind: clusterv1alpha1.All}
	if s.All != nil {
		out.config.ProgressDeadline = s.All.ProgressDeadline
	}
	return out
}

// Decide is which clusters the strategy rolls out to now:
//   - All: every decided cluster at once.
//   - ProgressivePerGroup: one decision group at a time (byGroup).
//   - Progressive: the mandatory groups one at a time, then the other
//     clusters a few at a time (byCluster).
//
// A started cluster is Failed, Progressing or Succeeded as the caller
// found it (Existing), since its LastTransitionTime; once Progressing or
// Failed for progressDeadline it is TimeOut. A Succeeded cluster is in its
// minSuccessTime until that long after it succeeded. Failed and TimeOut
// clusters are failures; a mandatory group tolerates none, the rest of the
// rollout maxFailures. More failures stop
// the rollout (MaxFailureBreach): no cluster starts after that.
//
// It is what OCM's rollout helper (sdk-go's RolloutHandler) returns, but
// where the helper errs against the api's docs:
//   - it weighs the failures so far against the clusters in progress or
//     to start, among which it does not count those past their
//     progressDeadline: when the earlier groups have as many of these as
//     the next group has clusters, the group after starts too, or a group
//     in progress is passed;
//   - once the mandatory groups succeeded, a cluster past its
//     progressDeadline anywhere stops the rollout, within maxFailures or
//     not;
//   - a maxFailures larger than the clusters it is counted over tolerates
//     no failure;
//   - Progressive's maxConcurrency, when not given, is every cluster
//     rather than the placement's clustersPerDecisionGroup, as the api
//     says;
//   - clusters an earlier placement has wait to start, taking places
//     of maxConcurrency, for good;
//   - a breach of maxFailures in a group past the one the rollout is at
//     does not stop it;
//   - it reads the real clock, not the injected one.
func (ro Placement) Decide(strategy clusterv1alpha1.RolloutStrategy) (rolloutsdk.RolloutResult, error) {
	if err := Validate(strategy); err != nil {
		return rolloutsdk.RolloutResult{}, err
	}
	st := settingsOf(strategy)
	deadline, _ := ProgressDeadline(st.config.ProgressDeadline)
	groups := ro.order(st.mandatory)
	decided := sets.New[string]()
	for _, g := range groups {
		decided = decided.Union(g.clusters)
	}
	result, states := ro.settleAll(decided, st.config.MinSuccessTime.Duration, deadline)
	switch st.kind {
	case clusterv1alpha1.ProgressivePerGroup:
		byGroup(groups, states, st.config.MaxFailures, &result)
	case clusterv1alpha1.Progressive:
		mandatory := slices.IndexFunc(groups, func(g rolloutGroup) bool { return !g.mandatory })
		if mandatory < 0 {
			mandatory = len(groups)
		}
		if byGroup(groups[:mandatory], states, st.config.MaxFailures, &result) {
			break
		}
		// maxConcurrency 0, in any form, is not given: the placement's
		// clustersPerDecisionGroup, of all its clusters, or every cluster.
		limit := allowed(st.maxConcurrency, decided.Len())
		if limit == 0 {
			limit = allowed(ro.PerGroup, ro.Tracker.ExistingClusterGroupsBesides().GetClusters().Len())
		}
		if limit == 0 {
			limit = decided.Len()
		}
		byCluster(groups[mandatory:], decided.Len(), states, st.config.MaxFailures, limit, &result)
	default:
		for _, g := range groups {
			result.ClustersToRollout = append(result.ClustersToRollout, g.survey(states).toStart...)
		}
	}
	return result, nil
}

// settleAll settles at now the statuses of the decided clusters that
// started (not ToApply), by cluster, and sorts them into a result: those
// Progressing or Failed within their deadline, or in their minSuccessTime,
// to roll out, with when to look again, and those past their deadline
// timed out; the statuses of clusters no longer decided are removed.
func (ro Placement) settleAll(decided sets.Set[string], minSuccess time.Duration, deadline *time.Duration) (rolloutsdk.RolloutResult, map[string]rolloutsdk.ClusterRolloutStatus) {
	var result rolloutsdk.RolloutResult
	states := map[string]rolloutsdk.ClusterRolloutStatus{}
	for _, st := range ro.Existing {
		if !decided.Has(st.ClusterName) {
			if !ro.Claimed.Has(st.ClusterName) {
				result.ClustersRemoved = append(result.ClustersRemoved, st)
			}
			continue
		}
		if st.Status == rolloutsdk.ToApply {
			continue // it starts in its turn
		}
		st = settle(st, minSuccess, deadline, ro.Now)
		states[st.ClusterName] = st
		switch {
		case st.Status == rolloutsdk.TimeOut:
			result.ClustersTimeOut = append(result.ClustersTimeOut, st)
		case st.Status == rolloutsdk.Failed || busy(st):
			result.ClustersToRollout = append(result.ClustersToRollout, st)
		}
	}
	result.RecheckAfter = soonest(result.ClustersToRollout, ro.Now)
	return result, states
}

// busy says a started cluster holds the rollout: in progress, or in its
// minSuccessTime. A Failed one does not: it counts as failed already.
func busy(st rolloutsdk.ClusterRolloutStatus) bool {
	return st.Status == rolloutsdk.Progressing || st.Status == rolloutsdk.Succeeded && st.RecheckTime != nil
}

// failed says a started cluster counts against maxFailures.
func failed(st rolloutsdk.ClusterRolloutStatus) bool {
	return st.Status == rolloutsdk.Failed || st.Status == rolloutsdk.TimeOut
}

// rolloutGroup is a decision group in rollout order.
type rolloutGroup struct {
	key       placementsdk.GroupKey
	clusters  sets.Set[string]
	mandatory bool
}

// survey is what a group's clusters are doing.
type survey struct {
	// toStart are those with no status, to start now.
	toStart []rolloutsdk.ClusterRolloutStatus
	// failures and busy count those failed and those busy.
	failures, busy int
}

// survey is what the group's clusters are doing, by their states.
func (g rolloutGroup) survey(states map[string]rolloutsdk.ClusterRolloutStatus) survey {
	var out survey
	for _, c := range sets.List(g.clusters) {
		st, ok := states[c]
		switch {
		case !ok:
			out.toStart = append(out.toStart, rolloutsdk.ClusterRolloutStatus{ClusterName: c, GroupKey: g.key, Status: rolloutsdk.ToApply})
		case failed(st):
			out.failures++
		case busy(st):
			out.busy++
		}
	}
	return out
}

// order is the placement's decision groups, but for the clusters claimed
// elsewhere: the mandatory ones (selected by name, or by index when no
// name is given) first, each part in index order. The keys are made as in
// sdk-go's rollout helper, which does not export that piece.
func (ro Placement) order(mandatory []clusterv1alpha1.MandatoryDecisionGroup) []rolloutGroup {
	keys := make([]placementsdk.GroupKey, 0, len(mandatory))
	for _, m := range mandatory {
		if m.GroupName != "" {
			keys = append(keys, placementsdk.GroupKey{GroupName: m.GroupName})
		} else {
			keys = append(keys, placementsdk.GroupKey{GroupIndex: m.GroupIndex})
		}
	}
	first, rest := ro.Tracker.ExistingClusterGroups(keys...), ro.Tracker.ExistingClusterGroupsBesides(keys...)
	var groups []rolloutGroup
	for _, part := range []struct {
		groups    placementsdk.ClusterGroupsMap
		mandatory bool
	}{{first, true}, {rest, false}} {
		for _, k := range part.groups.GetOrderedGroupKeys() {
			groups = append(groups, rolloutGroup{key: k, clusters: part.groups[k].Difference(ro.Claimed), mandatory: part.mandatory})
		}
	}
	return groups
}

// allowed is how many of n clusters a count or percentage lets through
// (clustercount.Of); the setting was validated before.
func allowed(v intstr.IntOrString, n int) int {
	out, _ := clustercount.Of(v, n)
	return max(out, 0)
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
