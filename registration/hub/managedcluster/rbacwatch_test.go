package managedcluster

import (
	"context"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/workqueue"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func TestRBACEvents(t *testing.T) {
	labelled := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: roleBindingName("c1", "registration"), Namespace: "c1", Labels: clusterLabels("c1")}}
	unlabelled := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "other", Namespace: "c1"}}
	cases := map[string]struct {
		cluster    *clusterv1.ManagedCluster
		send       func(h handlerFuncs, obj client.Object)
		obj        client.Object
		wantQueued bool
	}{
		"RBAC appearing for an accepted cluster is its own doing":   {cluster: c1().Accepted().Finalizer(clusterv1.ManagedClusterFinalizer).Obj(), send: sendCreate, obj: labelled},
		"RBAC appearing for a cluster not accepted is revoked":      {cluster: c1().Finalizer(clusterv1.ManagedClusterFinalizer).Obj(), send: sendCreate, obj: labelled, wantQueued: true},
		"RBAC changing for a cluster not accepted is revoked":       {cluster: c1().Finalizer(clusterv1.ManagedClusterFinalizer).Obj(), send: sendUpdate, obj: labelled, wantQueued: true},
		"RBAC of an accepted cluster going is made again":           {cluster: c1().Accepted().Finalizer(clusterv1.ManagedClusterFinalizer).Obj(), send: sendDelete, obj: labelled, wantQueued: true},
		"RBAC of a denied cluster going is its revocation":          {cluster: c1().Finalizer(clusterv1.ManagedClusterFinalizer).Obj(), send: sendDelete, obj: labelled},
		"RBAC of a deleted cluster going is its cleanup":            {cluster: c1().Accepted().Finalizer(clusterv1.ManagedClusterFinalizer).Deleting(now).Obj(), send: sendDelete, obj: labelled},
		"RBAC without a cluster label is not the hub's":             {cluster: c1().Finalizer(clusterv1.ManagedClusterFinalizer).Obj(), send: sendCreate, obj: unlabelled},
		"RBAC of a cluster that does not exist brings nothing back": {send: sendCreate, obj: labelled},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var objs []client.Object
			if tc.cluster != nil {
				objs = append(objs, tc.cluster)
			}
			r := &Reconciler{Client: newFakeClient(t, objs...)}
			q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
			defer q.ShutDown()

			tc.send(handlerFuncs{r: r, q: q}, tc.obj)
			if got := q.Len() == 1; got != tc.wantQueued {
				t.Errorf("cluster queued = %t, want %t", got, tc.wantQueued)
			}
		})
	}
}

type handlerFuncs struct {
	r *Reconciler
	q workqueue.TypedRateLimitingInterface[reconcile.Request]
}

func sendCreate(h handlerFuncs, obj client.Object) {
	h.r.rbacEvents().Create(context.Background(), event.CreateEvent{Object: obj}, h.q)
}

func sendUpdate(h handlerFuncs, obj client.Object) {
	h.r.rbacEvents().Update(context.Background(), event.UpdateEvent{ObjectOld: obj, ObjectNew: obj}, h.q)
}

func sendDelete(h handlerFuncs, obj client.Object) {
	h.r.rbacEvents().Delete(context.Background(), event.DeleteEvent{Object: obj}, h.q)
}
