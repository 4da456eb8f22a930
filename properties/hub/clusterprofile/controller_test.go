package clusterprofile

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	cpv1alpha1 "sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	healthapi "github.com/corral-dev/corral/health/api"
	"github.com/corral-dev/corral/internal/testing/builder"
)

func newClient(t *testing.T, objs ...client.Object) client.Client {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, clusterv1.Install, cpv1alpha1.AddToScheme} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	return fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).WithStatusSubresource(&cpv1alpha1.ClusterProfile{}).Build()
}

// cluster is c1 as its agent and the hub report it.
func cluster() *clusterv1.ManagedCluster {
	return builder.Cluster("c1").InSet("prod").KubernetesVersion("v1.35.4").CPU("8", "").
		Claim("region.properties.corral.io", "eu-west").
		Condition(metav1.Condition{Type: clusterv1.ManagedClusterConditionAvailable, Status: metav1.ConditionTrue, Reason: "Available", LastTransitionTime: metav1.Now()}).
		Obj()
}

func TestReconcileCreatesAndUpdates(t *testing.T) {
	mc := cluster()
	c := newClient(t, mc)
	r := &Reconciler{Client: c, Namespace: DefaultNamespace, Clock: clocktesting.NewFakePassiveClock(time.Unix(1000, 0))}
	ctx := context.Background()
	req := ctrl.Request{NamespacedName: types.NamespacedName{Name: "c1"}}
	if _, err := r.Reconcile(ctx, req); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, types.NamespacedName{Name: DefaultNamespace}, &corev1.Namespace{}); err != nil {
		t.Errorf("the profiles' namespace was not created: %v", err)
	}
	p := &cpv1alpha1.ClusterProfile{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: DefaultNamespace, Name: "c1"}, p); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{cpv1alpha1.LabelClusterManagerKey: ManagerName, clusterv1.ClusterNameLabelKey: "c1", cpv1alpha1.LabelClusterSetKey: "prod"}, p.Labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	if p.Spec.ClusterManager.Name != ManagerName || p.Status.Version.Kubernetes != "v1.35.4" {
		t.Errorf("profile %+v", p)
	}
	props := map[string]string{}
	for _, pr := range p.Status.Properties {
		props[pr.Name] = pr.Value
	}
	if diff := cmp.Diff(map[string]string{"region.properties.corral.io": "eu-west", "allocatable.cpu": "8"}, props); diff != "" {
		t.Errorf("properties (-want +got):\n%s", diff)
	}
	if !meta.IsStatusConditionTrue(p.Status.Conditions, cpv1alpha1.ClusterConditionControlPlaneHealthy) {
		t.Errorf("ControlPlaneHealthy not True from Available: %v", p.Status.Conditions)
	}

	// The health addon's verdict takes over from Available.
	meta.SetStatusCondition(&mc.Status.Conditions, metav1.Condition{Type: healthapi.ConditionHealthy, Status: metav1.ConditionFalse, Reason: healthapi.ReasonNodesNotReady, Message: "1/2 nodes Ready"})
	if err := c.Update(ctx, mc); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Reconcile(ctx, req); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, types.NamespacedName{Namespace: DefaultNamespace, Name: "c1"}, p); err != nil {
		t.Fatal(err)
	}
	cond := meta.FindStatusCondition(p.Status.Conditions, cpv1alpha1.ClusterConditionControlPlaneHealthy)
	if cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != healthapi.ReasonNodesNotReady {
		t.Errorf("ControlPlaneHealthy %v, want False from the health condition", cond)
	}
}

func TestReconcileDeletesWithTheCluster(t *testing.T) {
	profile := &cpv1alpha1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Namespace: DefaultNamespace, Name: "gone",
		Labels: map[string]string{cpv1alpha1.LabelClusterManagerKey: ManagerName}}}
	other := &cpv1alpha1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Namespace: DefaultNamespace, Name: "theirs",
		Labels: map[string]string{cpv1alpha1.LabelClusterManagerKey: "someone-else"}}}
	c := newClient(t, profile, other)
	r := &Reconciler{Client: c, Namespace: DefaultNamespace, Clock: clocktesting.NewFakePassiveClock(time.Now())}
	for _, name := range []string{"gone", "theirs"} {
		if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: types.NamespacedName{Name: name}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(profile), &cpv1alpha1.ClusterProfile{}); !apierrors.IsNotFound(err) {
		t.Errorf("the profile of a deleted cluster is still there: %v", err)
	}
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(other), &cpv1alpha1.ClusterProfile{}); err != nil {
		t.Errorf("another cluster manager's profile was touched: %v", err)
	}
}

func TestReconcileCreatesTheNamespaceOnce(t *testing.T) {
	first, second := cluster(), cluster()
	second.Name = "c2"
	creates := 0
	c := interceptor.NewClient(newClient(t, first, second).(client.WithWatch), interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if _, ok := obj.(*corev1.Namespace); ok {
				creates++
			}
			return c.Create(ctx, obj, opts...)
		},
	})
	r := &Reconciler{Client: c, Namespace: DefaultNamespace, Clock: clocktesting.NewFakePassiveClock(time.Now())}
	for _, name := range []string{"c1", "c2"} {
		if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: types.NamespacedName{Name: name}}); err != nil {
			t.Fatal(err)
		}
		if err := c.Get(context.Background(), types.NamespacedName{Namespace: DefaultNamespace, Name: name}, &cpv1alpha1.ClusterProfile{}); err != nil {
			t.Errorf("cluster %s has no profile: %v", name, err)
		}
	}
	if creates != 1 {
		t.Errorf("the profiles' namespace was created %d times for 2 clusters, want once", creates)
	}
}
