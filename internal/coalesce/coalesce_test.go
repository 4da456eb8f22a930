package coalesce

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func TestEventsAreGatheredIntoOneRequest(t *testing.T) {
	owner := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "shop", Name: "web"}}
	h := Requests(func(context.Context, client.Object) []reconcile.Request { return []reconcile.Request{owner} })
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	defer q.ShutDown()
	ctx := context.Background()
	obj := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "cluster1", Name: "w"}}

	h.Create(ctx, event.CreateEvent{Object: obj}, q)
	for range 10 {
		h.Update(ctx, event.UpdateEvent{ObjectOld: obj, ObjectNew: obj}, q)
	}
	h.Delete(ctx, event.DeleteEvent{Object: obj}, q)
	if q.Len() != 0 {
		t.Fatalf("right after the events the queue holds %d, want none yet (they wait %s)", q.Len(), Delay)
	}
	deadline := time.Now().Add(10 * Delay)
	for q.Len() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // polling the queue, whose delay is its own clock's
	}
	if q.Len() != 1 {
		t.Fatalf("after the delay the queue holds %d, want the twelve events as one request", q.Len())
	}
}
