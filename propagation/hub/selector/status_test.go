package selector

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/revisionindex"
)

func TestUpdateStatus(t *testing.T) {
	selected := &metav1.Condition{Type: v1alpha1.ConditionSelected, Status: metav1.ConditionTrue, Reason: ReasonSelected}
	nothing := &metav1.Condition{Type: v1alpha1.ConditionSelected, Status: metav1.ConditionFalse, Reason: v1alpha1.ReasonNothingSelected, Message: "selector 1 selects nothing"}
	obj := &unstructured.Unstructured{}
	cases := map[string]struct {
		before      v1alpha1.PropagationStatus
		selected    *metav1.Condition
		objects     int
		skipped     []string
		revisions   []int64
		wantMessage string
		wantCurrent int64
		wantWrite   bool
	}{
		"selected: what it holds; currentRevision is the distributor's": {
			selected: selected, objects: 2, skipped: []string{"ConfigMap shop/kube-root-ca.crt: x"}, revisions: []int64{1, 2},
			wantMessage: "2 objects selected; skipped: ConfigMap shop/kube-root-ca.crt: x", wantWrite: true,
		},
		"one object": {
			selected: selected, objects: 1, revisions: []int64{1},
			wantMessage: "1 object selected", wantWrite: true,
		},
		"blocked: the current revision stays": {
			before:   v1alpha1.PropagationStatus{CurrentRevision: 4, ObservedGeneration: 2},
			selected: nothing, wantMessage: "selector 1 selects nothing", wantCurrent: 4, wantWrite: true,
		},
		"nothing changed: no write": {
			before: v1alpha1.PropagationStatus{CurrentRevision: 1, ObservedGeneration: 3, Conditions: []metav1.Condition{{
				Type: v1alpha1.ConditionSelected, Status: metav1.ConditionTrue, Reason: ReasonSelected, Message: "1 object selected", ObservedGeneration: 3,
			}}},
			selected: selected, objects: 1, revisions: []int64{1},
			wantMessage: "1 object selected", wantCurrent: 1,
		},
		"a new revision alone: no write, the distributor writes it": {
			before: v1alpha1.PropagationStatus{CurrentRevision: 1, ObservedGeneration: 3, Conditions: []metav1.Condition{{
				Type: v1alpha1.ConditionSelected, Status: metav1.ConditionTrue, Reason: ReasonSelected, Message: "1 object selected", ObservedGeneration: 3,
			}}},
			selected: selected, objects: 1, revisions: []int64{1, 2},
			wantMessage: "1 object selected", wantCurrent: 1,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := propagation(sel("", "v1", "ConfigMap"))
			p.Status = tc.before
			r := reconciler(t, p)
			s := loaded(t, r, ns, "web")
			sel := *tc.selected
			s.selected, s.skipped = &sel, tc.skipped
			for range tc.objects {
				s.objects = append(s.objects, obj)
			}
			for _, n := range tc.revisions {
				s.revisions = append(s.revisions, revisionindex.Revision{Spec: v1alpha1.RevisionSpec{Revision: n}})
			}
			before := s.obj.GetResourceVersion()
			if _, err := r.updateStatus(context.Background(), s); err != nil {
				t.Fatal(err)
			}
			fresh := &v1alpha1.Propagation{}
			if err := r.Client.Get(context.Background(), client.ObjectKeyFromObject(p), fresh); err != nil {
				t.Fatal(err)
			}
			if wrote := fresh.ResourceVersion != before; wrote != tc.wantWrite {
				t.Errorf("wrote %t, want %t", wrote, tc.wantWrite)
			}
			c := meta.FindStatusCondition(fresh.Status.Conditions, v1alpha1.ConditionSelected)
			if c == nil {
				t.Fatal("no Selected condition")
			}
			got := struct {
				Message            string
				Current, Gen, CGen int64
			}{c.Message, fresh.Status.CurrentRevision, fresh.Status.ObservedGeneration, c.ObservedGeneration}
			want := struct {
				Message            string
				Current, Gen, CGen int64
			}{tc.wantMessage, tc.wantCurrent, p.Generation, p.Generation}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
		})
	}
}
