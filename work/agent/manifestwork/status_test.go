package manifestwork

import (
	"errors"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	workv1 "open-cluster-management.io/api/work/v1"

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
		w := &workv1.ManifestWork{}
		w.Status.ResourceStatus.Manifests = []workv1.ManifestCondition{{ResourceMeta: rm,
			Conditions: []metav1.Condition{{Type: workv1.ManifestComplete, Status: complete}}}}
		return w
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
