package replicaset

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clocktesting "k8s.io/utils/clock/testing"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	rolloutsdk "open-cluster-management.io/sdk-go/pkg/apis/cluster/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/corral-dev/corral/internal/rollout"
	"github.com/corral-dev/corral/internal/testing/builder"
)

func cond(t string, s metav1.ConditionStatus, gen int64, at time.Time) metav1.Condition {
	return metav1.Condition{Type: t, Status: s, Reason: "Test", ObservedGeneration: gen, LastTransitionTime: metav1.NewTime(at)}
}

func TestClusterStatus(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	given := at.Add(-time.Hour) // the work was given its template an hour before its conditions changed
	work := func(hash string, conds ...metav1.Condition) *workv1.ManifestWork {
		return builder.Work("c1", "").Generation(2).
			Annotation(TemplateHashAnnotation, hash).Annotation(TemplateTimeAnnotation, given.Format(time.RFC3339)).
			Condition(conds...).Obj()
	}
	applied := cond(workv1.WorkApplied, metav1.ConditionTrue, 2, at)
	done := cond(workv1.WorkProgressing, metav1.ConditionFalse, 2, at)
	cases := map[string]struct {
		work      *workv1.ManifestWork
		want      rolloutsdk.RolloutStatus
		wantSince time.Time
	}{
		"another template":          {work: work("old", applied, done), want: rolloutsdk.ToApply},
		"not reported yet":          {work: work("h"), want: rolloutsdk.Progressing, wantSince: given},
		"applied, older generation": {work: work("h", cond(workv1.WorkApplied, metav1.ConditionTrue, 1, at), cond(workv1.WorkProgressing, metav1.ConditionFalse, 1, at)), want: rolloutsdk.Progressing, wantSince: given},
		"applied, no Progressing":   {work: work("h", applied), want: rolloutsdk.Progressing, wantSince: given},
		"stale Degraded":            {work: work("h", applied, done, cond(workv1.WorkDegraded, metav1.ConditionFalse, 1, at)), want: rolloutsdk.Progressing, wantSince: given},
		"not applied: in progress":  {work: work("h", cond(workv1.WorkApplied, metav1.ConditionFalse, 2, at)), want: rolloutsdk.Progressing, wantSince: at},
		"progressing":               {work: work("h", applied, cond(workv1.WorkProgressing, metav1.ConditionTrue, 2, at)), want: rolloutsdk.Progressing, wantSince: at},
		"failed":                    {work: work("h", applied, cond(workv1.WorkProgressing, metav1.ConditionTrue, 2, at), cond(workv1.WorkDegraded, metav1.ConditionTrue, 2, at)), want: rolloutsdk.Failed, wantSince: at},
		"succeeded":                 {work: work("h", applied, done), want: rolloutsdk.Succeeded, wantSince: at},
		"succeeded before the template: since the template": {work: work("h", applied, cond(workv1.WorkProgressing, metav1.ConditionFalse, 2, given.Add(-24*time.Hour))),
			want: rolloutsdk.Succeeded, wantSince: given},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := clusterStatus(tc.work, "h")
			if got.Status != tc.want {
				t.Fatalf("status %d, want %d", got.Status, tc.want)
			}
			if got.Status != rolloutsdk.ToApply && !got.LastTransitionTime.Time.Equal(tc.wantSince) {
				t.Errorf("since %s, want %s", got.LastTransitionTime, tc.wantSince)
			}
		})
	}
}

