package clustersetbinding

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func testScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clusterv1beta2.Install(s); err != nil {
		t.Fatal(err)
	}
	return s
}

func set(name string) *clusterv1beta2.ManagedClusterSet {
	return &clusterv1beta2.ManagedClusterSet{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

func binding(ns, setName string, conds ...metav1.Condition) *clusterv1beta2.ManagedClusterSetBinding {
	return &clusterv1beta2.ManagedClusterSetBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: setName, Generation: 1},
		Spec:       clusterv1beta2.ManagedClusterSetBindingSpec{ClusterSet: setName},
		Status:     clusterv1beta2.ManagedClusterSetBindingStatus{Conditions: conds},
	}
}

func bound(status metav1.ConditionStatus, reason string) metav1.Condition {
	return metav1.Condition{
		Type: clusterv1beta2.ClusterSetBindingBoundType, Status: status, Reason: reason,
		ObservedGeneration: 1, LastTransitionTime: metav1.Now(),
	}
}

func newClient(t *testing.T, objs ...client.Object) client.Client {
	return fake.NewClientBuilder().WithScheme(testScheme(t)).WithObjects(objs...).
		WithStatusSubresource(&clusterv1beta2.ManagedClusterSetBinding{}).
		WithIndex(&clusterv1beta2.ManagedClusterSetBinding{}, ClusterSetIndex, IndexByClusterSet).Build()
}

func TestReconcile(t *testing.T) {
	type want struct {
		Status metav1.ConditionStatus
		Reason string
	}
	cases := map[string]struct {
		binding       *clusterv1beta2.ManagedClusterSetBinding
		existing      []client.Object
		want          want
		wantMessage   string
		wantUnchanged bool
		wantEvents    []string
	}{
		"a binding to a set that exists is bound": {
			binding:    binding("team-a", "prod"),
			existing:   []client.Object{set("prod")},
			want:       want{metav1.ConditionTrue, ReasonBound},
			wantEvents: []string{ReasonBound},
		},
		"a binding to a missing set is not bound, and says why": {
			binding:     binding("team-a", "prod"),
			existing:    []client.Object{set("dev")},
			want:        want{metav1.ConditionFalse, ReasonClusterSetNotFound},
			wantMessage: `ManagedClusterSet "prod" does not exist`,
			wantEvents:  []string{ReasonClusterSetNotFound},
		},
		"a bound binding whose set went is no longer bound": {
			binding:    binding("team-a", "prod", bound(metav1.ConditionTrue, ReasonBound)),
			want:       want{metav1.ConditionFalse, ReasonClusterSetNotFound},
			wantEvents: []string{ReasonClusterSetNotFound},
		},
		"an unbound binding whose set appeared is bound": {
			binding:    binding("team-a", "prod", bound(metav1.ConditionFalse, ReasonClusterSetNotFound)),
			existing:   []client.Object{set("prod")},
			want:       want{metav1.ConditionTrue, ReasonBound},
			wantEvents: []string{ReasonBound},
		},
		"a terminating set still binds": {
			binding: binding("team-a", "prod"),
			existing: []client.Object{func() client.Object {
				s := set("prod")
				s.Finalizers = []string{"example.com/hold"}
				s.DeletionTimestamp = &metav1.Time{Time: metav1.Now().Time}
				return s
			}()},
			want:       want{metav1.ConditionTrue, ReasonBound},
			wantEvents: []string{ReasonBound},
		},
		"an unchanged condition is not written again": {
			binding: binding("team-a", "prod", func() metav1.Condition {
				c := bound(metav1.ConditionTrue, ReasonBound)
				c.Message = "Bound to ManagedClusterSet prod"
				return c
			}()),
			existing:      []client.Object{set("prod")},
			want:          want{metav1.ConditionTrue, ReasonBound},
			wantUnchanged: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			c := newClient(t, append(tc.existing, tc.binding)...)
			before := &clusterv1beta2.ManagedClusterSetBinding{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(tc.binding), before); err != nil {
				t.Fatal(err)
			}
			recorder := events.NewFakeRecorder(10)
			r := &Reconciler{Client: c, Recorder: recorder}
			if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(tc.binding)}); err != nil {
				t.Fatalf("Reconcile() = %v", err)
			}
			got := &clusterv1beta2.ManagedClusterSetBinding{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(tc.binding), got); err != nil {
				t.Fatal(err)
			}
			if tc.wantUnchanged && got.ResourceVersion != before.ResourceVersion {
				t.Errorf("the binding was written (resourceVersion %s → %s)", before.ResourceVersion, got.ResourceVersion)
			}
			cond := meta.FindStatusCondition(got.Status.Conditions, clusterv1beta2.ClusterSetBindingBoundType)
			if cond == nil {
				t.Fatal("no Bound condition")
			}
			if diff := cmp.Diff(tc.want, want{cond.Status, cond.Reason}); diff != "" {
				t.Errorf("Bound (-want +got):\n%s", diff)
			}
			if !strings.Contains(cond.Message, tc.wantMessage) {
				t.Errorf("message %q does not say %q", cond.Message, tc.wantMessage)
			}
			var reasons []string
			for len(recorder.Events) > 0 {
				reasons = append(reasons, strings.Fields(<-recorder.Events)[1])
			}
			if diff := cmp.Diff(tc.wantEvents, reasons); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBindingsOfSetFindsThemInEveryNamespace(t *testing.T) {
	c := newClient(t, binding("team-a", "prod"), binding("team-b", "prod"), binding("team-a", "dev"))
	r := &Reconciler{Client: c}
	got := r.bindingsOfSet(context.Background(), set("prod"))
	want := []reconcile.Request{
		{NamespacedName: client.ObjectKey{Namespace: "team-a", Name: "prod"}},
		{NamespacedName: client.ObjectKey{Namespace: "team-b", Name: "prod"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("bindingsOfSet() (-want +got):\n%s", diff)
	}
}
