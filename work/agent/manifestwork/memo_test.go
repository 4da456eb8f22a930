package manifestwork

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"
)

func TestWriteMemoSeesOnlyTheLastWrite(t *testing.T) {
	m := newWriteMemo()
	if m.seen("a", "x") {
		t.Fatal("a first write was seen before")
	}
	if !m.seen("a", "x") {
		t.Error("the same write again was not seen")
	}
	if m.seen("b", "x") {
		t.Error("another object's write was seen")
	}
	if m.seen("a", "y") {
		t.Error("a different write was seen")
	}
	if m.seen("a", "x") {
		t.Error("a write older than the last one was seen")
	}
	m.forget("a")
	if m.seen("a", "x") {
		t.Error("a forgotten write was seen")
	}
}

func TestWithoutTransitionTimesMakesRecomputedStatusesEqual(t *testing.T) {
	status := func(at time.Time, applied metav1.ConditionStatus) *workv1.ManifestWorkStatus {
		c := metav1.Condition{Type: workv1.WorkApplied, Status: applied, Reason: "r", LastTransitionTime: metav1.NewTime(at)}
		st := &workv1.ManifestWorkStatus{Conditions: []metav1.Condition{c}}
		st.ResourceStatus.Manifests = []workv1.ManifestCondition{{Conditions: []metav1.Condition{c}}}
		return st
	}
	m := newWriteMemo()
	now := time.Now()
	m.seen("w", withoutTransitionTimes(status(now, metav1.ConditionTrue)))
	if !m.seen("w", withoutTransitionTimes(status(now.Add(time.Second), metav1.ConditionTrue))) {
		t.Error("a status differing only in transition times was written again")
	}
	if m.seen("w", withoutTransitionTimes(status(now, metav1.ConditionFalse))) {
		t.Error("a status with another condition status was not written")
	}
	if st := status(now, metav1.ConditionTrue); withoutTransitionTimes(st) == st || st.Conditions[0].LastTransitionTime.IsZero() {
		t.Error("withoutTransitionTimes changed the status it was given")
	}
}
