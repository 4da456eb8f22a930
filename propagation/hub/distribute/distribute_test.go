package distribute

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	rolloutsdk "open-cluster-management.io/sdk-go/pkg/apis/cluster/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	revisions "github.com/corral-dev/corral/propagation/hub/revision"
	"github.com/corral-dev/corral/work/adoption"
)

var reqWeb = ctrl.Request{NamespacedName: types.NamespacedName{Namespace: "shop", Name: "web"}}

var all = clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All}

func TestWorkName(t *testing.T) {
	cases := map[string]struct {
		namespace, name string
		part            int
		want            string
	}{
		"a Propagation":                     {namespace: "shop", name: "web", part: 0, want: "prop.shop.web-0"},
		"a ClusterPropagation":              {name: "web", part: 2, want: "cprop.web-2"},
		"a ClusterPropagation with a dot":   {name: "shop.web", part: 0, want: "cprop.shop.web-0"},
		"a longest name stays under 253":    {namespace: strings.Repeat("n", 63), name: strings.Repeat("p", 63), part: 99, want: "prop." + strings.Repeat("n", 63) + "." + strings.Repeat("p", 63) + "-99"},
		"a dashed name keeps its last dash": {namespace: "shop", name: "web-1", part: 0, want: "prop.shop.web-1-0"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := WorkName(tc.namespace, tc.name, tc.part)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("WorkName (-want +got):\n%s", diff)
			}
			if len(got) > 253 {
				t.Errorf("%d characters", len(got))
			}
		})
	}
}

