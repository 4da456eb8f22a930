package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	healthapi "github.com/corral-dev/corral/health/api"
	propertiesapi "github.com/corral-dev/corral/properties/api"
)

func TestPrintClusterTable(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	clusters := []clusterv1.ManagedCluster{
		{
			ObjectMeta: metav1.ObjectMeta{Name: "c1", CreationTimestamp: metav1.NewTime(now.Add(-90 * time.Minute)),
				Labels: map[string]string{"cluster.open-cluster-management.io/clusterset": "prod"}},
			Spec: clusterv1.ManagedClusterSpec{HubAcceptsClient: true},
			Status: clusterv1.ManagedClusterStatus{
				Conditions: []metav1.Condition{
					{Type: clusterv1.ManagedClusterConditionJoined, Status: metav1.ConditionTrue},
					{Type: clusterv1.ManagedClusterConditionAvailable, Status: metav1.ConditionTrue},
					{Type: healthapi.ConditionHealthy, Status: metav1.ConditionTrue, Reason: healthapi.ReasonHealthy},
				},
				Version:       clusterv1.ManagedClusterVersion{Kubernetes: "v1.35.4"},
				ClusterClaims: []clusterv1.ManagedClusterClaim{{Name: propertiesapi.ClaimNodes, Value: "3"}},
				Capacity:      clusterv1.ResourceList{clusterv1.ResourceCPU: resource.MustParse("12"), clusterv1.ResourceMemory: resource.MustParse("48Gi")},
			},
		},
		{
			ObjectMeta: metav1.ObjectMeta{Name: "c2", CreationTimestamp: metav1.NewTime(now.Add(-2 * time.Minute))},
			Spec: clusterv1.ManagedClusterSpec{Taints: []clusterv1.Taint{
				{Key: clusterv1.ManagedClusterTaintUnreachable, Effect: clusterv1.TaintEffectNoSelect},
			}},
			Status: clusterv1.ManagedClusterStatus{Conditions: []metav1.Condition{
				{Type: healthapi.ConditionHealthy, Status: metav1.ConditionFalse, Reason: healthapi.ReasonReportStale},
			}},
		},
		{
			ObjectMeta: metav1.ObjectMeta{Name: "c3", CreationTimestamp: metav1.NewTime(now.Add(-time.Hour)), DeletionTimestamp: &metav1.Time{Time: now}},
			Spec:       clusterv1.ManagedClusterSpec{HubAcceptsClient: true},
			Status: clusterv1.ManagedClusterStatus{Conditions: []metav1.Condition{
				{Type: healthapi.ConditionHealthy, Status: metav1.ConditionTrue, Reason: healthapi.ReasonHealthy},
			}},
		},
	}
	var out bytes.Buffer
	PrintClusterTable(&out, clusters, map[string][]string{"c1": {"global", "prod"}}, now)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := [][]string{
		{"NAME", "ACCEPTED", "JOINED", "AVAILABLE", "HEALTH", "VERSION", "NODES", "CPU", "MEMORY", "AGE", "SETS", "TAINTS"},
		{"c1", "true", "True", "True", "Healthy", "v1.35.4", "3", "12", "48Gi", "90m", "global,prod", "-"},
		{"c2", "false", "-", "-", "ReportStale", "-", "-", "-", "-", "2m", "-", "unreachable:NoSelect"},
		{"c3", "true", "-", "-", "Deleting", "-", "-", "-", "-", "60m", "-", "-"},
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want), out.String())
	}
	for i, fields := range want {
		if got := strings.Fields(lines[i]); strings.Join(got, " ") != strings.Join(fields, " ") {
			t.Errorf("line %d = %q, want %q", i, got, fields)
		}
	}
}

func TestPrintClusterTableEmpty(t *testing.T) {
	var out bytes.Buffer
	PrintClusterTable(&out, nil, nil, time.Now())
	if !strings.Contains(out.String(), "No clusters") {
		t.Errorf("got %q", out.String())
	}
}

func TestQuantityShowsMemoryInLargeUnits(t *testing.T) {
	cases := map[string]struct{ in, want string }{
		"kibibytes of a real node": {in: "125347088Ki", want: "119Gi"},
		"whole gibibytes":          {in: "48Gi", want: "48Gi"},
		"mebibytes":                {in: "512Mi", want: "512Mi"},
		"bytes":                    {in: "1000", want: "1k"},
		"a fraction below 10":      {in: "1536Mi", want: "1.5Gi"},
		"tebibytes":                {in: "3Ti", want: "3Ti"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			l := clusterv1.ResourceList{clusterv1.ResourceMemory: resource.MustParse(tc.in)}
			if got := quantity(l, clusterv1.ResourceMemory); got != tc.want {
				t.Errorf("quantity(%s) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}
