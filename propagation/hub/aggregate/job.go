package aggregate

import (
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	workv1 "open-cluster-management.io/api/work/v1"
)

// Reasons of the template Job's conditions.
const (
	// ReasonCompletionsReached: every cluster's job completed.
	ReasonCompletionsReached = "CompletionsReached"
)

// job has no observedGeneration: a Job's spec does not change, and it is
// done when it is finished. The template is Complete when every
// cluster's job is; Failed when every cluster's job finished and one
// failed, with the first failed one's reason. Each comes with the
// condition the job controller sets before it (SuccessCriteriaMet,
// FailureTarget), which the API server requires of a Job's status. Until every cluster's job has finished the
// template has no finished condition, so it is not finished with pods
// still active somewhere.
var job = &workload{
	counters: []string{"active", "succeeded", "failed", "ready"},
	extra: []workv1.JsonPath{
		{Name: FeedbackComplete, Path: conditionPath(string(batchv1.JobComplete), "status")},
		{Name: FeedbackFailed, Path: conditionPath(string(batchv1.JobFailed), "status")},
		{Name: FeedbackFailedReason, Path: conditionPath(string(batchv1.JobFailed), "reason")},
		{Name: FeedbackStartTime, Path: ".status.startTime"},
		{Name: FeedbackCompletionTime, Path: ".status.completionTime"},
	},
	finish: func(status map[string]any, ms []named) error {
		start, err := timeOf(ms, FeedbackStartTime, time.Time.Before)
		if err != nil {
			return err
		}
		if start != "" {
			status["startTime"] = start
		}
		if len(ms) == 0 {
			return nil
		}
		var failed []named
		for _, m := range ms {
			complete := m.str(FeedbackComplete) == "True"
			fail := m.str(FeedbackFailed) == "True"
			if !m.observed(false) || (!complete && !fail) {
				return nil
			}
			if fail {
				failed = append(failed, m)
			}
		}
		if len(failed) == 0 {
			end, err := timeOf(ms, FeedbackCompletionTime, time.Time.After)
			if err != nil {
				return err
			}
			status["completionTime"] = end
			msg := "the job completed on every cluster"
			status["conditions"] = []any{
				jobCondition(batchv1.JobSuccessCriteriaMet, ReasonCompletionsReached, msg),
				jobCondition(batchv1.JobComplete, ReasonCompletionsReached, msg),
			}
			return nil
		}
		reason := failed[0].str(FeedbackFailedReason)
		msg := "the job failed on cluster " + clusters(failed)
		status["conditions"] = []any{
			jobCondition(batchv1.JobFailureTarget, reason, msg),
			jobCondition(batchv1.JobFailed, reason, msg),
		}
		return nil
	},
	typed: func() any { return &batchv1.JobStatus{} },
}

func jobCondition(t batchv1.JobConditionType, reason, msg string) map[string]any {
	return map[string]any{"type": string(t), "status": "True", "reason": reason, "message": msg}
}

// timeOf is the time value name of the member first by first (earliest
// or latest), "" when none fed it back.
func timeOf(ms []named, name string, first func(time.Time, time.Time) bool) (string, error) {
	var best time.Time
	var out string
	for _, m := range ms {
		s := m.str(name)
		if s == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return "", fmt.Errorf("cluster %s: feedback %s: %w", m.cluster, name, err)
		}
		if out == "" || first(t, best) {
			best, out = t, s
		}
	}
	return out, nil
}
