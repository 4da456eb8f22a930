package replicaset

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	rolloutsdk "open-cluster-management.io/sdk-go/pkg/apis/cluster/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/steps"
)

// updateStatus writes the set's summaries and conditions, once, when they
// changed.
func (r *Reconciler) updateStatus(ctx context.Context, s *scope) (steps.Result, error) {
	status := &s.set.Status
	status.Summary = workv1alpha1.ManifestWorkReplicaSetSummary{}
	status.PlacementsSummary = []workv1alpha1.PlacementSummary{}
	var succeeded, timedOut int
	breach := false
	for _, p := range s.placements {
		works := s.worksOf(p.name)
		sum := summarize(works, s.hash)
		sum.DesiredTotal = p.decided().Len()
		status.PlacementsSummary = append(status.PlacementsSummary, workv1alpha1.PlacementSummary{
			Name: p.name, Summary: sum, AvailableDecisionGroups: availableGroups(p, works),
		})
		add(&status.Summary, sum)
		for c := range p.decided() {
			if p.status[c] == rolloutsdk.Succeeded {
				succeeded++
			}
		}
		timedOut += p.timedOut
		breach = breach || p.failureBreach
	}
	gen := s.set.Generation
	verified := placementVerified(s.placements, status.Summary.DesiredTotal)
	verified.ObservedGeneration = gen
	meta.SetStatusCondition(&status.Conditions, verified)
	applied := worksApplied(status.Summary, verified, s.rolloutErr)
	applied.ObservedGeneration = gen
	meta.SetStatusCondition(&status.Conditions, applied)
	rolled := rolledOut(succeeded, status.Summary.DesiredTotal, timedOut, breach)
	rolled.ObservedGeneration = gen
	meta.SetStatusCondition(&status.Conditions, rolled)

	if equality.Semantic.DeepEqual(s.original.Status, s.set.Status) {
		return steps.Continue, nil
	}
	if err := r.Client.Status().Patch(ctx, s.set, client.MergeFrom(s.original)); err != nil {
		return steps.Continue, fmt.Errorf("updating the status: %w", err)
	}
	ctrl.LoggerFrom(ctx).V(4).Info("Updated the status", "summary", status.Summary)
	return steps.Continue, nil
}

// worksOf are the set's works for the placement, but those going.
func (s *scope) worksOf(placement string) []workv1.ManifestWork {
	var out []workv1.ManifestWork
	for _, w := range s.works {
		if w.Labels[workv1alpha1.ManifestWorkReplicaSetPlacementNameLabelKey] == placement && w.DeletionTimestamp.IsZero() {
			out = append(out, w)
		}
	}
	return out
}

// summarize counts the works by their conditions; Updated are those made
// from the current template and applied by their agent since.
func summarize(works []workv1.ManifestWork, hash string) workv1alpha1.ManifestWorkReplicaSetSummary {
	sum := workv1alpha1.ManifestWorkReplicaSetSummary{Total: len(works)}
	for _, w := range works {
		conds := w.Status.Conditions
		if meta.IsStatusConditionTrue(conds, workv1.WorkApplied) {
			sum.Applied++
			if c := meta.FindStatusCondition(conds, workv1.WorkApplied); c.ObservedGeneration == w.Generation && w.Annotations[TemplateHashAnnotation] == hash {
				sum.Updated++
			}
		}
		if meta.IsStatusConditionTrue(conds, workv1.WorkAvailable) {
			sum.Available++
		}
		if meta.IsStatusConditionTrue(conds, workv1.WorkDegraded) {
			sum.Degraded++
		}
		if meta.IsStatusConditionTrue(conds, workv1.WorkProgressing) {
			sum.Progressing++
		}
	}
	return sum
}

func add(to *workv1alpha1.ManifestWorkReplicaSetSummary, s workv1alpha1.ManifestWorkReplicaSetSummary) {
	to.Total += s.Total
	to.Applied += s.Applied
	to.Available += s.Available
	to.Degraded += s.Degraded
	to.Progressing += s.Progressing
	to.DesiredTotal += s.DesiredTotal
	to.Updated += s.Updated
}

