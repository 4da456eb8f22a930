package ttl

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/corral-dev/corral/internal/testing/builder"
)

var completedAt = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// finished is a work with ttl (nil: none) and the Complete condition.
func finished(ttl *int64, complete metav1.ConditionStatus) *workv1.ManifestWork {
	b := builder.Work("cluster1", "job").TTLSecondsAfterFinished(ttl)
	if complete != "" {
		b.Condition(metav1.Condition{Type: workv1.WorkComplete, Status: complete, Reason: workv1.WorkManifestsComplete,
			LastTransitionTime: metav1.NewTime(completedAt)})
	}
	return b.Obj()
}

func TestExpiry(t *testing.T) {
	ofSet := finished(ptr.To[int64](0), metav1.ConditionTrue)
	ofSet.Labels = map[string]string{workv1alpha1.ManifestWorkReplicaSetControllerNameLabelKey: "ns.set"}
	deleting := finished(ptr.To[int64](0), metav1.ConditionTrue)
	deleting.DeletionTimestamp = &metav1.Time{Time: completedAt}
	cases := map[string]struct {
		work     *workv1.ManifestWork
		after    time.Duration // since it completed
		wantDue  bool
		wantWait time.Duration
	}{
		"no TTL: kept":                {work: finished(nil, metav1.ConditionTrue), after: time.Hour},
		"no deleteOption: kept":       {work: &workv1.ManifestWork{}, after: time.Hour},
		"not complete: kept":          {work: finished(ptr.To[int64](0), metav1.ConditionFalse), after: time.Hour},
		"no Complete condition: kept": {work: finished(ptr.To[int64](0), ""), after: time.Hour},
		"TTL 0: at once":              {work: finished(ptr.To[int64](0), metav1.ConditionTrue), wantDue: true},
		"TTL not passed: waits":       {work: finished(ptr.To[int64](60), metav1.ConditionTrue), after: 45 * time.Second, wantWait: 15 * time.Second},
		"TTL just passed":             {work: finished(ptr.To[int64](60), metav1.ConditionTrue), after: time.Minute, wantDue: true},
		"TTL long passed":             {work: finished(ptr.To[int64](60), metav1.ConditionTrue), after: time.Hour, wantDue: true},
		"a ManifestWorkReplicaSet's":  {work: ofSet, after: time.Hour},
		"already being deleted":       {work: deleting, after: time.Hour},
		"completed in the clock's future (skew): waits the TTL": {work: finished(ptr.To[int64](1), metav1.ConditionTrue), after: -time.Second, wantWait: 2 * time.Second},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			clock := clocktesting.NewFakePassiveClock(completedAt.Add(tc.after))
			due, wait := expiry(tc.work, clock.Now())
			if due != tc.wantDue || wait != tc.wantWait {
				t.Errorf("expiry = %v, %s; want %v, %s", due, wait, tc.wantDue, tc.wantWait)
			}
		})
	}
}

func TestReconcile(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := workv1.Install(scheme); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		ttl         int64
		after       time.Duration
		wantDeleted bool
		wantResult  ctrl.Result
	}{
		"due: deleted":                  {ttl: 30, after: 31 * time.Second, wantDeleted: true},
		"not due: looked at again then": {ttl: 30, after: 10 * time.Second, wantResult: ctrl.Result{RequeueAfter: 20 * time.Second}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := finished(&tc.ttl, metav1.ConditionTrue)
			c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(w).Build()
			clock := clocktesting.NewFakeClock(completedAt)
			r := &Reconciler{Client: c, Clock: clock}
			clock.Step(tc.after)
			res, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: types.NamespacedName{Namespace: w.Namespace, Name: w.Name}})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantResult, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			err = c.Get(context.Background(), client.ObjectKeyFromObject(w), &workv1.ManifestWork{})
			if deleted := apierrors.IsNotFound(err); deleted != tc.wantDeleted {
				t.Errorf("deleted = %v (%v), want %v", deleted, err, tc.wantDeleted)
			}
		})
	}
}
