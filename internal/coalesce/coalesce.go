// Package coalesce is an event handler that gathers the bursts of events
// a controller's dependents make into one reconcile: each event's
// requests are queued a short delay later, and the work queue keeps one
// of a request waiting however often it is added meanwhile.
//
// A propagation's ten ManifestWorks report their status within moments
// of each other; mapped straight to the propagation, each report can be
// a reconcile of its own and a status write of its own (three or more
// per propagation and rollout in test/benchmark/propagation, where the
// floor makes one). Delayed by Delay, they mostly come as one.
package coalesce

import (
	"context"
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Delay is how long an event's requests wait to be gathered with the
// next ones: short beside a rollout's own waits, long beside a burst of
// status reports.
const Delay = 500 * time.Millisecond

// Requests maps objects to requests with mapFn, as
// handler.EnqueueRequestsFromMapFunc does, but queues each event's
// requests Delay later: a controller's own writes of several dependents
// (a propagation's works, created one after another) and their owners'
// reports come back as one reconcile.
func Requests(mapFn handler.MapFunc) handler.EventHandler {
	queue := func(ctx context.Context, obj client.Object, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
		for _, req := range mapFn(ctx, obj) {
			q.AddAfter(req, Delay)
		}
	}
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			queue(ctx, e.Object, q)
		},
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			queue(ctx, e.ObjectNew, q)
		},
		DeleteFunc: func(ctx context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			queue(ctx, e.Object, q)
		},
		GenericFunc: func(ctx context.Context, e event.GenericEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			queue(ctx, e.Object, q)
		},
	}
}
