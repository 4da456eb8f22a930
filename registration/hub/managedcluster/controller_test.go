package managedcluster

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/corral-dev/corral/registration/common"
)

var now = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func scheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := clusterv1.Install(s); err != nil {
		t.Fatal(err)
	}
	return s
}

type clusterOpt func(*clusterv1.ManagedCluster)

func accepted(mc *clusterv1.ManagedCluster) { mc.Spec.HubAcceptsClient = true }
func finalized(mc *clusterv1.ManagedCluster) {
	mc.Finalizers = append(mc.Finalizers, clusterv1.ManagedClusterFinalizer)
}
func deleting(mc *clusterv1.ManagedCluster) { mc.DeletionTimestamp = &metav1.Time{Time: now} }
func wasAccepted(mc *clusterv1.ManagedCluster) {
	meta.SetStatusCondition(&mc.Status.Conditions, metav1.Condition{
		Type: clusterv1.ManagedClusterConditionHubAccepted, Status: metav1.ConditionTrue, Reason: ReasonAccepted,
	})
}

func cluster(opts ...clusterOpt) *clusterv1.ManagedCluster {
	mc := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "c1", Generation: 1}}
	for _, o := range opts {
		o(mc)
	}
	return mc
}

func ownNamespace() *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "c1", Labels: clusterLabels("c1")}}
}

func TestReconcile(t *testing.T) {
	cases := map[string]struct {
		cluster  *clusterv1.ManagedCluster
		existing []client.Object
		// what must exist (true) or not (false) afterwards
		wantObjects   map[client.Object]bool
		wantFinalizer bool
		wantCondition *metav1.ConditionStatus
		wantGone      bool
		wantRequeue   bool
	}{
		"an accepted cluster first gets only the finalizer": {
			cluster:       cluster(accepted),
			wantObjects:   map[client.Object]bool{ownNamespace(): false},
			wantFinalizer: true,
		},
		"an accepted cluster with the finalizer gets namespace, RBAC, lease and condition": {
			cluster: cluster(accepted, finalized),
			wantObjects: map[client.Object]bool{
				ownNamespace(): true,
				&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: clusterRoleName("c1")}}:                                  true,
				&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: clusterRoleName("c1")}}:                           true,
				&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: roleBindingName("c1", "registration")}}: true,
				&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: roleBindingName("c1", "work")}}:         true,
				&coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: common.LeaseName}}:                    true,
			},
			wantFinalizer: true,
			wantCondition: ptr.To(metav1.ConditionTrue),
		},
		"a pending cluster gets no namespace and no condition": {
			cluster:       cluster(finalized),
			wantObjects:   map[client.Object]bool{ownNamespace(): false},
			wantFinalizer: true,
		},
		"a denied cluster loses its RBAC and gets the condition False": {
			cluster: cluster(finalized, wasAccepted),
			existing: []client.Object{
				ownNamespace(),
				&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: clusterRoleName("c1")}},
				&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: roleBindingName("c1", "work")}},
			},
			wantObjects: map[client.Object]bool{
				ownNamespace(): true,
				&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: clusterRoleName("c1")}}:                   false,
				&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: roleBindingName("c1", "work")}}: false,
			},
			wantFinalizer: true,
			wantCondition: ptr.To(metav1.ConditionFalse),
		},
		"a deleted cluster keeps its finalizer while its namespace goes": {
			cluster:       cluster(accepted, finalized, deleting),
			existing:      []client.Object{ownNamespace()},
			wantObjects:   map[client.Object]bool{ownNamespace(): false},
			wantFinalizer: true,
			wantRequeue:   true,
		},
		"a deleted cluster whose namespace is gone is released": {
			cluster:  cluster(accepted, finalized, deleting),
			wantGone: true,
		},
		"a deleted cluster does not delete a namespace that is not its own": {
			cluster:     cluster(accepted, finalized, deleting),
			existing:    []client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "c1"}}},
			wantObjects: map[client.Object]bool{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "c1"}}: true},
			wantGone:    true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			c := fake.NewClientBuilder().WithScheme(scheme(t)).
				WithObjects(append(tc.existing, tc.cluster)...).
				WithStatusSubresource(&clusterv1.ManagedCluster{}).Build()
			r := &Reconciler{Client: c, Clock: clocktesting.NewFakePassiveClock(now)}

			res, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(tc.cluster)})
			if err != nil {
				t.Fatalf("Reconcile() = %v", err)
			}
			if got := res.RequeueAfter > 0; got != tc.wantRequeue {
				t.Errorf("requeue = %v, want %t", res.RequeueAfter, tc.wantRequeue)
			}
			for obj, want := range tc.wantObjects {
				err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj)
				if got := err == nil; got != want {
					t.Errorf("%T %s exists = %t (%v), want %t", obj, client.ObjectKeyFromObject(obj), got, err, want)
				}
			}
			got := &clusterv1.ManagedCluster{}
			err = c.Get(ctx, client.ObjectKeyFromObject(tc.cluster), got)
			if tc.wantGone {
				if !apierrors.IsNotFound(err) {
					t.Errorf("the cluster should be gone, Get = %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if has := slices.Contains(got.Finalizers, clusterv1.ManagedClusterFinalizer); has != tc.wantFinalizer {
				t.Errorf("finalizer present = %t, want %t", has, tc.wantFinalizer)
			}
			cond := meta.FindStatusCondition(got.Status.Conditions, clusterv1.ManagedClusterConditionHubAccepted)
			var gotStatus *metav1.ConditionStatus
			if cond != nil {
				gotStatus = &cond.Status
			}
			if diff := cmp.Diff(tc.wantCondition, gotStatus); diff != "" {
				t.Errorf("HubAccepted condition status (-want +got):\n%s", diff)
			}
		})
	}
}