func TestPickRevision(t *testing.T) {
	huge := workv1.Manifest{RawExtension: runtime.RawExtension{Raw: []byte(`{"kind":"ConfigMap","data":{"x":"` + strings.Repeat("x", revisions.MaxWorkBytes) + `"}}`)}}
	cases := map[string]struct {
		pin         *int64
		revisions   []client.Object
		wantNewest  int64
		wantDeliver int64
		wantProblem string
		wantParts   int
	}{
		"the newest":           {revisions: []client.Object{rev(1, configMap("a")), rev(3, configMap("c")), rev(2, configMap("b"))}, wantNewest: 3, wantDeliver: 3, wantParts: 1},
		"the pinned one":       {pin: ptr.To[int64](1), revisions: []client.Object{rev(1, configMap("a")), rev(2, configMap("b"))}, wantNewest: 2, wantDeliver: 1, wantParts: 1},
		"a pin that is absent": {pin: ptr.To[int64](5), revisions: []client.Object{rev(1, configMap("a"))}, wantNewest: 1, wantProblem: v1alpha1.ReasonRevisionNotFound},
		"no revision yet":      {wantProblem: ReasonNoRevision},
		"too large":            {revisions: []client.Object{rev(1, huge)}, wantNewest: 1, wantProblem: v1alpha1.ReasonTooLarge},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := newProp(all)
			p.Spec.Revision = tc.pin
			r := reconciler(fakeClient(t, interceptor.Funcs{}, tc.revisions...))
			s := &scope{p: view(p)}
			if _, err := r.pickRevision(context.Background(), s); err != nil {
				t.Fatal(err)
			}
			var delivered int64
			if s.delivered != nil {
				delivered = s.delivered.number
			}
			parts := 0
			if s.contents != nil {
				parts = len(s.contents.shared.parts)
			}
			got := []any{s.newest, delivered, s.revisionProblem, parts}
			if diff := cmp.Diff([]any{tc.wantNewest, tc.wantDeliver, tc.wantProblem, tc.wantParts}, got); diff != "" {
				t.Errorf("newest, delivered, problem, parts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRollOut(t *testing.T) {
	progressive := clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.Progressive,
		Progressive: &clusterv1alpha1.RolloutProgressive{MaxConcurrency: intstr.FromInt32(1)}}
	w1, w2 := WorkName("shop", "web", 0), WorkName("shop", "web", 1)
	twoRevisions := []client.Object{rev(1, configMap("blue")), rev(2, configMap("green"))}
	cases := map[string]struct {
		strategy  clusterv1alpha1.RolloutStrategy
		pin       *int64
		placement []client.Object
		objs      []client.Object
		want      map[string]string
	}{
		"every cluster gets the revision": {
			strategy: all, placement: placement("c1", "c2"), objs: []client.Object{rev(1, configMap("blue"))},
			want: map[string]string{"c1/" + w1: "1", "c2/" + w1: "1"},
		},
		"a new revision updates every cluster": {
			strategy: all, placement: placement("c1", "c2"),
			objs: append([]client.Object{work("c1", 1, done...), work("c2", 1, done...)}, twoRevisions...),
			want: map[string]string{"c1/" + w1: "2", "c2/" + w1: "2"},
		},
		"a pin rolls back": {
			strategy: all, pin: ptr.To[int64](1), placement: placement("c1"),
			objs: append([]client.Object{work("c1", 2, done...)}, twoRevisions...),
			want: map[string]string{"c1/" + w1: "1"},
		},
		"a pin that does not exist keeps what runs": {
			strategy: all, pin: ptr.To[int64](7), placement: placement("c1", "c2"),
			objs: append([]client.Object{work("c1", 1, done...)}, twoRevisions...),
			want: map[string]string{"c1/" + w1: "1"},
		},
		"progressive, one at a time": {
			strategy: progressive, placement: placement("c1", "c2"),
			objs: append([]client.Object{work("c1", 1, done...), work("c2", 1, done...)}, twoRevisions...),
			want: map[string]string{"c1/" + w1: "2", "c2/" + w1: "1"},
		},
		"progressive waits while the first is in progress": {
			strategy: progressive, placement: placement("c1", "c2"),
			objs: append([]client.Object{work("c1", 2, cond(workv1.WorkApplied, metav1.ConditionTrue)), work("c2", 1, done...)}, twoRevisions...),
			want: map[string]string{"c1/" + w1: "2", "c2/" + w1: "1"},
		},
		"progressive goes on once the first succeeded": {
			strategy: progressive, placement: placement("c1", "c2"),
			objs: append([]client.Object{work("c1", 2, done...), work("c2", 1, done...)}, twoRevisions...),
			want: map[string]string{"c1/" + w1: "2", "c2/" + w1: "2"},
		},
		"a cluster that left loses its works": {
			strategy: all, placement: placement("c1"), objs: []client.Object{rev(1, configMap("blue")), work("c1", 1, done...), work("c2", 1, done...)},
			want: map[string]string{"c1/" + w1: "1"},
		},
		"a placement that does not exist keeps what runs": {
			strategy: all, objs: []client.Object{rev(1, configMap("blue")), work("c1", 1, done...)},
			want: map[string]string{"c1/" + w1: "1"},
		},
		"a part the revision no longer has goes": {
			strategy: all, placement: placement("c1"),
			objs: []client.Object{rev(1, configMap("blue")), work("c1", 1, done...), func() client.Object {
				w := work("c1", 1, done...)
				w.Name = w2
				return w
			}()},
			want: map[string]string{"c1/" + w1: "1"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := newProp(tc.strategy)
			p.Spec.Revision = tc.pin
			objs := append(append([]client.Object{p}, tc.placement...), tc.objs...)
			c := fakeClient(t, interceptor.Funcs{}, objs...)
			run(t, reconciler(c))
			if diff := cmp.Diff(tc.want, revisionsOnClusters(t, c)); diff != "" {
				t.Errorf("works' revisions (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWritesOnlyWhatChanged(t *testing.T) {
	writes := 0
	count := interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			writes++
			return c.Create(ctx, obj, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			writes++
			return c.Update(ctx, obj, opts...)
		},
	}
	objs := append([]client.Object{newProp(all), rev(1, configMap("blue"))}, placement("c1", "c2")...)
	c := fakeClient(t, count, objs...)
	r := reconciler(c)
	run(t, r)
	if writes != 2 {
		t.Fatalf("first reconcile: %d writes, want 2 works created", writes)
	}
	writes = 0
	run(t, r)
	if writes != 0 {
		t.Errorf("second reconcile: %d writes, want none", writes)
	}
	w := &workv1.ManifestWork{}
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: "c1", Name: WorkName("shop", "web", 0)}, w); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{v1alpha1.LabelPropagation: "web", v1alpha1.LabelPropagationNamespace: "shop", v1alpha1.LabelRevision: "1"}
	if diff := cmp.Diff(want, w.Labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
}

func TestLeavesOthersWorksAlone(t *testing.T) {
	other := work("c1", 1)
	other.Labels = map[string]string{"team": "b"}
	objs := append([]client.Object{newProp(all), rev(1, configMap("blue")), other}, placement("c1")...)
	c := fakeClient(t, interceptor.Funcs{}, objs...)
	_, err := reconciler(c).Reconcile(context.Background(), reqWeb)
	if err == nil || !strings.Contains(err.Error(), "is not this propagation's") {
		t.Errorf("err %v, want one saying the work is someone else's", err)
	}
	w := &workv1.ManifestWork{}
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(other), w); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(other.Labels, w.Labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
}

func TestAddsFinalizerFirst(t *testing.T) {
	p := newProp(all)
	p.Finalizers = nil
	objs := append([]client.Object{p, rev(1, configMap("blue"))}, placement("c1")...)
	c := fakeClient(t, interceptor.Funcs{}, objs...)
	run(t, reconciler(c))
	got := &v1alpha1.Propagation{}
	if err := c.Get(context.Background(), reqWeb.NamespacedName, got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{v1alpha1.Finalizer}, got.Finalizers); diff != "" {
		t.Errorf("finalizers (-want +got):\n%s", diff)
	}
	if n := len(revisionsOnClusters(t, c)); n != 0 {
		t.Errorf("%d works written with the finalizer, want none", n)
	}
}

func TestFinalize(t *testing.T) {
	orphan := &workv1.DeleteOption{PropagationPolicy: workv1.DeletePropagationPolicyTypeOrphan}
	// Under Delete the objects go, but not the Propagation's own namespace,
	// which its revision brings and the cluster may share.
	keepNamespace := &workv1.DeleteOption{PropagationPolicy: workv1.DeletePropagationPolicyTypeSelectivelyOrphan,
		SelectivelyOrphan: &workv1.SelectivelyOrphan{OrphaningRules: []workv1.OrphaningRule{{Resource: "namespaces", Name: reqWeb.Namespace}}}}
	cases := map[string]struct {
		policy v1alpha1.DeletionPolicy
		want   map[string]*workv1.DeleteOption
	}{
		"Delete": {policy: v1alpha1.DeletionPolicyDelete, want: map[string]*workv1.DeleteOption{"c1": keepNamespace, "c2": keepNamespace}},
		"Orphan": {policy: v1alpha1.DeletionPolicyOrphan, want: map[string]*workv1.DeleteOption{"c1": orphan, "c2": orphan}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := newProp(all)
			p.Spec.DeletionPolicy = tc.policy
			p.DeletionTimestamp = &metav1.Time{Time: now}
			deleted := map[string]*workv1.DeleteOption{}
			funcs := interceptor.Funcs{Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
				if w, ok := obj.(*workv1.ManifestWork); ok {
					deleted[w.Namespace] = w.Spec.DeleteOption
				}
				return c.Delete(ctx, obj, opts...)
			}}
			c := fakeClient(t, funcs, p, work("c1", 1), work("c2", 1))
			run(t, reconciler(c))
			if diff := cmp.Diff(tc.want, deleted); diff != "" {
				t.Errorf("works deleted with (-want +got):\n%s", diff)
			}
			if n := len(revisionsOnClusters(t, c)); n != 0 {
				t.Errorf("%d works left", n)
			}
			err := c.Get(context.Background(), reqWeb.NamespacedName, &v1alpha1.Propagation{})
			if client.IgnoreNotFound(err) != nil || err == nil {
				t.Errorf("the propagation is still there (%v): its finalizer was not removed", err)
			}
		})
	}
}

func TestClusterStatus(t *testing.T) {
	given := now.Add(-time.Hour)
	cases := map[string]struct {
		works []workv1.ManifestWork
		parts int
		want  rolloutsdk.RolloutStatus
	}{
		"no works":             {parts: 1, want: rolloutsdk.ToApply},
		"another revision":     {works: []workv1.ManifestWork{*work("c1", 1, done...)}, parts: 1, want: rolloutsdk.ToApply},
		"a part missing":       {works: []workv1.ManifestWork{*work("c1", 2, done...)}, parts: 2, want: rolloutsdk.ToApply},
		"not reported yet":     {works: []workv1.ManifestWork{*work("c1", 2)}, parts: 1, want: rolloutsdk.Progressing},
		"succeeded":            {works: []workv1.ManifestWork{*work("c1", 2, done...)}, parts: 1, want: rolloutsdk.Succeeded},
		"one part in progress": {works: []workv1.ManifestWork{*work("c1", 2, done...), *work("c1", 2)}, parts: 2, want: rolloutsdk.Progressing},
		"one part failed": {works: []workv1.ManifestWork{*work("c1", 2, done...), *work("c1", 2, cond(workv1.WorkApplied, metav1.ConditionTrue),
			cond(workv1.WorkProgressing, metav1.ConditionTrue), cond(workv1.WorkDegraded, metav1.ConditionTrue))}, parts: 2, want: rolloutsdk.Failed},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := clusterStatus("c1", tc.works, 2, tc.parts)
			if got.Status != tc.want {
				t.Errorf("status %d, want %d", got.Status, tc.want)
			}
			if got.Status != rolloutsdk.ToApply && got.LastTransitionTime.Before(&metav1.Time{Time: given}) {
				t.Errorf("since %s, before the revision was given at %s", got.LastTransitionTime, given)
			}
		})
	}
}

func TestUpdateStatus(t *testing.T) {
	type want struct {
		Summary    v1alpha1.PropagationSummary
		Conditions map[string]string // type → reason
		Clusters   map[string]string // cluster → Failed reason
	}
	failing := work("c2", 1, cond(workv1.WorkApplied, metav1.ConditionFalse))
	cases := map[string]struct {
		objs []client.Object
		want want
	}{
		"applied and available everywhere": {
			objs: append([]client.Object{rev(1, configMap("blue")), work("c1", 1, done...), work("c2", 1, done...)}, placement("c1", "c2")...),
			want: want{Summary: v1alpha1.PropagationSummary{Total: 2, Applied: 2, Available: 2},
				Conditions: map[string]string{v1alpha1.ConditionScheduled: ReasonScheduled, v1alpha1.ConditionApplied: ReasonApplied, v1alpha1.ConditionAvailable: ReasonAvailable},
				Clusters:   map[string]string{"c1": ReasonNoFailure, "c2": ReasonNoFailure}},
		},
		"one failed to apply": {
			objs: append([]client.Object{rev(1, configMap("blue")), work("c1", 1, done...), failing}, placement("c1", "c2")...),
			want: want{Summary: v1alpha1.PropagationSummary{Total: 2, Applied: 1, Available: 1, Failed: 1},
				Conditions: map[string]string{v1alpha1.ConditionScheduled: ReasonScheduled, v1alpha1.ConditionApplied: ReasonFailed, v1alpha1.ConditionAvailable: ReasonProgressing},
				Clusters:   map[string]string{"c1": ReasonNoFailure, "c2": ReasonApplyFailed}},
		},
		"the placement does not exist": {
			objs: []client.Object{rev(1, configMap("blue"))},
			want: want{Conditions: map[string]string{v1alpha1.ConditionScheduled: v1alpha1.ReasonPlacementNotFound, v1alpha1.ConditionApplied: ReasonNotScheduled, v1alpha1.ConditionAvailable: ReasonNotScheduled},
				Clusters: map[string]string{}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fakeClient(t, interceptor.Funcs{}, append([]client.Object{newProp(all)}, tc.objs...)...)
			run(t, reconciler(c))
			p := &v1alpha1.Propagation{}
			if err := c.Get(context.Background(), reqWeb.NamespacedName, p); err != nil {
				t.Fatal(err)
			}
			got := want{Summary: p.Status.Summary, Conditions: map[string]string{}, Clusters: map[string]string{}}
			for _, cond := range p.Status.Conditions {
				got.Conditions[cond.Type] = cond.Reason
				if cond.ObservedGeneration != 1 {
					t.Errorf("%s observedGeneration %d, want 1", cond.Type, cond.ObservedGeneration)
				}
			}
			for _, cs := range p.Status.Clusters {
				got.Clusters[cs.Cluster] = meta.FindStatusCondition(cs.Conditions, v1alpha1.ConditionFailed).Reason
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
			if p.Status.ObservedGeneration != 1 || p.Status.DeliveredRevision != 1 || p.Status.CurrentRevision != 1 {
				t.Errorf("observedGeneration %d, delivered %d, current %d; want 1, 1, 1", p.Status.ObservedGeneration, p.Status.DeliveredRevision, p.Status.CurrentRevision)
			}
		})
	}
}

func TestStatusKeepsOthersConditions(t *testing.T) {
	p := newProp(all)
	selected := metav1.Condition{Type: v1alpha1.ConditionSelected, Status: metav1.ConditionTrue, Reason: "Selected", LastTransitionTime: metav1.NewTime(now)}
	p.Status.Conditions = []metav1.Condition{selected}
	conflicts := 0
	funcs := interceptor.Funcs{SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
		if obj.GetResourceVersion() == "" {
			conflicts++
			return errors.New("a status write without the resourceVersion read")
		}
		return c.SubResource(sub).Update(ctx, obj, opts...)
	}}
	c := fakeClient(t, funcs, append([]client.Object{p, rev(1, configMap("blue"))}, placement("c1")...)...)
	run(t, reconciler(c))
	got := &v1alpha1.Propagation{}
	if err := c.Get(context.Background(), reqWeb.NamespacedName, got); err != nil {
		t.Fatal(err)
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionSelected); c == nil || c.Reason != "Selected" || conflicts > 0 {
		t.Errorf("Selected is %+v after the status patch (%d unguarded writes)", c, conflicts)
	}
}

func TestFinalizingPredicate(t *testing.T) {
	plain := newProp(all)
	plain.Finalizers = nil
	cases := map[string]struct {
		old, new *v1alpha1.Propagation
		want     bool
	}{
		"its finalizer put on": {old: plain, new: newProp(all), want: true},
		"being deleted": {old: newProp(all), new: func() *v1alpha1.Propagation {
			p := newProp(all)
			p.DeletionTimestamp = &metav1.Time{Time: now}
			return p
		}(), want: true},
		"its status written": {old: newProp(all), new: func() *v1alpha1.Propagation {
			p := newProp(all)
			p.Status.ObservedGeneration = 1
			return p
		}()},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := (finalizing{}).Update(event.UpdateEvent{ObjectOld: tc.old, ObjectNew: tc.new}); got != tc.want {
				t.Errorf("passes %t, want %t", got, tc.want)
			}
		})
	}
}