func TestConditions(t *testing.T) {
	sum := func(total, desired, updated, available, progressing, degraded int) workv1alpha1.ManifestWorkReplicaSetSummary {
		return workv1alpha1.ManifestWorkReplicaSetSummary{Total: total, DesiredTotal: desired, Updated: updated, Applied: updated,
			Available: available, Progressing: progressing, Degraded: degraded}
	}
	verified := metav1.Condition{Reason: workv1alpha1.ReasonAsExpected}
	cases := map[string]struct {
		sum        workv1alpha1.ManifestWorkReplicaSetSummary
		verified   metav1.Condition
		err        error
		wantReason string
	}{
		"all available":       {sum: sum(2, 2, 2, 2, 0, 0), verified: verified, wantReason: workv1alpha1.ReasonAsExpected},
		"rollout not done":    {sum: sum(1, 2, 1, 1, 0, 0), verified: verified, wantReason: workv1alpha1.ReasonProcessing},
		"progressing":         {sum: sum(2, 2, 2, 1, 1, 0), verified: verified, wantReason: workv1alpha1.ReasonProcessing},
		"degraded":            {sum: sum(2, 2, 2, 1, 1, 1), verified: verified, wantReason: workv1alpha1.ReasonNotAsExpected},
		"nothing selected":    {verified: metav1.Condition{Reason: workv1alpha1.ReasonPlacementDecisionEmpty}, wantReason: workv1alpha1.ReasonPlacementDecisionEmpty},
		"placement missing":   {verified: metav1.Condition{Reason: workv1alpha1.ReasonPlacementDecisionNotFound}, wantReason: workv1alpha1.ReasonNotAsExpected},
		"a work not writable": {sum: sum(2, 2, 2, 2, 0, 0), verified: verified, err: context.DeadlineExceeded, wantReason: workv1alpha1.ReasonNotAsExpected},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := worksApplied(tc.sum, tc.verified, tc.err)
			if c.Reason != tc.wantReason || (c.Status == metav1.ConditionTrue) != (tc.wantReason == workv1alpha1.ReasonAsExpected) {
				t.Errorf("%s %s (%s), want reason %s", c.Status, c.Reason, c.Message, tc.wantReason)
			}
		})
	}
	if c := rolledOut(2, 3, 1, true); c.Status != metav1.ConditionFalse || c.Message != "2 of 3 clusters rolled out, 1 past their progressDeadline; stopped: more clusters failed than maxFailures allows" {
		t.Errorf("rolled out: %+v", c)
	}
	if c := rolledOut(3, 3, 0, false); c.Status != metav1.ConditionTrue || c.Reason != workv1alpha1.ReasonComplete {
		t.Errorf("rolled out: %+v", c)
	}
}

func fakeClient(t *testing.T, funcs interceptor.Funcs, objs ...client.Object) client.Client {
	t.Helper()
	s := runtime.NewScheme()
	for _, install := range []func(*runtime.Scheme) error{workv1.Install, workv1alpha1.Install, clusterv1beta1.Install} {
		if err := install(s); err != nil {
			t.Fatal(err)
		}
	}
	return fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).WithInterceptorFuncs(funcs).
		WithStatusSubresource(&workv1alpha1.ManifestWorkReplicaSet{}).
		WithIndex(&workv1alpha1.ManifestWorkReplicaSet{}, PlacementRefIndex, indexByPlacement).Build()
}

func newSet() *workv1alpha1.ManifestWorkReplicaSet {
	return &workv1alpha1.ManifestWorkReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "web", Generation: 1,
		Finalizers: []string{workv1alpha1.ManifestWorkReplicaSetFinalizer}, Labels: map[string]string{"team": "a"}},
		Spec: workv1alpha1.ManifestWorkReplicaSetSpec{PlacementRefs: []workv1alpha1.LocalPlacementReference{{Name: "p"}}}}
}

