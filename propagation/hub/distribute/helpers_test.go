package distribute

import (
	"context"
	"strconv"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clocktesting "k8s.io/utils/clock/testing"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/corral-dev/corral/internal/rollout"
	"github.com/corral-dev/corral/internal/testing/builder"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/revisionindex"
	"github.com/corral-dev/corral/propagation/hub/workindex"
)

var now = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func fakeClient(t *testing.T, funcs interceptor.Funcs, objs ...client.Object) client.Client {
	t.Helper()
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).WithInterceptorFuncs(funcs).
		WithIndex(&workv1.ManifestWork{}, workindex.Field, workindex.KeyOf).
		WithIndex(&v1alpha1.PropagationRevision{}, revisionindex.Field, revisionindex.KeyOf).
		WithIndex(&v1alpha1.ClusterPropagationRevision{}, revisionindex.Field, revisionindex.KeyOf).
		WithStatusSubresource(&v1alpha1.Propagation{}, &v1alpha1.ClusterPropagation{}).Build()
}

func reconciler(c client.Client) *Reconciler {
	clock := clocktesting.NewFakeClock(now)
	return &Reconciler{Client: c, Live: c, Clock: clock, Namespaced: true, recheck: rollout.NewRechecker(clock)}
}

// newProp is the Propagation shop/web, with its finalizer, naming the
// placement two with strategy.
func newProp(strategy clusterv1alpha1.RolloutStrategy) *v1alpha1.Propagation {
	return &v1alpha1.Propagation{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", Generation: 1, Finalizers: []string{v1alpha1.Finalizer}},
		Spec: v1alpha1.PropagationSpec{
			ResourceSelectors: []v1alpha1.ResourceSelector{{Version: "v1", Kind: "ConfigMap", Name: "web"}},
			PlacementRefs:     []v1alpha1.LocalPlacementReference{{Name: "two", RolloutStrategy: strategy}},
		},
	}
}

func configMap(color string) workv1.Manifest {
	return workv1.Manifest{RawExtension: runtime.RawExtension{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web","namespace":"shop"},"data":{"color":"` + color + `"}}`)}}
}

// rev is revision n of shop/web, holding objects.
func rev(n int64, objects ...workv1.Manifest) *v1alpha1.PropagationRevision {
	return &v1alpha1.PropagationRevision{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-" + strconv.FormatInt(n, 10),
			Labels: map[string]string{v1alpha1.LabelPropagation: "web", v1alpha1.LabelRevision: strconv.FormatInt(n, 10)}},
		Spec: v1alpha1.RevisionSpec{Revision: n, Hash: "sha256:x", Objects: objects},
	}
}

// placement is shop/two and its decision selecting clusters.
func placement(clusters ...string) []client.Object {
	pd := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "two-decision-1",
		Labels: map[string]string{clusterv1beta1.PlacementLabel: "two", clusterv1beta1.DecisionGroupIndexLabel: "0"}}}
	for _, c := range clusters {
		pd.Status.Decisions = append(pd.Status.Decisions, clusterv1beta1.ClusterDecision{ClusterName: c})
	}
	return []client.Object{&clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "two"}}, pd}
}

// work is shop/web's part 0 on cluster, carrying revision n, with conds.
func work(cluster string, n int64, conds ...metav1.Condition) *workv1.ManifestWork {
	return builder.Work(cluster, WorkName("shop", "web", 0)).Generation(1).
		Label(v1alpha1.LabelPropagation, "web").Label(v1alpha1.LabelPropagationNamespace, "shop").
		Label(v1alpha1.LabelRevision, strconv.FormatInt(n, 10)).
		Annotation(RolloutTimeAnnotation, now.Add(-time.Hour).Format(time.RFC3339)).
		Manifests(configMap("blue")).Condition(conds...).Obj()
}

func cond(t string, s metav1.ConditionStatus) metav1.Condition {
	return metav1.Condition{Type: t, Status: s, Reason: "Test", ObservedGeneration: 1, LastTransitionTime: metav1.NewTime(now.Add(-time.Minute))}
}

// done are the conditions of a work applied, available and no longer
// progressing.
var done = []metav1.Condition{
	cond(workv1.WorkApplied, metav1.ConditionTrue), cond(workv1.WorkAvailable, metav1.ConditionTrue), cond(workv1.WorkProgressing, metav1.ConditionFalse),
}

// run reconciles shop/web once.
func run(t *testing.T, r *Reconciler) {
	t.Helper()
	if _, err := r.Reconcile(context.Background(), reqWeb); err != nil {
		t.Fatalf("reconcile: %v", err)
	}
}

// revisionsOnClusters lists shop/web's works as cluster/name → revision label.
func revisionsOnClusters(t *testing.T, c client.Client) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, w := range webWorks(t, c) {
		out[w.Namespace+"/"+w.Name] = w.Labels[v1alpha1.LabelRevision]
	}
	return out
}

// webWorks are shop/web's works on every cluster.
func webWorks(t *testing.T, c client.Client) []workv1.ManifestWork {
	t.Helper()
	list := &workv1.ManifestWorkList{}
	if err := c.List(context.Background(), list, client.MatchingLabels{v1alpha1.LabelPropagation: "web"}); err != nil {
		t.Fatal(err)
	}
	return list.Items
}