func TestRendersPerCluster(t *testing.T) {
	regional := rev(2, configMap("green"))
	regional.Spec.Overrides = []v1alpha1.OverrideSnapshot{{Name: "shop/region", Objects: []int32{0},
		Rules: []v1alpha1.OverrideRule{{Name: "label", SetLabels: map[string]string{"region": "${CLUSTER_LABEL:region}"}}}}}
	eu := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "c1", Labels: map[string]string{"region": "eu"}}}
	unlabelled := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "c2"}}
	objs := append([]client.Object{newProp(all), rev(1, configMap("blue")), regional, eu, unlabelled, work("c2", 1, done...)}, placement("c1", "c2")...)
	c := fakeClient(t, interceptor.Funcs{}, objs...)
	run(t, reconciler(c))

	if diff := cmp.Diff(map[string]string{"c1/" + WorkName("shop", "web", 0): "2", "c2/" + WorkName("shop", "web", 0): "1"}, revisionsOnClusters(t, c)); diff != "" {
		t.Errorf("works' revisions (-want +got): the cluster the override cannot apply to keeps revision 1\n%s", diff)
	}
	w := &workv1.ManifestWork{}
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: "c1", Name: WorkName("shop", "web", 0)}, w); err != nil {
		t.Fatal(err)
	}
	if got := string(w.Spec.Workload.Manifests[0].Raw); !strings.Contains(got, `"labels":{"region":"eu"}`) {
		t.Errorf("c1 receives %s, want the ConfigMap labelled region eu", got)
	}
	got := &v1alpha1.Propagation{}
	if err := c.Get(context.Background(), reqWeb.NamespacedName, got); err != nil {
		t.Fatal(err)
	}
	byCluster := map[string]v1alpha1.ClusterStatus{}
	for _, cs := range got.Status.Clusters {
		byCluster[cs.Cluster] = cs
	}
	if diff := cmp.Diff([]string{"OverridePolicy shop/region, rule label"}, byCluster["c1"].Overrides); diff != "" {
		t.Errorf("c1's overrides (-want +got):\n%s", diff)
	}
	failed := meta.FindStatusCondition(byCluster["c2"].Conditions, v1alpha1.ConditionFailed)
	if failed == nil || failed.Status != metav1.ConditionTrue || failed.Reason != v1alpha1.ReasonOverrideFailed ||
		!strings.Contains(failed.Message, "OverridePolicy shop/region, rule label") || !strings.Contains(failed.Message, "no label region") {
		t.Errorf("c2's Failed is %+v, want True, OverrideFailed, naming the policy, the rule and the label", failed)
	}
}

