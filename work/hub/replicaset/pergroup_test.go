package replicaset

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	rolloutsdk "open-cluster-management.io/sdk-go/pkg/apis/cluster/v1alpha1"
	placementsdk "open-cluster-management.io/sdk-go/pkg/apis/cluster/v1beta1"
)

// rolledTo is what a rollout result says, in short.
type rolledTo struct {
	Start, TimedOut, Removed []string
	Breach                   bool
	Recheck                  time.Duration
}

func TestProgressivePerGroup(t *testing.T) {
	now := time.Now()
	st := func(cluster string, status rolloutsdk.RolloutStatus, ago time.Duration) rolloutsdk.ClusterRolloutStatus {
		return rolloutsdk.ClusterRolloutStatus{ClusterName: cluster, Status: status, LastTransitionTime: &metav1.Time{Time: now.Add(-ago)}}
	}
	group := func(index int32, name string, clusters ...string) placementsdk.ClusterGroupsMap {
		return placementsdk.ClusterGroupsMap{{GroupIndex: index, GroupName: name}: sets.New(clusters...)}
	}
	groups := func(gs ...placementsdk.ClusterGroupsMap) placementsdk.ClusterGroupsMap {
		out := placementsdk.ClusterGroupsMap{}
		for _, g := range gs {
			for k, v := range g {
				out[k] = v
			}
		}
		return out
	}
	// Three groups of one cluster: a, b, c.
	abc := groups(group(0, "", "a"), group(1, "", "b"), group(2, "", "c"))
	// Four groups of one cluster, the second named canary: a, b, c, d.
	abcd := groups(group(0, "", "a"), group(1, "canary", "b"), group(2, "", "c"), group(3, "", "d"))
	// The canary group and the index 2 group are mandatory; a name given
	// with an index selects by the name.
	mandatoryBC := []clusterv1alpha1.MandatoryDecisionGroup{{GroupIndex: 2}, {GroupName: "canary", GroupIndex: 3}}
	canary := []clusterv1alpha1.MandatoryDecisionGroup{{GroupName: "canary"}}
	deadline := func(maxFailures intstr.IntOrString) clusterv1alpha1.RolloutConfig {
		return clusterv1alpha1.RolloutConfig{ProgressDeadline: "10m", MaxFailures: maxFailures}
	}
	one := intstr.FromInt32(1)

	cases := map[string]struct {
		groups    placementsdk.ClusterGroupsMap
		mandatory []clusterv1alpha1.MandatoryDecisionGroup
		config    clusterv1alpha1.RolloutConfig
		existing  []rolloutsdk.ClusterRolloutStatus
		want      rolledTo
	}{
		"the first group first": {groups: abc, want: rolledTo{Start: []string{"a"}}},
		"one group at a time": {groups: abc, existing: []rolloutsdk.ClusterRolloutStatus{st("a", rolloutsdk.Progressing, time.Minute)},
			want: rolledTo{}},
		"the next group once the group succeeded": {groups: abc, existing: []rolloutsdk.ClusterRolloutStatus{st("a", rolloutsdk.Succeeded, time.Minute)},
			want: rolledTo{Start: []string{"b"}}},
		"a work of another template starts with its group": {groups: abc, existing: []rolloutsdk.ClusterRolloutStatus{{ClusterName: "a", Status: rolloutsdk.ToApply}},
			want: rolledTo{Start: []string{"a"}}},
		"the next group waits minSuccessTime after the group's last success": {
			groups: groups(group(0, "", "a", "b"), group(1, "", "c")), config: clusterv1alpha1.RolloutConfig{MinSuccessTime: metav1.Duration{Duration: 5 * time.Minute}},
			existing: []rolloutsdk.ClusterRolloutStatus{st("a", rolloutsdk.Succeeded, 6*time.Minute), st("b", rolloutsdk.Succeeded, 3*time.Minute)},
			want:     rolledTo{Recheck: 2 * time.Minute}},
		"the next group after minSuccessTime": {
			groups: groups(group(0, "", "a", "b"), group(1, "", "c")), config: clusterv1alpha1.RolloutConfig{MinSuccessTime: metav1.Duration{Duration: 5 * time.Minute}},
			existing: []rolloutsdk.ClusterRolloutStatus{st("a", rolloutsdk.Succeeded, 6*time.Minute), st("b", rolloutsdk.Succeeded, 5*time.Minute)},
			want:     rolledTo{Start: []string{"c"}}},
		"a cluster in progress is looked at again at its progressDeadline": {groups: abc, config: deadline(one),
			existing: []rolloutsdk.ClusterRolloutStatus{st("a", rolloutsdk.Progressing, 4*time.Minute)},
			want:     rolledTo{Recheck: 6 * time.Minute}},
		// OCM's helper started b and c at once: the timed-out a, not in
		// progress, was weighed against b.
		"a group past its progressDeadline within maxFailures starts the next group only": {groups: abc, config: deadline(one),
			existing: []rolloutsdk.ClusterRolloutStatus{st("a", rolloutsdk.Progressing, 11*time.Minute)},
			want:     rolledTo{Start: []string{"b"}, TimedOut: []string{"a"}}},
		// OCM's helper started c: the timed-out a outweighed b in progress.
		"a group in progress holds the rollout after a timeout in an earlier group": {groups: abc, config: deadline(one),
			existing: []rolloutsdk.ClusterRolloutStatus{st("a", rolloutsdk.Progressing, 20*time.Minute), st("b", rolloutsdk.Progressing, time.Minute)},
			want:     rolledTo{TimedOut: []string{"a"}, Recheck: 9 * time.Minute}},
		"maxFailures counts in each group": {groups: abc, config: deadline(one),
			existing: []rolloutsdk.ClusterRolloutStatus{st("a", rolloutsdk.Progressing, 30*time.Minute), st("b", rolloutsdk.Failed, 11*time.Minute)},
			want:     rolledTo{Start: []string{"c"}, TimedOut: []string{"a", "b"}}},
		"a failed cluster within maxFailures lets the next group start before its deadline": {
			groups: groups(group(0, "", "a", "b"), group(1, "", "c")), config: clusterv1alpha1.RolloutConfig{MaxFailures: one},
			existing: []rolloutsdk.ClusterRolloutStatus{st("a", rolloutsdk.Failed, time.Minute), st("b", rolloutsdk.Succeeded, time.Minute)},
			want:     rolledTo{Start: []string{"c"}}},
		"more failures in a group than maxFailures stop the rollout": {
			groups: groups(group(0, "", "a"), group(1, "", "b", "c"), group(2, "", "d")), config: deadline(one),
			existing: []rolloutsdk.ClusterRolloutStatus{st("a", rolloutsdk.Progressing, 30*time.Minute),
				st("b", rolloutsdk.Progressing, 11*time.Minute), st("c", rolloutsdk.Failed, 11*time.Minute)},
			want: rolledTo{TimedOut: []string{"a", "b", "c"}, Breach: true}},
		"maxFailures as a percentage of the group, rounded up": {
			groups: groups(group(0, "", "a", "b", "c", "d"), group(1, "", "e")), config: clusterv1alpha1.RolloutConfig{MaxFailures: intstr.FromString("30%")},
			existing: []rolloutsdk.ClusterRolloutStatus{st("a", rolloutsdk.Failed, time.Minute), st("b", rolloutsdk.Failed, time.Minute),
				st("c", rolloutsdk.Succeeded, time.Minute), st("d", rolloutsdk.Succeeded, time.Minute)},
			want: rolledTo{Start: []string{"e"}}},
		"maxFailures as a percentage, exceeded": {
			groups: groups(group(0, "", "a", "b", "c", "d"), group(1, "", "e")), config: clusterv1alpha1.RolloutConfig{MaxFailures: intstr.FromString("25%")},
			existing: []rolloutsdk.ClusterRolloutStatus{st("a", rolloutsdk.Failed, time.Minute), st("b", rolloutsdk.Failed, time.Minute),
				st("c", rolloutsdk.Succeeded, time.Minute), st("d", rolloutsdk.Succeeded, time.Minute)},
			want: rolledTo{Breach: true}},
		// OCM's helper tolerated none: it takes a maxFailures over the
		// group's size for 0.
		"maxFailures over the group's size tolerates every failure in it": {groups: abc, config: clusterv1alpha1.RolloutConfig{MaxFailures: intstr.FromInt32(3)},
			existing: []rolloutsdk.ClusterRolloutStatus{st("a", rolloutsdk.Failed, time.Minute)},
			want:     rolledTo{Start: []string{"b"}}},
		"the mandatory groups first": {groups: abcd, mandatory: mandatoryBC, want: rolledTo{Start: []string{"b"}}},
		"the mandatory groups one at a time, by index": {groups: abcd, mandatory: mandatoryBC,
			existing: []rolloutsdk.ClusterRolloutStatus{st("b", rolloutsdk.Succeeded, time.Minute)},
			want:     rolledTo{Start: []string{"c"}}},
		"the other groups after the mandatory ones, by index": {groups: abcd, mandatory: mandatoryBC,
			existing: []rolloutsdk.ClusterRolloutStatus{st("b", rolloutsdk.Succeeded, time.Minute), st("c", rolloutsdk.Succeeded, time.Minute)},
			want:     rolledTo{Start: []string{"a"}}},
		"a mandatory group tolerates no failure": {groups: groups(group(0, "canary", "a", "b"), group(1, "", "c")), mandatory: canary,
			config:   clusterv1alpha1.RolloutConfig{MaxFailures: intstr.FromInt32(5)},
			existing: []rolloutsdk.ClusterRolloutStatus{st("a", rolloutsdk.Succeeded, time.Minute), st("b", rolloutsdk.Failed, time.Minute)},
			want:     rolledTo{Breach: true}},
		// OCM's helper stopped, without a breach: it looked for timeouts
		// in every group while it rolled out the mandatory ones.
		"timeouts within maxFailures after the mandatory groups let the next group start": {
			groups: groups(group(0, "canary", "a"), group(1, "", "b"), group(2, "", "c")), mandatory: canary, config: deadline(one),
			existing: []rolloutsdk.ClusterRolloutStatus{st("a", rolloutsdk.Succeeded, 30*time.Minute), st("b", rolloutsdk.Progressing, 11*time.Minute)},
			want:     rolledTo{Start: []string{"c"}, TimedOut: []string{"b"}}},
		"clusters no longer decided are removed": {groups: abc, existing: []rolloutsdk.ClusterRolloutStatus{st("x", rolloutsdk.Progressing, time.Minute)},
			want: rolledTo{Start: []string{"a"}, Removed: []string{"x"}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tracker := placementsdk.NewPlacementDecisionClustersTrackerWithGroups(nil, nil, tc.groups)
			strategy := clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.ProgressivePerGroup, ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{
				RolloutConfig: tc.config, MandatoryDecisionGroups: clusterv1alpha1.MandatoryDecisionGroups{MandatoryDecisionGroups: tc.mandatory}}}
			result, err := rolloutResult(tracker, strategy, tc.existing, now)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, summary(result)); diff != "" {
				t.Errorf("rollout (-want +got):\n%s", diff)
			}
		})
	}
}

