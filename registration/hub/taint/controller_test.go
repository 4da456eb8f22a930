package taint

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
)

func TestDesired(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC))
	earlier := metav1.NewTime(now.Add(-time.Hour))
	available := func(s metav1.ConditionStatus) []metav1.Condition {
		return []metav1.Condition{{Type: clusterv1.ManagedClusterConditionAvailable, Status: s}}
	}
	unreachable := func(at metav1.Time) clusterv1.Taint {
		return clusterv1.Taint{Key: clusterv1.ManagedClusterTaintUnreachable, Effect: clusterv1.TaintEffectNoSelect, TimeAdded: at}
	}
	unavailable := func(at metav1.Time) clusterv1.Taint {
		return clusterv1.Taint{Key: clusterv1.ManagedClusterTaintUnavailable, Effect: clusterv1.TaintEffectNoSelect, TimeAdded: at}
	}
	user := clusterv1.Taint{Key: "team/maintenance", Effect: clusterv1.TaintEffectPreferNoSelect, TimeAdded: earlier}

	cases := map[string]struct {
		current    []clusterv1.Taint
		conditions []metav1.Condition
		want       []clusterv1.Taint
	}{
		"no Available condition: unreachable":   {want: []clusterv1.Taint{unreachable(now)}},
		"Available Unknown: unreachable":        {conditions: available(metav1.ConditionUnknown), want: []clusterv1.Taint{unreachable(now)}},
		"Available False: unavailable":          {conditions: available(metav1.ConditionFalse), want: []clusterv1.Taint{unavailable(now)}},
		"Available True: no availability taint": {conditions: available(metav1.ConditionTrue)},
		"recovery removes the taint, keeps the user's": {
			current:    []clusterv1.Taint{user, unreachable(earlier)},
			conditions: available(metav1.ConditionTrue),
			want:       []clusterv1.Taint{user},
		},
		"a taint that stays keeps its timeAdded": {
			current:    []clusterv1.Taint{unreachable(earlier)},
			conditions: available(metav1.ConditionUnknown),
			want:       []clusterv1.Taint{unreachable(earlier)},
		},
		"unreachable turning unavailable swaps the taint": {
			current:    []clusterv1.Taint{unreachable(earlier), user},
			conditions: available(metav1.ConditionFalse),
			want:       []clusterv1.Taint{user, unavailable(now)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Desired(tc.current, tc.conditions, now)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Desired() (-want +got):\n%s", diff)
			}
		})
	}
}
