package rollout

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

// rolloutNow is the time the rollout cases are decided at.
var rolloutNow = time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)

// st is a cluster's status since ago.
func st(cluster string, status rolloutsdk.RolloutStatus, ago time.Duration) rolloutsdk.ClusterRolloutStatus {
	return rolloutsdk.ClusterRolloutStatus{ClusterName: cluster, Status: status, LastTransitionTime: &metav1.Time{Time: rolloutNow.Add(-ago)}}
}

// group is one decision group.
func group(index int32, name string, clusters ...string) placementsdk.ClusterGroupsMap {
	return placementsdk.ClusterGroupsMap{{GroupIndex: index, GroupName: name}: sets.New(clusters...)}
}

// groups joins decision groups.
func groups(gs ...placementsdk.ClusterGroupsMap) placementsdk.ClusterGroupsMap {
	out := placementsdk.ClusterGroupsMap{}
	for _, g := range gs {
		for k, v := range g {
			out[k] = v
		}
	}
	return out
}

// decideOn is the rollout's result on the groups.
func decideOn(t *testing.T, ro Placement, gs placementsdk.ClusterGroupsMap, strategy clusterv1alpha1.RolloutStrategy) rolledTo {
	t.Helper()
	ro.Tracker, ro.Now = placementsdk.NewPlacementDecisionClustersTrackerWithGroups(nil, nil, gs), rolloutNow
	result, err := ro.Decide(strategy)
	if err != nil {
		t.Fatal(err)
	}
	return summary(result)
}

func TestProgressivePerGroup(t *testing.T) {
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
		// It started x, in the group it was at, though b in the group
		// after (started before the decisions changed) failed.
		"more failures than maxFailures in a later group stop the rollout": {groups: groups(group(0, "", "a", "x"), group(1, "", "b")),
			existing: []rolloutsdk.ClusterRolloutStatus{st("a", rolloutsdk.Succeeded, time.Minute), st("b", rolloutsdk.Failed, time.Minute)},
			want:     rolledTo{Breach: true}},
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
			strategy := clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.ProgressivePerGroup, ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{
				RolloutConfig: tc.config, MandatoryDecisionGroups: clusterv1alpha1.MandatoryDecisionGroups{MandatoryDecisionGroups: tc.mandatory}}}
			if diff := cmp.Diff(tc.want, decideOn(t, Placement{Existing: tc.existing}, tc.groups, strategy)); diff != "" {
				t.Errorf("rollout (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAll(t *testing.T) {
	abc := groups(group(0, "", "a", "b"), group(1, "", "c"))
	all := func(config clusterv1alpha1.RolloutConfig) clusterv1alpha1.RolloutStrategy {
		return clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All, All: &clusterv1alpha1.RolloutAll{RolloutConfig: config}}
	}
	cases := map[string]struct {
		strategy clusterv1alpha1.RolloutStrategy
		existing []rolloutsdk.ClusterRolloutStatus
		want     rolledTo
	}{
		"no strategy: every cluster at once": {want: rolledTo{Start: []string{"a", "b", "c"}}},
		"every cluster at once, whatever the others do": {strategy: all(clusterv1alpha1.RolloutConfig{}),
			existing: []rolloutsdk.ClusterRolloutStatus{st("a", rolloutsdk.Progressing, time.Minute)}, want: rolledTo{Start: []string{"b", "c"}}},
		"a cluster past its progressDeadline is timed out, the others start": {strategy: all(clusterv1alpha1.RolloutConfig{ProgressDeadline: "10m"}),
			existing: []rolloutsdk.ClusterRolloutStatus{st("a", rolloutsdk.Progressing, 11*time.Minute), st("b", rolloutsdk.Progressing, time.Minute)},
			want:     rolledTo{Start: []string{"c"}, TimedOut: []string{"a"}, Recheck: 9 * time.Minute}},
		"maxFailures and minSuccessTime are not All's": {
			strategy: all(clusterv1alpha1.RolloutConfig{MinSuccessTime: metav1.Duration{Duration: time.Hour}, MaxFailures: intstr.FromInt32(0)}),
			existing: []rolloutsdk.ClusterRolloutStatus{st("a", rolloutsdk.Failed, time.Minute), st("b", rolloutsdk.Succeeded, time.Minute)},
			want:     rolledTo{Start: []string{"c"}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, decideOn(t, Placement{Existing: tc.existing}, abc, tc.strategy)); diff != "" {
				t.Errorf("rollout (-want +got):\n%s", diff)
			}
		})
	}
}

