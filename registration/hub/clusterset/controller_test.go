package clusterset

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/corral-dev/corral/internal/testing/builder"
)

func testScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clusterv1.Install(s); err != nil {
		t.Fatal(err)
	}
	if err := clusterv1beta2.Install(s); err != nil {
		t.Fatal(err)
	}
	return s
}

func withEmpty(set *clusterv1beta2.ManagedClusterSet, status metav1.ConditionStatus, reason, message string) *clusterv1beta2.ManagedClusterSet {
	set.Status.Conditions = []metav1.Condition{{
		Type: clusterv1beta2.ManagedClusterSetConditionEmpty, Status: status, Reason: reason, Message: message,
		ObservedGeneration: set.Generation, LastTransitionTime: metav1.Now(),
	}}
	return set
}

// wantCondition is the part of a condition a case checks.
type wantCondition struct {
	Status  metav1.ConditionStatus
	Reason  string
	Message string
}

func TestReconcile(t *testing.T) {
	twoProdClusters := []client.Object{builder.Cluster("a").InSet("prod").Obj(), builder.Cluster("b").InSet("prod").Obj(), builder.Cluster("c").InSet("dev").Obj()}
	cases := map[string]struct {
		request  string
		existing []client.Object
		// wantSelector, when set, is the set's clusterSelector afterwards.
		wantSelector *clusterv1beta2.ManagedClusterSelector
		// wantCondition, when set, is its ClusterSetEmpty condition; nil
		// with checkNoCondition means none.
		wantCondition    *wantCondition
		checkNoCondition bool
		wantAbsent       bool
		wantUnchanged    bool
		wantEvents       []string
	}{
		"a missing default set is created, exclusive": {
			request:      DefaultSetName,
			wantSelector: &clusterv1beta2.ManagedClusterSelector{SelectorType: clusterv1beta2.ExclusiveClusterSetLabel},
			wantEvents:   []string{ReasonBuiltinCreated},
		},
		"a missing global set is created, selecting every cluster": {
			request: GlobalSetName,
			wantSelector: &clusterv1beta2.ManagedClusterSelector{
				SelectorType: clusterv1beta2.LabelSelector, LabelSelector: &metav1.LabelSelector{},
			},
			wantEvents: []string{ReasonBuiltinCreated},
		},
		"a missing set of another name is not created": {
			request:    "prod",
			wantAbsent: true,
		},
		"a changed default selector is put back": {
			request:      DefaultSetName,
			existing:     []client.Object{builder.ClusterSet(DefaultSetName).Selector(&metav1.LabelSelector{}).Obj()},
			wantSelector: &clusterv1beta2.ManagedClusterSelector{SelectorType: clusterv1beta2.ExclusiveClusterSetLabel},
			// its status is computed on the update's own event
			checkNoCondition: true,
			wantEvents:       []string{ReasonBuiltinRestored},
		},
		"a changed global selector annotated autoupdate=false is left alone": {
			request: GlobalSetName,
			existing: []client.Object{func() client.Object {
				s := builder.ClusterSet(GlobalSetName).Selector(&metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}).Obj()
				s.Annotations = map[string]string{AutoUpdateAnnotation: "false"}
				return s
			}()},
			wantSelector: &clusterv1beta2.ManagedClusterSelector{
				SelectorType: clusterv1beta2.LabelSelector, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}},
			},
			wantCondition: &wantCondition{metav1.ConditionTrue, ReasonNoClusterMatched, "No ManagedCluster selected"},
			wantEvents:    []string{ReasonNoClusterMatched},
		},
		"a set with clusters is not empty": {
			request:       "prod",
			existing:      append([]client.Object{builder.ClusterSet("prod").Obj()}, twoProdClusters...),
			wantCondition: &wantCondition{metav1.ConditionFalse, ReasonClustersSelected, "2 ManagedClusters selected"},
			wantEvents:    []string{ReasonClustersSelected},
		},
		"a set no cluster is in is empty": {
			request:       "staging",
			existing:      append([]client.Object{builder.ClusterSet("staging").Obj()}, twoProdClusters...),
			wantCondition: &wantCondition{metav1.ConditionTrue, ReasonNoClusterMatched, "No ManagedCluster selected"},
			wantEvents:    []string{ReasonNoClusterMatched},
		},
		"a set that loses its last cluster turns empty": {
			request:       "staging",
			existing:      []client.Object{withEmpty(builder.ClusterSet("staging").Obj(), metav1.ConditionFalse, ReasonClustersSelected, "1 ManagedClusters selected")},
			wantCondition: &wantCondition{metav1.ConditionTrue, ReasonNoClusterMatched, "No ManagedCluster selected"},
			wantEvents:    []string{ReasonNoClusterMatched},
		},
		"a count change without a flip is written without an event": {
			request:       "prod",
			existing:      append([]client.Object{withEmpty(builder.ClusterSet("prod").Obj(), metav1.ConditionFalse, ReasonClustersSelected, "1 ManagedClusters selected")}, twoProdClusters...),
			wantCondition: &wantCondition{metav1.ConditionFalse, ReasonClustersSelected, "2 ManagedClusters selected"},
		},
		"a label selector set counts the clusters it selects": {
			request: "all-prod",
			existing: append([]client.Object{builder.ClusterSet("all-prod").Selector(&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: clusterv1beta2.ClusterSetLabel, Operator: metav1.LabelSelectorOpIn, Values: []string{"prod", "dev"}},
			}}).Obj()}, twoProdClusters...),
			wantCondition: &wantCondition{metav1.ConditionFalse, ReasonClustersSelected, "3 ManagedClusters selected"},
			wantEvents:    []string{ReasonClustersSelected},
		},
		"an invalid selector makes emptiness Unknown, not an error": {
			request: "broken",
			existing: []client.Object{builder.ClusterSet("broken").Selector(&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "env", Operator: "Near"},
			}}).Obj()},
			wantCondition: &wantCondition{Status: metav1.ConditionUnknown, Reason: ReasonInvalidSelector},
			wantEvents:    []string{ReasonInvalidSelector},
		},
		"an unchanged status is not written again": {
			request:       "prod",
			existing:      append([]client.Object{withEmpty(builder.ClusterSet("prod").Obj(), metav1.ConditionFalse, ReasonClustersSelected, "2 ManagedClusters selected")}, twoProdClusters...),
			wantCondition: &wantCondition{metav1.ConditionFalse, ReasonClustersSelected, "2 ManagedClusters selected"},
			wantUnchanged: true,
		},
		"a terminating set is left alone": {
			request: "prod",
			existing: append([]client.Object{func() client.Object {
				s := builder.ClusterSet("prod").Obj()
				s.Finalizers = []string{"example.com/hold"}
				s.DeletionTimestamp = &metav1.Time{Time: metav1.Now().Time}
				return s
			}()}, twoProdClusters...),
			checkNoCondition: true,
			wantUnchanged:    true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			c := fake.NewClientBuilder().WithScheme(testScheme(t)).WithObjects(tc.existing...).
				WithStatusSubresource(&clusterv1beta2.ManagedClusterSet{}).Build()
			before := &clusterv1beta2.ManagedClusterSet{}
			_ = c.Get(ctx, types.NamespacedName{Name: tc.request}, before)
			recorder := events.NewFakeRecorder(10)
			r := &Reconciler{Client: c, Recorder: recorder}

			if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: types.NamespacedName{Name: tc.request}}); err != nil {
				t.Fatalf("Reconcile() = %v", err)
			}
			got := &clusterv1beta2.ManagedClusterSet{}
			err := c.Get(ctx, types.NamespacedName{Name: tc.request}, got)
			if tc.wantAbsent {
				if !apierrors.IsNotFound(err) {
					t.Errorf("set %s should not exist, Get = %v", tc.request, err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if tc.wantUnchanged && got.ResourceVersion != before.ResourceVersion {
				t.Errorf("the set was written (resourceVersion %s → %s)", before.ResourceVersion, got.ResourceVersion)
			}
			if tc.wantSelector != nil {
				if diff := cmp.Diff(*tc.wantSelector, got.Spec.ClusterSelector); diff != "" {
					t.Errorf("clusterSelector (-want +got):\n%s", diff)
				}
			}
			cond := meta.FindStatusCondition(got.Status.Conditions, clusterv1beta2.ManagedClusterSetConditionEmpty)
			switch {
			case tc.checkNoCondition && cond != nil:
				t.Errorf("want no ClusterSetEmpty condition, got %+v", cond)
			case tc.wantCondition != nil && cond == nil:
				t.Errorf("want ClusterSetEmpty %+v, got none", *tc.wantCondition)
			case tc.wantCondition != nil:
				gotCond := wantCondition{cond.Status, cond.Reason, cond.Message}
				if tc.wantCondition.Message == "" {
					gotCond.Message = ""
				}
				if diff := cmp.Diff(*tc.wantCondition, gotCond); diff != "" {
					t.Errorf("ClusterSetEmpty (-want +got):\n%s", diff)
				}
				if cond.ObservedGeneration != got.Generation {
					t.Errorf("observedGeneration = %d, want %d", cond.ObservedGeneration, got.Generation)
				}
			}
			if diff := cmp.Diff(tc.wantEvents, eventReasons(recorder)); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// eventReasons drains the recorded events and returns their reasons.
func eventReasons(r *events.FakeRecorder) []string {
	var reasons []string
	for {
		select {
		case e := <-r.Events:
			reasons = append(reasons, strings.Fields(e)[1])
		default:
			return reasons
		}
	}
}

func TestSetsOfClusterMapsToEverySetItIsIn(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(testScheme(t)).WithObjects(
		builder.ClusterSet("prod").Obj(), builder.ClusterSet("dev").Obj(), builder.ClusterSet(GlobalSetName).Selector(&metav1.LabelSelector{}).Obj(),
	).Build()
	r := &Reconciler{Client: c}
	var got []string
	for _, req := range r.setsOfCluster(context.Background(), builder.Cluster("c1").InSet("prod").Obj()) {
		got = append(got, req.Name)
	}
	// the fake client lists in name order
	if diff := cmp.Diff([]string{GlobalSetName, "prod"}, got); diff != "" {
		t.Errorf("setsOfCluster() (-want +got):\n%s", diff)
	}
}
