package rollout

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	rolloutsdk "open-cluster-management.io/sdk-go/pkg/apis/cluster/v1alpha1"
)

// GivenAt is when a work was given what it carries: the RFC 3339 time of
// its annotation, or, for a work made before the annotation, when it was
// created.
func GivenAt(w *workv1.ManifestWork, annotation string) metav1.Time {
	if t, err := time.Parse(time.RFC3339, w.Annotations[annotation]); err == nil {
		return metav1.NewTime(t)
	}
	return w.CreationTimestamp
}

// WorkStatus is a work's rollout status, read as OCM reads a work's
// conditions of its current generation: Failed when Progressing and
// Degraded, Succeeded when Progressing is False, otherwise Progressing,
// also while the agent has not reported it yet or could not apply it
// (Applied False: it tries again, and progressDeadline times it out).
// Each counts from when its condition last changed, but never from before
// given, when the work was given what it carries: an agent keeps a
// condition's time while its status stays, so a time from the previous
// rollout would cut short minSuccessTime, or time the new one out at once.
func WorkStatus(w *workv1.ManifestWork, given metav1.Time) (rolloutsdk.RolloutStatus, *metav1.Time) {
	since := func(c *metav1.Condition) *metav1.Time {
		if c == nil || c.LastTransitionTime.Before(&given) {
			return given.DeepCopy()
		}
		return c.LastTransitionTime.DeepCopy()
	}
	applied := meta.FindStatusCondition(w.Status.Conditions, workv1.WorkApplied)
	progressing := meta.FindStatusCondition(w.Status.Conditions, workv1.WorkProgressing)
	degraded := meta.FindStatusCondition(w.Status.Conditions, workv1.WorkDegraded)
	switch {
	case observed(applied, w.Generation) && applied.Status != metav1.ConditionTrue:
		return rolloutsdk.Progressing, since(applied)
	case !observed(applied, w.Generation) || !observed(progressing, w.Generation) || (degraded != nil && !observed(degraded, w.Generation)):
		return rolloutsdk.Progressing, since(nil) // not reported yet
	case progressing.Status == metav1.ConditionTrue && degraded != nil && degraded.Status == metav1.ConditionTrue:
		return rolloutsdk.Failed, since(degraded)
	case progressing.Status == metav1.ConditionFalse:
		return rolloutsdk.Succeeded, since(progressing)
	}
	return rolloutsdk.Progressing, since(progressing)
}

func observed(c *metav1.Condition, generation int64) bool {
	return c != nil && c.ObservedGeneration == generation
}
