package managedcluster

import (
	"context"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// rbacEvents brings a cluster back when RBAC labelled with its name appears
// or changes while it is not accepted (revokeRBAC only deletes what the
// cache holds), or goes away while it is accepted (to make it again). The
// RBAC the hub makes for an accepted cluster, and what it deletes for a
// denied or deleted one, brings nothing back.
func (r *Reconciler) rbacEvents() handler.EventHandler {
	type queue = workqueue.TypedRateLimitingInterface[reconcile.Request]
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, q queue) { r.enqueueCluster(ctx, e.Object, false, q) },
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q queue) { r.enqueueCluster(ctx, e.ObjectNew, false, q) },
		DeleteFunc: func(ctx context.Context, e event.DeleteEvent, q queue) { r.enqueueCluster(ctx, e.Object, true, q) },
	}
}

// enqueueCluster queues the cluster obj is labelled with if its acceptance
// (accepted and not deleted) is as wanted.
func (r *Reconciler) enqueueCluster(ctx context.Context, obj client.Object, accepted bool, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	name := obj.GetLabels()[clusterv1.ClusterNameLabelKey]
	if name == "" {
		return
	}
	mc := &clusterv1.ManagedCluster{}
	if err := r.Client.Get(ctx, types.NamespacedName{Name: name}, mc); err != nil {
		return
	}
	if (mc.Spec.HubAcceptsClient && mc.DeletionTimestamp.IsZero()) == accepted {
		q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Name: name}})
	}
}