func TestProgressivePerGroupSettings(t *testing.T) {
	for name, config := range map[string]clusterv1alpha1.RolloutConfig{
		"progressDeadline not a duration": {ProgressDeadline: "soon"},
		"maxFailures not a percentage":    {MaxFailures: intstr.FromString("half")},
	} {
		t.Run(name, func(t *testing.T) {
			tracker := placementsdk.NewPlacementDecisionClustersTrackerWithGroups(nil, nil, placementsdk.ClusterGroupsMap{{}: sets.New("a")})
			strategy := clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.ProgressivePerGroup,
				ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{RolloutConfig: config}}
			if _, err := rolloutResult(tracker, strategy, nil, time.Now()); err == nil {
				t.Error("no error")
			}
		})
	}
}

// summary is the result's cluster names, but of the clusters already
// started, and its breach and recheck.
func summary(r rolloutsdk.RolloutResult) rolledTo {
	names := func(statuses []rolloutsdk.ClusterRolloutStatus, only func(rolloutsdk.ClusterRolloutStatus) bool) []string {
		var out []string
		for _, s := range statuses {
			if only(s) {
				out = append(out, s.ClusterName)
			}
		}
		if len(out) == 0 {
			return nil
		}
		return sets.List(sets.New(out...))
	}
	all := func(rolloutsdk.ClusterRolloutStatus) bool { return true }
	out := rolledTo{
		Start:    names(r.ClustersToRollout, func(s rolloutsdk.ClusterRolloutStatus) bool { return s.Status == rolloutsdk.ToApply }),
		TimedOut: names(r.ClustersTimeOut, all),
		Removed:  names(r.ClustersRemoved, all),
		Breach:   r.MaxFailureBreach,
	}
	if r.RecheckAfter != nil {
		out.Recheck = *r.RecheckAfter
	}
	return out
}