func TestProgressive(t *testing.T) {
	abcd := group(0, "", "a", "b", "c", "d")
	// c is in the canary group, and a and b in the other.
	canaryC := groups(group(0, "", "a", "b"), group(1, "canary", "c"))
	type settings struct {
		maxConcurrency intstr.IntOrString
		config         clusterv1alpha1.RolloutConfig
		mandatory      bool // the canary group
	}
	two, one := intstr.FromInt32(2), intstr.FromInt32(1)
	deadline := clusterv1alpha1.RolloutConfig{ProgressDeadline: "10m", MaxFailures: one}
	cases := map[string]struct {
		groups   placementsdk.ClusterGroupsMap
		settings settings
		perGroup intstr.IntOrString // the placement's clustersPerDecisionGroup
		claimed  []string
		existing []rolloutsdk.ClusterRolloutStatus
		want     rolledTo
	}{
		"maxConcurrency clusters at once, by name": {groups: abcd, settings: settings{maxConcurrency: two}, want: rolledTo{Start: []string{"a", "b"}}},
		"maxConcurrency as a percentage of the clusters, rounded up": {groups: abcd, settings: settings{maxConcurrency: intstr.FromString("30%")},
			want: rolledTo{Start: []string{"a", "b"}}},
		"maxConcurrency as a number in a string": {groups: abcd, settings: settings{maxConcurrency: intstr.FromString("2")},
			want: rolledTo{Start: []string{"a", "b"}}},
		"a place freed by a success goes to the next cluster": {groups: abcd, settings: settings{maxConcurrency: two},
			existing: []rolloutsdk.ClusterRolloutStatus{st("a", rolloutsdk.Succeeded, time.Minute), st("b", rolloutsdk.Progressing, time.Minute)},
			want:     rolledTo{Start: []string{"c"}}},
		"a cluster in its minSuccessTime keeps its place": {groups: abcd,
			settings: settings{maxConcurrency: two, config: clusterv1alpha1.RolloutConfig{MinSuccessTime: metav1.Duration{Duration: 5 * time.Minute}}},
			existing: []rolloutsdk.ClusterRolloutStatus{st("a", rolloutsdk.Succeeded, time.Minute), st("b", rolloutsdk.Progressing, time.Minute)},
			want:     rolledTo{Recheck: 4 * time.Minute}},
		"a failure within maxFailures frees its place": {groups: abcd, settings: settings{maxConcurrency: two, config: clusterv1alpha1.RolloutConfig{MaxFailures: one}},
			existing: []rolloutsdk.ClusterRolloutStatus{st("a", rolloutsdk.Failed, time.Minute), st("b", rolloutsdk.Progressing, time.Minute)},
			want:     rolledTo{Start: []string{"c"}}},
		"more failures than maxFailures stop the rollout": {groups: abcd, settings: settings{maxConcurrency: two, config: deadline},
			existing: []rolloutsdk.ClusterRolloutStatus{st("a", rolloutsdk.Failed, time.Minute), st("b", rolloutsdk.Progressing, 11*time.Minute)},
			want:     rolledTo{TimedOut: []string{"b"}, Breach: true, Recheck: 9 * time.Minute}},
		"maxFailures as a percentage of all the clusters": {groups: abcd,
			settings: settings{maxConcurrency: two, config: clusterv1alpha1.RolloutConfig{MaxFailures: intstr.FromString("25%")}},
			existing: []rolloutsdk.ClusterRolloutStatus{st("a", rolloutsdk.Failed, time.Minute), st("b", rolloutsdk.Failed, time.Minute)},
			want:     rolledTo{Breach: true}},
		// OCM's helper tolerated none: it takes a maxFailures over the
		// number of clusters for 0.
		"maxFailures over the number of clusters tolerates every failure": {groups: abcd,
			settings: settings{maxConcurrency: two, config: clusterv1alpha1.RolloutConfig{MaxFailures: intstr.FromInt32(10)}},
			existing: []rolloutsdk.ClusterRolloutStatus{st("a", rolloutsdk.Failed, time.Minute), st("b", rolloutsdk.Failed, time.Minute)},
			want:     rolledTo{Start: []string{"c", "d"}}},
		// OCM's helper rolled out to every cluster at once.
		"no maxConcurrency: the placement's clustersPerDecisionGroup": {groups: abcd, perGroup: intstr.FromString("50%"),
			want: rolledTo{Start: []string{"a", "b"}}},
		"maxConcurrency 0% is not given": {groups: abcd, settings: settings{maxConcurrency: intstr.FromString("0%")}, perGroup: intstr.FromInt32(1),
			want: rolledTo{Start: []string{"a"}}},
		"clustersPerDecisionGroup is of all the placement's clusters": {groups: abcd, perGroup: intstr.FromString("50%"), claimed: []string{"a", "b"},
			want: rolledTo{Start: []string{"c", "d"}}},
		"a cluster in progress keeps its place, whatever its name": {groups: groups(abcd, group(1, "", "0x")), settings: settings{maxConcurrency: one},
			existing: []rolloutsdk.ClusterRolloutStatus{st("a", rolloutsdk.Progressing, time.Minute)},
			want:     rolledTo{}},
		"no maxConcurrency nor clustersPerDecisionGroup: every cluster at once": {groups: abcd, want: rolledTo{Start: []string{"a", "b", "c", "d"}}},
		"the mandatory groups first, whole": {groups: canaryC, settings: settings{maxConcurrency: one, mandatory: true},
			want: rolledTo{Start: []string{"c"}}},
		"the others after the mandatory groups, maxConcurrency at a time": {groups: canaryC, settings: settings{maxConcurrency: one, mandatory: true},
			existing: []rolloutsdk.ClusterRolloutStatus{st("c", rolloutsdk.Succeeded, time.Minute)},
			want:     rolledTo{Start: []string{"a"}}},
		"a mandatory group tolerates no failure": {groups: canaryC,
			settings: settings{maxConcurrency: one, mandatory: true, config: clusterv1alpha1.RolloutConfig{MaxFailures: intstr.FromInt32(5)}},
			existing: []rolloutsdk.ClusterRolloutStatus{st("c", rolloutsdk.Failed, time.Minute)},
			want:     rolledTo{Breach: true}},
		// OCM's helper stopped, without a breach: it looked for timeouts
		// in every group while it rolled out the mandatory ones.
		"a timeout within maxFailures after the mandatory groups lets the next cluster start": {groups: canaryC,
			settings: settings{maxConcurrency: one, mandatory: true, config: deadline},
			existing: []rolloutsdk.ClusterRolloutStatus{st("c", rolloutsdk.Succeeded, time.Hour), st("a", rolloutsdk.Progressing, 11*time.Minute)},
			want:     rolledTo{Start: []string{"b"}, TimedOut: []string{"a"}}},
		// OCM's helper kept a to start, in b's place, for good.
		"clusters an earlier placement ref has are not this rollout's": {groups: abcd, settings: settings{maxConcurrency: one}, claimed: []string{"a"},
			existing: []rolloutsdk.ClusterRolloutStatus{st("a", rolloutsdk.Progressing, time.Minute)},
			want:     rolledTo{Start: []string{"b"}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := &clusterv1alpha1.RolloutProgressive{RolloutConfig: tc.settings.config, MaxConcurrency: tc.settings.maxConcurrency}
			if tc.settings.mandatory {
				p.MandatoryDecisionGroups.MandatoryDecisionGroups = []clusterv1alpha1.MandatoryDecisionGroup{{GroupName: "canary"}}
			}
			ro := Placement{Existing: tc.existing, PerGroup: tc.perGroup, Claimed: sets.New(tc.claimed...)}
			got := decideOn(t, ro, tc.groups, clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.Progressive, Progressive: p})
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("rollout (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRolloutSettings(t *testing.T) {
	for name, strategy := range map[string]clusterv1alpha1.RolloutStrategy{
		"progressDeadline not a duration": {Type: clusterv1alpha1.ProgressivePerGroup,
			ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{RolloutConfig: clusterv1alpha1.RolloutConfig{ProgressDeadline: "soon"}}},
		"maxFailures not a percentage": {Type: clusterv1alpha1.ProgressivePerGroup,
			ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{RolloutConfig: clusterv1alpha1.RolloutConfig{MaxFailures: intstr.FromString("half")}}},
		"maxFailures empty": {Type: clusterv1alpha1.Progressive,
			Progressive: &clusterv1alpha1.RolloutProgressive{RolloutConfig: clusterv1alpha1.RolloutConfig{MaxFailures: intstr.FromString("")}}},
		"maxConcurrency not a percentage": {Type: clusterv1alpha1.Progressive,
			Progressive: &clusterv1alpha1.RolloutProgressive{MaxConcurrency: intstr.FromString("few")}},
		"All's progressDeadline not a duration": {Type: clusterv1alpha1.All,
			All: &clusterv1alpha1.RolloutAll{RolloutConfig: clusterv1alpha1.RolloutConfig{ProgressDeadline: "-1m"}}},
		"an unknown type": {Type: "Canary"},
	} {
		t.Run(name, func(t *testing.T) {
			tracker := placementsdk.NewPlacementDecisionClustersTrackerWithGroups(nil, nil, placementsdk.ClusterGroupsMap{{}: sets.New("a")})
			if _, err := (Placement{Tracker: tracker, Now: rolloutNow}).Decide(strategy); err == nil {
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
