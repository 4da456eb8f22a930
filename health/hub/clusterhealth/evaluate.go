package clusterhealth

import (
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/corral-dev/corral/health/api"
)

// Evaluate judges rep (nil: no report yet) by s at now. stale, when
// positive, is how long until the report goes stale.
func Evaluate(rep *api.Report, s api.Settings, now time.Time) (cond metav1.Condition, stale time.Duration) {
	cond = metav1.Condition{Type: api.ConditionHealthy}
	if rep == nil {
		cond.Status, cond.Reason, cond.Message = metav1.ConditionUnknown, api.ReasonNoReport, "the health agent has not reported yet"
		return cond, 0
	}
	age := now.Sub(rep.ProbeTime.Time)
	if age > s.StaleAfter.Duration {
		cond.Status, cond.Reason = metav1.ConditionFalse, api.ReasonReportStale
		cond.Message = fmt.Sprintf("no health report since %s, more than %s ago: the agent or its way to the hub is down",
			rep.ProbeTime.UTC().Format(time.RFC3339), s.StaleAfter)
		return cond, 0
	}
	stale = s.StaleAfter.Duration - age + time.Second
	var reasons, failed []string
	fail := func(reason, msg string) {
		reasons = append(reasons, reason)
		failed = append(failed, msg)
	}
	if !rep.Livez.OK {
		fail(api.ReasonAPIServerNotLive, "API server not live: "+rep.Livez.Message)
	}
	if !rep.Readyz.OK {
		fail(api.ReasonAPIServerNotReady, "API server not ready: "+rep.Readyz.Message)
	}
	nodes := nodesMessage(rep.Nodes)
	switch {
	case rep.Nodes.Error != "":
		fail(api.ReasonNodesNotReady, "nodes unknown: "+rep.Nodes.Error)
	case rep.Nodes.Total > 0 && float64(rep.Nodes.Ready) < s.MinReadyNodeShare*float64(rep.Nodes.Total):
		fail(api.ReasonNodesNotReady, fmt.Sprintf("%s, below the %.0f%% required", nodes, 100*s.MinReadyNodeShare))
	}
	for _, w := range rep.Workloads {
		if !w.Available {
			fail(api.ReasonWorkloadsUnavailable, fmt.Sprintf("%s not Available: %s", w.WorkloadRef, w.Message))
		}
	}
	if len(failed) > 0 {
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, reasons[0], strings.Join(failed, "; ")
		return cond, stale
	}
	cond.Status, cond.Reason = metav1.ConditionTrue, api.ReasonHealthy
	cond.Message = fmt.Sprintf("API server live and ready; %s", nodes)
	if len(rep.Workloads) > 0 {
		cond.Message += fmt.Sprintf("; %d workloads Available", len(rep.Workloads))
	}
	return cond, stale
}

// nodesMessage says how many nodes are Ready.
func nodesMessage(n api.Nodes) string {
	if n.Total == 0 {
		return "no nodes"
	}
	msg := fmt.Sprintf("%d/%d nodes Ready (%.0f%%)", n.Ready, n.Total, 100*float64(n.Ready)/float64(n.Total))
	if len(n.NotReady) > 0 {
		msg += ", not Ready: " + strings.Join(n.NotReady, ", ")
	}
	return msg
}