func TestDividesReplicas(t *testing.T) {
	deployment := func(replicas int) workv1.Manifest {
		return workv1.Manifest{RawExtension: runtime.RawExtension{Raw: []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop"},"spec":{"replicas":` +
			strconv.Itoa(replicas) + `}}`)}}
	}
	weighted := func(clusters ...string) []client.Object {
		var out []client.Object
		for i, name := range clusters {
			out = append(out, &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"big": strconv.FormatBool(i == 0)}}})
		}
		return out
	}
	p := newProp(all)
	p.Spec.ReplicaScheduling = &v1alpha1.ReplicaScheduling{Type: v1alpha1.ReplicaSchedulingDivided, Weights: []v1alpha1.ClusterWeight{
		{Weight: 2, ClusterSelector: clusterv1beta1.ClusterSelector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"big": "true"}}}},
		{Weight: 1}}}
	objs := append(append([]client.Object{p, rev(1, deployment(6), configMap("blue"))}, weighted("c1", "c2", "c3")...), placement("c1", "c2")...)
	c := fakeClient(t, interceptor.Funcs{}, objs...)
	r := reconciler(c)
	run(t, r)
	if diff := cmp.Diff(map[string]int32{"c1": 4, "c2": 2}, replicasOnClusters(t, c)); diff != "" {
		t.Errorf("6 replicas 2:1 (-want +got):\n%s", diff)
	}

	// A third cluster of weight 1: 6 over 2:1:1 is 3, 1.5, 1.5, and c2
	// keeps the replica above its quota it runs already.
	pd := &clusterv1beta1.PlacementDecision{}
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: "shop", Name: "two-decision-1"}, pd); err != nil {
		t.Fatal(err)
	}
	pd.Status.Decisions = append(pd.Status.Decisions, clusterv1beta1.ClusterDecision{ClusterName: "c3"})
	if err := c.Update(context.Background(), pd); err != nil { // no status subresource in the fake
		t.Fatal(err)
	}
	run(t, r)
	if diff := cmp.Diff(map[string]int32{"c1": 3, "c2": 2, "c3": 1}, replicasOnClusters(t, c)); diff != "" {
		t.Errorf("after c3 joined (-want +got):\n%s", diff)
	}
	got := &v1alpha1.Propagation{}
	if err := c.Get(context.Background(), reqWeb.NamespacedName, got); err != nil {
		t.Fatal(err)
	}
	shares := map[string]int32{}
	for _, cs := range got.Status.Clusters {
		for _, s := range cs.Replicas {
			if s.Kind != "Deployment" || s.Name != "web" {
				t.Errorf("cluster %s: a share of %s %s, want only the Deployment's", cs.Cluster, s.Kind, s.Name)
			}
			shares[cs.Cluster] = s.Replicas
		}
	}
	if diff := cmp.Diff(map[string]int32{"c1": 3, "c2": 2, "c3": 1}, shares); diff != "" {
		t.Errorf("status.clusters[].replicas (-want +got):\n%s", diff)
	}
}

