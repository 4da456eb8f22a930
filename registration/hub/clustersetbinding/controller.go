package clustersetbinding

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/corral-dev/corral/internal/steps"
)

// FieldOwner is the field manager of what this controller writes.
const FieldOwner = "corral-clustersetbinding"

// ClusterSetIndex is the cache index of ManagedClusterSetBindings by the
// set they name (spec.clusterSet).
const ClusterSetIndex = "spec.clusterSet"

// Reconciler keeps each binding's Bound condition.
type Reconciler struct {
	Client   client.Client
	Recorder events.EventRecorder
}

// scope is what one reconcile works on.
type scope struct {
	binding  *clusterv1beta2.ManagedClusterSetBinding
	original *clusterv1beta2.ManagedClusterSetBinding
	// setExists says whether the set the binding names exists.
	setExists bool
}

// IndexByClusterSet is the ClusterSetIndex function.
func IndexByClusterSet(obj client.Object) []string {
	b, ok := obj.(*clusterv1beta2.ManagedClusterSetBinding)
	if !ok || b.Spec.ClusterSet == "" {
		return nil
	}
	return []string{b.Spec.ClusterSet}
}

// SetupWithManager registers ClusterSetIndex and the controller, with
// workers reconciles at once.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, workers int) error {
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &clusterv1beta2.ManagedClusterSetBinding{}, ClusterSetIndex, IndexByClusterSet); err != nil {
		return fmt.Errorf("indexing ManagedClusterSetBindings by set: %w", err)
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("managedclustersetbinding").
		For(&clusterv1beta2.ManagedClusterSetBinding{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&clusterv1beta2.ManagedClusterSet{}, handler.EnqueueRequestsFromMapFunc(r.bindingsOfSet),
			builder.WithPredicates(setComesOrGoes{})).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
		Complete(r)
}

// setComesOrGoes passes a set's creation and deletion: the only changes of
// a set that change whether a binding is bound.
type setComesOrGoes struct{ predicate.Funcs }

func (setComesOrGoes) Update(event.UpdateEvent) bool { return false }

// bindingsOfSet maps a set to the bindings that name it, in every namespace.
func (r *Reconciler) bindingsOfSet(ctx context.Context, obj client.Object) []reconcile.Request {
	list := &clusterv1beta2.ManagedClusterSetBindingList{}
	if err := r.Client.List(ctx, list, client.MatchingFields{ClusterSetIndex: obj.GetName()}); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Listing the bindings of a ManagedClusterSet", "set", obj.GetName())
		return nil
	}
	reqs := make([]reconcile.Request, 0, len(list.Items))
	for _, b := range list.Items {
		reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: b.Namespace, Name: b.Name}})
	}
	return reqs
}

// Reconcile writes a binding's Bound condition.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	binding := &clusterv1beta2.ManagedClusterSetBinding{}
	if err := r.Client.Get(ctx, req.NamespacedName, binding); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !binding.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	s := &scope{binding: binding, original: binding.DeepCopy()}
	return steps.Run(ctx, s,
		steps.Step[*scope]{Name: "find set", Run: r.findSet},
		steps.Step[*scope]{Name: "update status", Run: r.updateStatus},
	)
}