func TestRollOutAll(t *testing.T) {
	placement := &clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "p"}}
	// A decision without group labels, as written by hand: group 0.
	decision := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "p-1",
		Labels: map[string]string{clusterv1beta1.PlacementLabel: "p"}},
		Status: clusterv1beta1.PlacementDecisionStatus{Decisions: []clusterv1beta1.ClusterDecision{{ClusterName: "c1"}, {ClusterName: "c2"}}}}
	gone := &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: "c3", Name: "web", Labels: map[string]string{
		workv1alpha1.ManifestWorkReplicaSetControllerNameLabelKey: "apps.web", workv1alpha1.ManifestWorkReplicaSetPlacementNameLabelKey: "p"}}}
	c := fakeClient(t, interceptor.Funcs{}, placement, decision, gone)
	r := &Reconciler{Client: c, Clock: clocktesting.NewFakeClock(time.Now()), recheck: rollout.NewRechecker(clocktesting.NewFakeClock(time.Now()))}
	s := &scope{set: newSet()}
	s.original = s.set.DeepCopy()
	if _, err := r.listWorks(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if _, err := r.rollOut(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	works := &workv1.ManifestWorkList{}
	if err := c.List(context.Background(), works); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range works.Items {
		got = append(got, w.Namespace+"/"+w.Name)
		if w.Labels["team"] != "a" || w.Labels[workv1alpha1.ManifestWorkReplicaSetControllerNameLabelKey] != "apps.web" || w.Annotations[TemplateHashAnnotation] != s.hash {
			t.Errorf("work %s/%s: labels %v annotations %v", w.Namespace, w.Name, w.Labels, w.Annotations)
		}
	}
	if diff := cmp.Diff([]string{"c1/web", "c2/web"}, got); diff != "" {
		t.Errorf("works (-want +got):\n%s", diff)
	}
	if len(s.placements) != 1 || s.placements[0].decided().Len() != 2 || s.placements[0].problem != "" {
		t.Errorf("placement result %+v", s.placements)
	}
}

func TestFinalize(t *testing.T) {
	work := func(cluster string) *workv1.ManifestWork {
		return builder.Work(cluster, "web").Finalizer("agent").Label(workv1alpha1.ManifestWorkReplicaSetControllerNameLabelKey, "apps.web").Obj()
	}
	for name, tc := range map[string]struct {
		policy        workv1alpha1.CascadeDeletionPolicy
		wantFinalizer bool
		// staleCache: the cache has not seen the works yet.
		staleCache bool
		// wantLive: the API server is asked before the set lets go.
		wantLive bool
	}{
		"background removes the finalizer once the works are asked to go": {policy: workv1alpha1.Background, wantLive: true},
		"foreground keeps it while a work remains, going by the cache":    {policy: workv1alpha1.Foreground, wantFinalizer: true},
		"works the cache has not seen yet go too":                         {policy: workv1alpha1.Background, staleCache: true, wantLive: true},
		"foreground waits for works the cache has not seen yet":           {policy: workv1alpha1.Foreground, staleCache: true, wantLive: true, wantFinalizer: true},
	} {
		t.Run(name, func(t *testing.T) {
			set := newSet()
			set.Spec.CascadeDeletionPolicy = tc.policy
			now := metav1.Now()
			set.DeletionTimestamp = &now
			c := fakeClient(t, interceptor.Funcs{}, set, work("c1"), work("c2"))
			cache := c
			if tc.staleCache {
				cache = interceptor.NewClient(c.(client.WithWatch), interceptor.Funcs{
					List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
						if _, works := list.(*workv1.ManifestWorkList); works {
							return nil
						}
						return c.List(ctx, list, opts...)
					},
				})
			}
			lists := 0
			live := interceptor.NewClient(c.(client.WithWatch), interceptor.Funcs{
				List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
					lists++
					return c.List(ctx, list, opts...)
				},
			})
			r := &Reconciler{Client: cache, Live: live, recheck: rollout.NewRechecker(clocktesting.NewFakeClock(time.Now()))}
			if err := c.Get(context.Background(), client.ObjectKeyFromObject(set), set); err != nil {
				t.Fatal(err)
			}
			if _, err := r.Reconcile(context.Background(), reconcileRequest(set)); err != nil {
				t.Fatal(err)
			}
			works := &workv1.ManifestWorkList{}
			if err := c.List(context.Background(), works); err != nil {
				t.Fatal(err)
			}
			for _, w := range works.Items {
				if w.DeletionTimestamp.IsZero() {
					t.Errorf("work %s/%s not deleted", w.Namespace, w.Name)
				}
			}
			got := &workv1alpha1.ManifestWorkReplicaSet{}
			err := c.Get(context.Background(), client.ObjectKeyFromObject(set), got)
			if has := err == nil; has != tc.wantFinalizer {
				t.Errorf("set still there (finalizer kept): %v, want %v", has, tc.wantFinalizer)
			}
			if asked := lists > 0; asked != tc.wantLive {
				t.Errorf("listed on the API server: %v, want %v", asked, tc.wantLive)
			}
		})
	}
}