// replicasOnClusters is the Deployment's replicas in shop/web's work on
// each cluster.
func replicasOnClusters(t *testing.T, c client.Client) map[string]int32 {
	t.Helper()
	out := map[string]int32{}
	for _, w := range webWorks(t, c) {
		for _, m := range w.Spec.Workload.Manifests {
			var obj struct {
				Kind string `json:"kind"`
				Spec struct {
					Replicas int32 `json:"replicas"`
				} `json:"spec"`
			}
			if err := json.Unmarshal(m.Raw, &obj); err != nil {
				t.Fatal(err)
			}
			if obj.Kind == "Deployment" {
				out[w.Namespace] = obj.Spec.Replicas
			}
		}
	}
	return out
}

func TestSelectorsThatDoNotCompileDeliverNothing(t *testing.T) {
	badCEL := clusterv1beta1.ClusterSelector{CelSelector: clusterv1beta1.ClusterCelSelector{CelExpressions: []string{"managedCluster.metadata.name =="}}}
	for name, tc := range map[string]struct {
		edit          func(p *v1alpha1.Propagation, newest *v1alpha1.PropagationRevision)
		reason, names string
	}{
		"an override's": {reason: v1alpha1.ReasonOverrideInvalid, names: "ClusterOverridePolicy broken",
			edit: func(_ *v1alpha1.Propagation, newest *v1alpha1.PropagationRevision) {
				newest.Spec.Overrides = []v1alpha1.OverrideSnapshot{{Name: "broken", ClusterScoped: true, Objects: []int32{0},
					Rules: []v1alpha1.OverrideRule{{ClusterSelector: &badCEL, SetLabels: map[string]string{"a": "b"}}}}}
			}},
		"a replica weight's": {reason: v1alpha1.ReasonInvalidReplicaScheduling, names: "spec.replicaScheduling.weights[0].clusterSelector.celSelector",
			edit: func(p *v1alpha1.Propagation, _ *v1alpha1.PropagationRevision) {
				p.Spec.ReplicaScheduling = &v1alpha1.ReplicaScheduling{Type: v1alpha1.ReplicaSchedulingDivided,
					Weights: []v1alpha1.ClusterWeight{{Weight: 2, ClusterSelector: badCEL}}}
			}},
	} {
		t.Run(name, func(t *testing.T) {
			p, newest := newProp(all), rev(2, configMap("green"))
			tc.edit(p, newest)
			objs := append([]client.Object{p, rev(1, configMap("blue")), newest, work("c1", 1, done...)}, placement("c1")...)
			c := fakeClient(t, interceptor.Funcs{}, objs...)
			run(t, reconciler(c))
			if diff := cmp.Diff(map[string]string{"c1/" + WorkName("shop", "web", 0): "1"}, revisionsOnClusters(t, c)); diff != "" {
				t.Errorf("works' revisions (-want +got): the cluster keeps revision 1\n%s", diff)
			}
			got := &v1alpha1.Propagation{}
			if err := c.Get(context.Background(), reqWeb.NamespacedName, got); err != nil {
				t.Fatal(err)
			}
			if sc := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionScheduled); sc == nil || sc.Reason != tc.reason || !strings.Contains(sc.Message, tc.names) {
				t.Errorf("Scheduled is %+v, want %s naming %s", sc, tc.reason, tc.names)
			}
		})
	}
}

