package clusterhealth

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/corral-dev/corral/health/api"
)

func healthyReport(at time.Time) *api.Report {
	return &api.Report{
		ProbeTime: metav1.NewTime(at),
		Livez:     api.Check{OK: true}, Readyz: api.Check{OK: true},
		Nodes: api.Nodes{Total: 4, Ready: 4},
	}
}

func TestEvaluate(t *testing.T) {
	now := time.Unix(10000, 0)
	s := api.DefaultSettings() // stale after 90s, half the nodes
	cases := map[string]struct {
		report      func() *api.Report
		settings    func(*api.Settings)
		wantStatus  metav1.ConditionStatus
		wantReason  string
		wantMessage []string
		wantStale   time.Duration
	}{
		"no report": {report: func() *api.Report { return nil }, wantStatus: metav1.ConditionUnknown, wantReason: api.ReasonNoReport},
		"healthy": {
			report:     func() *api.Report { return healthyReport(now.Add(-10 * time.Second)) },
			wantStatus: metav1.ConditionTrue, wantReason: api.ReasonHealthy, wantMessage: []string{"4/4 nodes Ready"},
			wantStale: 81 * time.Second,
		},
		"stale": {
			report:     func() *api.Report { return healthyReport(now.Add(-91 * time.Second)) },
			wantStatus: metav1.ConditionFalse, wantReason: api.ReasonReportStale, wantMessage: []string{"no health report since", "1m30s"},
		},
		"API server down: every failed check named, the first as reason": {
			report: func() *api.Report {
				r := healthyReport(now)
				r.Livez = api.Check{Message: "connection refused"}
				r.Readyz = api.Check{Message: "connection refused"}
				r.Nodes = api.Nodes{Error: "listing nodes: connection refused"}
				return r
			},
			wantStatus: metav1.ConditionFalse, wantReason: api.ReasonAPIServerNotLive,
			wantMessage: []string{"API server not live: connection refused", "API server not ready", "nodes unknown"},
			wantStale:   91 * time.Second,
		},
		"too few nodes Ready": {
			report: func() *api.Report {
				r := healthyReport(now)
				r.Nodes = api.Nodes{Total: 4, Ready: 1, NotReady: []string{"n2", "n3", "n4"}}
				return r
			},
			wantStatus: metav1.ConditionFalse, wantReason: api.ReasonNodesNotReady,
			wantMessage: []string{"1/4 nodes Ready (25%), not Ready: n2, n3, n4, below the 50% required"},
			wantStale:   91 * time.Second,
		},
		"enough nodes Ready by the threshold": {
			report: func() *api.Report {
				r := healthyReport(now)
				r.Nodes = api.Nodes{Total: 4, Ready: 2, NotReady: []string{"n3", "n4"}}
				return r
			},
			wantStatus: metav1.ConditionTrue, wantReason: api.ReasonHealthy, wantMessage: []string{"2/4 nodes Ready (50%)"},
			wantStale: 91 * time.Second,
		},
		"a stricter threshold": {
			report: func() *api.Report {
				r := healthyReport(now)
				r.Nodes = api.Nodes{Total: 4, Ready: 3}
				return r
			},
			settings:   func(s *api.Settings) { s.MinReadyNodeShare = 1 },
			wantStatus: metav1.ConditionFalse, wantReason: api.ReasonNodesNotReady, wantMessage: []string{"3/4", "below the 100% required"},
			wantStale: 91 * time.Second,
		},
		"a workload unavailable": {
			report: func() *api.Report {
				r := healthyReport(now)
				r.Workloads = []api.Workload{{WorkloadRef: api.WorkloadRef{Kind: api.KindDeployment, Namespace: "web", Name: "front"}, Message: "0/3 replicas available"}}
				return r
			},
			wantStatus: metav1.ConditionFalse, wantReason: api.ReasonWorkloadsUnavailable, wantMessage: []string{"Deployment/web/front not Available: 0/3"},
			wantStale: 91 * time.Second,
		},
		"no nodes passes": {
			report: func() *api.Report {
				r := healthyReport(now)
				r.Nodes = api.Nodes{}
				return r
			},
			wantStatus: metav1.ConditionTrue, wantReason: api.ReasonHealthy, wantMessage: []string{"no nodes"},
			wantStale: 91 * time.Second,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			settings := s
			if tc.settings != nil {
				tc.settings(&settings)
			}
			cond, stale := Evaluate(tc.report(), settings, now)
			if cond.Type != api.ConditionHealthy || cond.Status != tc.wantStatus || cond.Reason != tc.wantReason {
				t.Errorf("condition %s=%s (%s), want %s (%s): %s", cond.Type, cond.Status, cond.Reason, tc.wantStatus, tc.wantReason, cond.Message)
			}
			for _, want := range tc.wantMessage {
				if !strings.Contains(cond.Message, want) {
					t.Errorf("message %q does not say %q", cond.Message, want)
				}
			}
			if stale != tc.wantStale {
				t.Errorf("stale in %s, want %s", stale, tc.wantStale)
			}
		})
	}
}
