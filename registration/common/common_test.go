package common

import (
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
)

func TestHeld(t *testing.T) {
	cond := func(t string, s metav1.ConditionStatus) metav1.Condition { return metav1.Condition{Type: t, Status: s} }
	accepted := cond(clusterv1.ManagedClusterConditionHubAccepted, metav1.ConditionTrue)
	joined := cond(clusterv1.ManagedClusterConditionJoined, metav1.ConditionTrue)
	available := func(s metav1.ConditionStatus) metav1.Condition {
		return cond(clusterv1.ManagedClusterConditionAvailable, s)
	}
	for name, tc := range map[string]struct {
		conds []metav1.Condition
		want  bool
	}{
		"heartbeating, its API server live":     {conds: []metav1.Condition{accepted, joined, available(metav1.ConditionTrue)}, want: true},
		"heartbeating, its API server not live": {conds: []metav1.Condition{accepted, joined, available(metav1.ConditionFalse)}, want: true},
		"lease run out":                         {conds: []metav1.Condition{accepted, joined, available(metav1.ConditionUnknown)}},
		"joined, never reported":                {conds: []metav1.Condition{accepted, joined}},
		"not joined":                            {conds: []metav1.Condition{accepted, available(metav1.ConditionTrue)}},
		"denied":                                {conds: []metav1.Condition{cond(clusterv1.ManagedClusterConditionHubAccepted, metav1.ConditionFalse), joined, available(metav1.ConditionTrue)}},
	} {
		t.Run(name, func(t *testing.T) {
			mc := &clusterv1.ManagedCluster{Status: clusterv1.ManagedClusterStatus{Conditions: tc.conds}}
			if got := Held(mc); got != tc.want {
				t.Errorf("Held = %t, want %t", got, tc.want)
			}
		})
	}
}

func TestValidateClusterName(t *testing.T) {
	for name, wantOK := range map[string]bool{"cluster1": true, "c": true, "local-cluster": true, "Cluster1": false, "a_b": false, "": false, strings.Repeat("a", 64): false,
		"managed-clusters": false, "registration": false, "work": false, "default": false, "kube-system": false, "open-cluster-management-hub": false} {
		if err := ValidateClusterName(name); (err == nil) != wantOK {
			t.Errorf("ValidateClusterName(%q) = %v, want ok %t", name, err, wantOK)
		}
	}
}

func TestClusterNames(t *testing.T) {
	got, err := ClusterNames([]string{"c2", "c1", "c2", "c1", "c3"})
	if err != nil || !slices.Equal(got, []string{"c2", "c1", "c3"}) {
		t.Errorf("ClusterNames = %v, %v; want each once, in first order", got, err)
	}
	if _, err := ClusterNames([]string{"c1", "Bad_Name"}); err == nil {
		t.Error("ClusterNames took a name that is not a DNS-1123 label")
	}
}