func TestSaysWhenAClustersAgentIgnoresAdoption(t *testing.T) {
	followed := metav1.Condition{Type: adoption.WorkConditionType, Status: metav1.ConditionTrue, Reason: adoption.ReasonFollowed, ObservedGeneration: 1}
	for name, tc := range map[string]struct {
		conds []metav1.Condition
		want  bool
	}{
		"not reported yet":           {},
		"reported by corral's agent": {conds: append(slices.Clone(done), followed), want: false},
		"reported by OCM's agent":    {conds: done, want: true},
	} {
		t.Run(name, func(t *testing.T) {
			objs := append([]client.Object{newProp(all), rev(1, configMap("blue")), work("c1", 1, tc.conds...)}, placement("c1")...)
			c := fakeClient(t, interceptor.Funcs{}, objs...)
			run(t, reconciler(c))
			got := &v1alpha1.Propagation{}
			if err := c.Get(context.Background(), reqWeb.NamespacedName, got); err != nil {
				t.Fatal(err)
			}
			cond := meta.FindStatusCondition(got.Status.Clusters[0].Conditions, adoption.WorkConditionType)
			if (cond != nil) != tc.want || cond != nil && (cond.Reason != ReasonAdoptionUnsupported || !strings.Contains(cond.Message, "OCM's agent does not")) {
				t.Errorf("AdoptionFollowed %+v, want it False, AdoptionUnsupported: %v", cond, tc.want)
			}
		})
	}
}
