package clusterset

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/registration/common"
)

// FieldOwner is the field manager of what this controller writes.
const FieldOwner = "corral-clusterset"

// Reconciler keeps the built-in sets and every set's status.
type Reconciler struct {
	Client   client.Client
	Recorder events.EventRecorder
}

// scope is what one reconcile works on.
type scope struct {
	set      *clusterv1beta2.ManagedClusterSet
	original *clusterv1beta2.ManagedClusterSet
	// empty is the set's ClusterSetEmpty condition as it should be.
	empty metav1.Condition
}

// SetupWithManager registers the controller, with workers reconciles at
// once. Besides the sets themselves it watches clusters: a cluster that
// appears, goes or changes labels requeues every set it was or is in (the
// map runs on both the old and the new cluster of an update), so a cluster
// moving between two exclusive sets updates both.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, workers int) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("managedclusterset").
		For(&clusterv1beta2.ManagedClusterSet{}, builder.WithPredicates(predicate.Or[client.Object](
			predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}))).
		Watches(&clusterv1.ManagedCluster{}, handler.EnqueueRequestsFromMapFunc(r.setsOfCluster),
			builder.WithPredicates(predicate.LabelChangedPredicate{})).
		WatchesRawSource(source.Func(enqueueBuiltins)).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
		Complete(r)
}

// enqueueBuiltins asks, once at start, for the built-in sets to be looked
// at: a hub that lacks them has no event that would.
func enqueueBuiltins(_ context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
	for _, name := range builtinNames {
		q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Name: name}})
	}
	return nil
}

// setsOfCluster maps a cluster to the sets it is in.
func (r *Reconciler) setsOfCluster(ctx context.Context, obj client.Object) []reconcile.Request {
	cluster, ok := obj.(*clusterv1.ManagedCluster)
	if !ok {
		return nil
	}
	sets := &clusterv1beta2.ManagedClusterSetList{}
	// The sets are only read: no need to copy them out of the cache.
	if err := r.Client.List(ctx, sets, client.UnsafeDisableDeepCopy); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Listing ManagedClusterSets to map a cluster to its sets", "cluster", cluster.Name)
		return nil
	}
	var reqs []reconcile.Request
	for _, name := range common.SetsOf(cluster, sets.Items) {
		reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Name: name}})
	}
	return reqs
}

// Reconcile creates a missing built-in set, or keeps an existing set's
// built-in selector and status.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	set := &clusterv1beta2.ManagedClusterSet{}
	if err := r.Client.Get(ctx, req.NamespacedName, set); err != nil {
		if client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, err
		}
		return ctrl.Result{}, r.createBuiltin(ctx, req.Name)
	}
	if !set.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	s := &scope{set: set, original: set.DeepCopy()}
	return steps.Run(ctx, s,
		steps.Step[*scope]{Name: "restore built-in selector", Run: r.restoreBuiltinSelector},
		steps.Step[*scope]{Name: "count members", Run: r.countMembers},
		steps.Step[*scope]{Name: "update status", Run: r.updateStatus},
	)
}

// event records an event about set, if there is a recorder.
func (r *Reconciler) event(set *clusterv1beta2.ManagedClusterSet, eventType, reason, action, note string, args ...any) {
	if r.Recorder != nil {
		r.Recorder.Eventf(set, nil, eventType, reason, action, note, args...)
	}
}