// availableGroups says how many of the placement's decision groups have an
// Available work on every cluster, of how many: "2/4".
func availableGroups(p placementResult, works []workv1.ManifestWork) string {
	available := sets.New[string]()
	for _, w := range works {
		if meta.IsStatusConditionTrue(w.Status.Conditions, workv1.WorkAvailable) {
			available.Insert(w.Namespace)
		}
	}
	done := 0
	for _, clusters := range p.groups {
		if available.IsSuperset(clusters) {
			done++
		}
	}
	return fmt.Sprintf("%d/%d", done, len(p.groups))
}

// placementVerified is True when every placement was found and followed
// and together they select some cluster.
func placementVerified(placements []placementResult, desired int) metav1.Condition {
	for _, p := range placements {
		if p.problem != "" {
			return metav1.Condition{Type: workv1alpha1.ManifestWorkReplicaSetConditionPlacementVerified, Status: metav1.ConditionFalse, Reason: p.problem, Message: p.message}
		}
	}
	if desired == 0 {
		return metav1.Condition{Type: workv1alpha1.ManifestWorkReplicaSetConditionPlacementVerified, Status: metav1.ConditionFalse,
			Reason: workv1alpha1.ReasonPlacementDecisionEmpty, Message: "the placements' decisions select no cluster"}
	}
	names := make([]string, len(placements))
	for i, p := range placements {
		names[i] = p.name
	}
	return metav1.Condition{Type: workv1alpha1.ManifestWorkReplicaSetConditionPlacementVerified, Status: metav1.ConditionTrue,
		Reason: workv1alpha1.ReasonAsExpected, Message: fmt.Sprintf("%d clusters selected by %s", desired, strings.Join(names, ", "))}
}

// worksApplied is True when every selected cluster has a work of the
// current template, Available, and none is Progressing or Degraded.
func worksApplied(sum workv1alpha1.ManifestWorkReplicaSetSummary, verified metav1.Condition, rolloutErr error) metav1.Condition {
	c := metav1.Condition{Type: workv1alpha1.ManifestWorkReplicaSetConditionManifestworkApplied, Status: metav1.ConditionFalse}
	switch {
	case rolloutErr != nil:
		c.Reason, c.Message = workv1alpha1.ReasonNotAsExpected, rolloutErr.Error()
	case sum.Total == 0 && verified.Reason == workv1alpha1.ReasonPlacementDecisionEmpty:
		c.Reason, c.Message = workv1alpha1.ReasonPlacementDecisionEmpty, "no ManifestWork: no cluster is selected"
	case sum.Total == 0:
		c.Reason, c.Message = workv1alpha1.ReasonNotAsExpected, "no ManifestWork: "+verified.Message
	case sum.Degraded > 0:
		c.Reason, c.Message = workv1alpha1.ReasonNotAsExpected, fmt.Sprintf("%d of %d ManifestWorks are Degraded", sum.Degraded, sum.Total)
	case sum.Total == sum.DesiredTotal && sum.Updated == sum.Total && sum.Available == sum.Total && sum.Progressing == 0:
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, workv1alpha1.ReasonAsExpected, fmt.Sprintf("all %d ManifestWorks are applied and available", sum.Total)
	default:
		c.Reason, c.Message = workv1alpha1.ReasonProcessing, fmt.Sprintf("%d of %d clusters have the current template applied, %d available", sum.Updated, sum.DesiredTotal, sum.Available)
	}
	return c
}

// rolledOut is True (Complete) when the work succeeded on every selected
// cluster.
func rolledOut(succeeded, desired, timedOut int, breach bool) metav1.Condition {
	msg := fmt.Sprintf("%d of %d clusters rolled out", succeeded, desired)
	if timedOut > 0 {
		msg += fmt.Sprintf(", %d past their progressDeadline", timedOut)
	}
	if breach {
		msg += "; stopped: more clusters failed than maxFailures allows"
	}
	if succeeded == desired {
		return metav1.Condition{Type: workv1alpha1.ManifestWorkReplicaSetConditionPlacementRolledOut, Status: metav1.ConditionTrue, Reason: workv1alpha1.ReasonComplete, Message: msg}
	}
	return metav1.Condition{Type: workv1alpha1.ManifestWorkReplicaSetConditionPlacementRolledOut, Status: metav1.ConditionFalse, Reason: workv1alpha1.ReasonProgressing, Message: msg}
}
