package aggregate

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubectl/pkg/polymorphichelpers"
	"k8s.io/utils/ptr"
)

// TestKubectlRolloutStatus runs kubectl's own rollout status viewers
// (what `kubectl rollout status` calls) on the hub template with the
// aggregated status, and on each cluster's object alone. The template
// must be done exactly when every cluster's object is; failed (a
// progress deadline) when one failed and the others settled.
//
// naiveDone is what kubectl says when the per-cluster check is left out
// (observedGeneration set as soon as every cluster that fed back
// observed its generation): where it is true and wantDone false, the
// sums alone fool kubectl, and only the per-cluster check keeps it
// waiting. kubectl has no viewer for ReplicaSets and Jobs.
func TestKubectlRolloutStatus(t *testing.T) {
	// The hub template is at generation 3, last aggregated at 2; a nil
	// member object is a cluster that fed nothing back.
	cases := map[string]struct {
		template  runtime.Object
		members   map[string]runtime.Object
		wantDone  bool
		wantErr   bool
		naiveDone bool
	}{
		"deployment: every cluster done": {
			template: deploy(3, 4, dst(2, 0, 0, 0, 0)),
			members: map[string]runtime.Object{
				"c1": deploy(5, 4, dst(5, 4, 4, 4, 4)),
				"c2": deploy(9, 4, dst(9, 4, 4, 4, 4)),
			},
			wantDone: true, naiveDone: true,
		},
		"deployment: one cluster still scaling up, the sums complete": {
			template: deploy(3, 4, dst(2, 0, 0, 0, 0)),
			members: map[string]runtime.Object{
				"c1": deploy(5, 4, dst(5, 4, 4, 4, 4)),
				"c2": deploy(5, 4, dst(5, 2, 2, 2, 2)),
			},
			naiveDone: true,
		},
		"deployment: one cluster fed nothing back": {
			template: deploy(3, 4, dst(2, 0, 0, 0, 0)),
			members: map[string]runtime.Object{
				"c1": deploy(5, 4, dst(5, 4, 4, 4, 4)),
				"c2": nil,
			},
			naiveDone: true,
		},
		"deployment: one cluster has not observed its generation": {
			template: deploy(3, 4, dst(2, 0, 0, 0, 0)),
			members: map[string]runtime.Object{
				"c1": deploy(5, 4, dst(5, 4, 4, 4, 4)),
				"c2": deploy(6, 4, dst(5, 4, 4, 4, 4)),
			},
		},
		"deployment: one cluster past its progress deadline": {
			template: deploy(3, 4, dst(2, 0, 0, 0, 0)),
			members: map[string]runtime.Object{
				"c1": deploy(5, 4, dst(5, 4, 4, 4, 4)),
				"c2": deploy(5, 4, stalled(dst(5, 6, 2, 4, 4))),
			},
			wantErr: true,
		},
		"statefulset: every cluster done": {
			template: sts(3, 4, ptr.To[int32](0), appsv1.StatefulSetStatus{ObservedGeneration: 2}),
			members: map[string]runtime.Object{
				"c1": sts(5, 4, ptr.To[int32](0), ssst(5, 4, 4, 4, 4)),
				"c2": sts(5, 4, ptr.To[int32](0), ssst(5, 4, 4, 4, 4)),
			},
			wantDone: true, naiveDone: true,
		},
		"statefulset: one cluster's pods not ready, the sums complete": {
			template: sts(3, 4, ptr.To[int32](0), appsv1.StatefulSetStatus{ObservedGeneration: 2}),
			members: map[string]runtime.Object{
				"c1": sts(5, 4, ptr.To[int32](0), ssst(5, 4, 4, 4, 4)),
				"c2": sts(5, 4, ptr.To[int32](0), ssst(5, 4, 2, 4, 4)),
			},
			naiveDone: true,
		},
		"statefulset: one cluster below its partition, the sums complete": {
			template: sts(3, 4, ptr.To[int32](1), appsv1.StatefulSetStatus{ObservedGeneration: 2}),
			members: map[string]runtime.Object{
				"c1": sts(5, 4, ptr.To[int32](1), ssst(5, 4, 4, 1, 3)),
				"c2": sts(5, 4, ptr.To[int32](1), ssst(5, 4, 4, 3, 1)),
			},
			naiveDone: true,
		},
		"daemonset: every cluster done": {
			template: ds(3, appsv1.DaemonSetStatus{ObservedGeneration: 2}),
			members: map[string]runtime.Object{
				"c1": ds(5, dsst(5, 3, 3, 3)),
				"c2": ds(5, dsst(5, 5, 5, 5)),
			},
			wantDone: true, naiveDone: true,
		},
		"daemonset: one cluster still updating": {
			template: ds(3, appsv1.DaemonSetStatus{ObservedGeneration: 2}),
			members: map[string]runtime.Object{
				"c1": ds(5, dsst(5, 3, 3, 3)),
				"c2": ds(5, dsst(5, 5, 4, 5)),
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tmpl := toU(t, tc.template)
			viewer, err := polymorphichelpers.StatusViewerFor(tmpl.GroupVersionKind().GroupKind())
			if err != nil {
				t.Fatal(err)
			}
			members := map[string]Member{}
			everyDone, someErr := true, false
			for cluster, obj := range tc.members {
				if obj == nil {
					members[cluster] = Member{}
					everyDone = false
					continue
				}
				members[cluster] = memberOf(t, obj, 1)
				_, done, err := viewer.Status(toU(t, obj), 0)
				everyDone = everyDone && done && err == nil
				someErr = someErr || err != nil
			}
			if everyDone != tc.wantDone {
				t.Fatalf("the case is wrong: kubectl says every cluster done = %v, the case wants %v", everyDone, tc.wantDone)
			}
			if tc.wantErr && !someErr {
				t.Fatal("the case is wrong: kubectl says no cluster failed")
			}

			status, err := Status(tmpl, members)
			if err != nil {
				t.Fatalf("Status: %v", err)
			}
			msg, done, err := rollout(t, viewer, tmpl, status)
			if done != tc.wantDone || (err != nil) != tc.wantErr {
				t.Errorf("kubectl on the hub: done %v, error %v (%q), want done %v, error %v", done, err, msg, tc.wantDone, tc.wantErr)
			}

			// The per-cluster check left out.
			naive := runtime.DeepCopyJSONValue(status).(map[string]any)
			if everyFedObserved(members) {
				naive["observedGeneration"] = tmpl.GetGeneration()
			}
			_, done, err = rollout(t, viewer, tmpl, naive)
			if done != tc.naiveDone {
				t.Errorf("kubectl on the naive sums: done %v (error %v), want %v", done, err, tc.naiveDone)
			}
		})
	}
}

// rollout is what kubectl's viewer says of template with status.
func rollout(t *testing.T, viewer polymorphichelpers.StatusViewer, template *unstructured.Unstructured, status map[string]any) (string, bool, error) {
	t.Helper()
	u := template.DeepCopy()
	u.Object["status"] = status
	return viewer.Status(u, 0)
}

func everyFedObserved(members map[string]Member) bool {
	for _, m := range members {
		if m.fed() && !m.observed(true) {
			return false
		}
	}
	return true
}
