package selector

import (
	"context"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/revision"
)

// existing is revision n of the Propagation web with the given hash.
func existing(n int64, hash string) *v1alpha1.PropagationRevision {
	return &v1alpha1.PropagationRevision{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: RevisionName("web", n), Labels: map[string]string{
			v1alpha1.LabelPropagation: "web", v1alpha1.LabelRevision: strconv.FormatInt(n, 10),
		}},
		Spec: v1alpha1.RevisionSpec{Revision: n, Hash: hash},
	}
}

// revisionsOf lists the numbers of the Propagation web's revisions.
func revisionsOf(t *testing.T, r *Reconciler) []int64 {
	t.Helper()
	list := &v1alpha1.PropagationRevisionList{}
	if err := r.Client.List(context.Background(), list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, rev := range list.Items {
		got = append(got, rev.Spec.Revision)
	}
	return got
}

func TestWriteRevision(t *testing.T) {
	cm := configMap(ns, "web", nil)
	selectedHash := func(t *testing.T) string {
		r := reconciler(t, propagation(sel("", "v1", "ConfigMap")), cm)
		s := selected(t, r)
		h, err := revision.Hash(s.objects)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}(t)
	cases := map[string]struct {
		revisions []client.Object
		want      []int64
	}{
		"none yet: revision 1":           {want: []int64{1}},
		"the newest has the same hash":   {revisions: []client.Object{existing(1, "sha256:old"), existing(2, selectedHash)}, want: []int64{1, 2}},
		"an older one has the same hash": {revisions: []client.Object{existing(1, selectedHash), existing(2, "sha256:old")}, want: []int64{1, 2, 3}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := reconciler(t, append([]client.Object{propagation(sel("", "v1", "ConfigMap")), cm}, tc.revisions...)...)
			s := selected(t, r)
			ctx := context.Background()
			if _, err := r.listRevisions(ctx, s); err != nil {
				t.Fatal(err)
			}
			if _, err := r.writeRevision(ctx, s); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, revisionsOf(t, r)); diff != "" {
				t.Errorf("revisions (-want +got):\n%s", diff)
			}
			newest := &v1alpha1.PropagationRevision{}
			if err := r.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: RevisionName("web", s.newest())}, newest); err != nil {
				t.Fatal(err)
			}
			if newest.Spec.Hash != selectedHash {
				t.Errorf("newest revision's hash %s, want %s", newest.Spec.Hash, selectedHash)
			}
			if len(tc.revisions) < len(tc.want) {
				wantLabels := map[string]string{v1alpha1.LabelPropagation: "web", v1alpha1.LabelRevision: strconv.FormatInt(s.newest(), 10)}
				if diff := cmp.Diff(wantLabels, newest.Labels); diff != "" {
					t.Errorf("labels (-want +got):\n%s", diff)
				}
				if refs := newest.OwnerReferences; len(refs) != 1 || refs[0].UID != "uid-web" || !ptr.Deref(refs[0].Controller, false) {
					t.Errorf("owner references %+v, want the Propagation as controller", refs)
				}
				if len(newest.Spec.Objects) != 1 {
					t.Fatalf("objects %d, want 1", len(newest.Spec.Objects))
				}
				// The objects carry the revision's number; the hash is
				// of them without it (selectedHash).
				obj := &unstructured.Unstructured{}
				if err := obj.UnmarshalJSON(newest.Spec.Objects[0].Raw); err != nil {
					t.Fatal(err)
				}
				if got, want := obj.GetLabels()[v1alpha1.LabelRevision], strconv.FormatInt(s.newest(), 10); got != want {
					t.Errorf("the object's revision label %q, want %q", got, want)
				}
			}
		})
	}
}

// selected is the scope of the Propagation web, resolved and selected.
func selected(t *testing.T, r *Reconciler) *scope {
	t.Helper()
	s := loaded(t, r, ns, "web")
	ctx := context.Background()
	if _, err := r.resolve(ctx, s); err != nil {
		t.Fatal(err)
	}
	if _, err := r.selectObjects(ctx, s); err != nil || s.blocked() {
		t.Fatalf("selecting: %v, %+v", err, s.selected)
	}
	return s
}

func TestPrune(t *testing.T) {
	revs := func(n int64) []client.Object {
		var out []client.Object
		for i := int64(1); i <= n; i++ {
			out = append(out, existing(i, "sha256:"+strconv.FormatInt(i, 10)))
		}
		return out
	}
	cases := map[string]struct {
		limit  *int32
		pinned *int64
		have   int64
		want   []int64
	}{
		"under the limit":               {limit: ptr.To[int32](3), have: 3, want: []int64{1, 2, 3}},
		"the oldest beyond the limit":   {limit: ptr.To[int32](2), have: 5, want: []int64{3, 4, 5}},
		"limit 0 keeps the newest":      {limit: ptr.To[int32](0), have: 3, want: []int64{3}},
		"the pinned one is kept beside": {limit: ptr.To[int32](1), pinned: ptr.To[int64](1), have: 4, want: []int64{1, 3, 4}},
		"no limit is the default 10":    {have: 12, want: []int64{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := propagation(sel("", "v1", "ConfigMap"))
			p.Spec.RevisionHistoryLimit = tc.limit
			p.Spec.Revision = tc.pinned
			r := reconciler(t, append([]client.Object{p}, revs(tc.have)...)...)
			s := loaded(t, r, ns, "web")
			ctx := context.Background()
			if _, err := r.listRevisions(ctx, s); err != nil {
				t.Fatal(err)
			}
			if _, err := r.prune(ctx, s); err != nil {
				t.Fatal(err)
			}
			got := revisionsOf(t, r)
			slices.Sort(got)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("revisions left (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWriteRevisionLeavesTheBroughtNamespaceUnlabelled: every object of a
// revision carries its number but the Namespace a Propagation brings,
// which the namespace's Propagations share on a cluster.
func TestWriteRevisionLeavesTheBroughtNamespaceUnlabelled(t *testing.T) {
	r := reconciler(t, propagation(sel("", "v1", "ConfigMap")), configMap(ns, "web", nil), namespace(ns))
	s := selected(t, r)
	ctx := context.Background()
	for _, step := range []func(context.Context, *scope) (steps.Result, error){r.bringNamespace, r.listRevisions, r.writeRevision} {
		if _, err := step(ctx, s); err != nil || s.blocked() {
			t.Fatalf("%v, %+v", err, s.selected)
		}
	}
	rev := &v1alpha1.PropagationRevision{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: RevisionName("web", 1)}, rev); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, m := range rev.Spec.Objects {
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(m.Raw); err != nil {
			t.Fatal(err)
		}
		got[obj.GetKind()] = obj.GetLabels()[v1alpha1.LabelRevision]
	}
	if diff := cmp.Diff(map[string]string{"Namespace": "", "ConfigMap": "1"}, got); diff != "" {
		t.Errorf("revision labels by kind (-want +got):\n%s", diff)
	}
}
