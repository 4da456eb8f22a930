package manifestwork

import (
	"context"
	"errors"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/corral-dev/corral/internal/testing/builder"
	"github.com/corral-dev/corral/work/agent/apply"
)

func TestNotAppliedReason(t *testing.T) {
	cases := map[string]struct {
		err    error
		reason string
	}{
		"any failure":                           {err: errors.New("webhook not ready"), reason: workv1.AppliedManifestFailed},
		"a server-side apply conflict":          {err: fmt.Errorf("apply: %w", &apply.ConflictError{Err: errors.New("conflict")}), reason: "ApplyConflict"},
		"ignoreFields that cannot be processed": {err: &apply.IgnoreFieldsError{Err: errors.New("jq")}, reason: workv1.AppliedManifestSSAIgnoreFieldError},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := notAppliedReason(tc.err); got != tc.reason {
				t.Errorf("notAppliedReason(%v) = %q, want %q", tc.err, got, tc.reason)
			}
		})
	}
}

func TestCompleted(t *testing.T) {
	obj := &unstructured.Unstructured{}
	obj.SetAPIVersion("v1")
	obj.SetKind("ConfigMap")
	obj.SetNamespace("ns")
	obj.SetName("job")
	mapping := &meta.RESTMapping{Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Scope: meta.RESTScopeNamespace}
	m := manifest{obj: obj, mapping: mapping, result: apply.Result{Key: apply.Key{GVR: mapping.Resource, Namespace: "ns", Name: "job"}}}
	status := func(rm workv1.ManifestResourceMeta, complete metav1.ConditionStatus) *workv1.ManifestWork {
		return builder.Work("", "").ManifestStatus(workv1.ManifestCondition{ResourceMeta: rm,
			Conditions: []metav1.Condition{{Type: workv1.ManifestComplete, Status: complete}}}).Obj()
	}
	other := m.resourceMeta(0)
	other.Name = "other"
	cases := map[string]struct {
		before    *workv1.ManifestWork
		completed bool
	}{
		"marked Complete":              {before: status(m.resourceMeta(0), metav1.ConditionTrue), completed: true},
		"not complete":                 {before: status(m.resourceMeta(0), metav1.ConditionFalse)},
		"another object at that place": {before: status(other, metav1.ConditionTrue)},
		"no status yet":                {before: &workv1.ManifestWork{}},
		"the work Complete, the manifest not": {before: func() *workv1.ManifestWork {
			w := status(m.resourceMeta(0), metav1.ConditionFalse)
			w.Status.Conditions = []metav1.Condition{{Type: workv1.WorkComplete, Status: metav1.ConditionTrue}}
			return w
		}(), completed: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := &scope{before: tc.before, manifests: []manifest{m}}
			if got := completed(s, 0); got != tc.completed {
				t.Errorf("completed = %v, want %v", got, tc.completed)
			}
		})
	}
}

// TestAStatusWriteThatLostARaceIsWrittenNextTime: the status is written
// as an update of the version the reconcile read. A work changed on the
// hub meanwhile makes it a conflict, which must not be remembered as
// written, so that the next reconcile, on the current version, writes it.
func TestAStatusWriteThatLostARaceIsWrittenNextTime(t *testing.T) {
	ctx := context.Background()
	key := client.ObjectKey{Namespace: "cluster1", Name: "web"}
	work := &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name, UID: "work-uid", Generation: 1}}
	hub := fake.NewClientBuilder().WithScheme(managedScheme(t)).WithObjects(work).WithStatusSubresource(work).Build()
	read := &workv1.ManifestWork{}
	if err := hub.Get(ctx, key, read); err != nil {
		t.Fatal(err)
	}
	edited := read.DeepCopy()
	edited.Labels = map[string]string{"edited": "on the hub"}
	if err := hub.Update(ctx, edited); err != nil {
		t.Fatal(err)
	}
	r := &Reconciler{hub: hub, statuses: newWriteMemo()}

	_, err := r.writeStatus(ctx, &scope{work: read.DeepCopy(), before: read.DeepCopy()})
	if !apierrors.IsConflict(err) {
		t.Fatalf("writing the status of a version changed since: %v, want a conflict", err)
	}
	current := &workv1.ManifestWork{}
	if err := hub.Get(ctx, key, current); err != nil {
		t.Fatal(err)
	}
	if _, err := r.writeStatus(ctx, &scope{work: current.DeepCopy(), before: current.DeepCopy()}); err != nil {
		t.Fatalf("writing the status of the current version: %v", err)
	}
	if err := hub.Get(ctx, key, current); err != nil {
		t.Fatal(err)
	}
	if c := meta.FindStatusCondition(current.Status.Conditions, workv1.WorkApplied); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("the work's Applied condition after the second reconcile: %v, want True: the lost write was remembered as written", c)
	}
	if current.Labels["edited"] == "" {
		t.Error("the status write lost the hub's edit")
	}
}