func reconcileRequest(o client.Object) ctrl.Request {
	return ctrl.Request{NamespacedName: client.ObjectKeyFromObject(o)}
}

// twoPlacementSet is the set on placement refs p and q, each deciding the
// clusters given, over a fake client with objs too, and a reconciler and
// a scope of the set, its works listed.
func twoPlacementSet(t *testing.T, decided map[string][]string, funcs interceptor.Funcs, objs ...client.Object) (client.Client, *Reconciler, *scope) {
	t.Helper()
	for _, p := range []string{"p", "q"} {
		var decisions []clusterv1beta1.ClusterDecision
		for _, c := range decided[p] {
			decisions = append(decisions, clusterv1beta1.ClusterDecision{ClusterName: c})
		}
		objs = append(objs, &clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: p}},
			&clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: p + "-1",
				Labels: map[string]string{clusterv1beta1.PlacementLabel: p, clusterv1beta1.DecisionGroupIndexLabel: "0"}},
				Status: clusterv1beta1.PlacementDecisionStatus{Decisions: decisions}})
	}
	set := newSet()
	set.Spec.PlacementRefs = []workv1alpha1.LocalPlacementReference{{Name: "p"}, {Name: "q"}}
	c := fakeClient(t, funcs, append(objs, set)...)
	r := &Reconciler{Client: c, Clock: clocktesting.NewFakeClock(time.Now()), recheck: rollout.NewRechecker(clocktesting.NewFakeClock(time.Now()))}
	s := &scope{set: set}
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(set), s.set); err != nil {
		t.Fatal(err)
	}
	s.original = s.set.DeepCopy()
	if _, err := r.listWorks(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	return c, r, s
}

func TestClusterOfTwoPlacements(t *testing.T) {
	c, r, s := twoPlacementSet(t, map[string][]string{"p": {"c1"}, "q": {"c1"}}, interceptor.Funcs{})
	if _, err := r.rollOut(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	w := &workv1.ManifestWork{}
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: "c1", Name: "web"}, w); err != nil {
		t.Fatal(err)
	}
	if got := w.Labels[workv1alpha1.ManifestWorkReplicaSetPlacementNameLabelKey]; got != "p" {
		t.Errorf("the work is placement %q's, want the first placement ref's, p", got)
	}
	if _, err := r.updateStatus(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if s.set.Status.Summary.DesiredTotal != 1 || s.set.Status.Summary.Total != 1 {
		t.Errorf("summary %+v: want the one cluster counted once", s.set.Status.Summary)
	}
}

// TestClusterMovingToALaterPlacement: a cluster one placement ref no
// longer selects but a later one does keeps its work, which the later
// ref takes over, rather than losing it and getting it back anew.
func TestClusterMovingToALaterPlacement(t *testing.T) {
	old := &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: "web", UID: "old-work", Labels: map[string]string{
		workv1alpha1.ManifestWorkReplicaSetControllerNameLabelKey: "apps.web", workv1alpha1.ManifestWorkReplicaSetPlacementNameLabelKey: "p"}}}
	c, r, s := twoPlacementSet(t, map[string][]string{"q": {"c1"}}, interceptor.Funcs{Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
		t.Errorf("deleted %s/%s", obj.GetNamespace(), obj.GetName())
		return c.Delete(ctx, obj, opts...)
	}}, old)
	if _, err := r.rollOut(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	w := &workv1.ManifestWork{}
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: "c1", Name: "web"}, w); err != nil {
		t.Fatal(err)
	}
	if got := w.Labels[workv1alpha1.ManifestWorkReplicaSetPlacementNameLabelKey]; got != "q" || w.UID != "old-work" {
		t.Errorf("the work is placement %q's (uid %s), want the same work taken over by q", got, w.UID)
	}
}
