package selector

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// SelectsIndex is the cache index of (Cluster)Propagations by what their
// selectors name: selectsKey of the kind and the name for a selector by
// name, of the kind and AnyName for one by labels or of every object, and
// NamespaceContents for a ClusterPropagation selecting namespaces with
// their resources. An object's event then concerns only the propagations
// naming it or selecting its kind by labels: with a thousand Propagations
// of one Deployment each in a namespace, an event of one Deployment
// re-selects one, not a thousand (test/benchmark/propagation: mapping
// events to every propagation of the kind was 42% of the hub's CPU).
const SelectsIndex = "spec.resourceSelectors.groupKindName"

// AnyName is selectsKey's name of a selector that does not name its
// object: by labels, or every object of the kind.
const AnyName = "*"

// selectsKey is SelectsIndex's key of kind gk and name:
// "Deployment.apps/web", "ConfigMap/*".
func selectsKey(gk schema.GroupKind, name string) string { return gk.String() + "/" + name }

// selectorKey is SelectsIndex's key of a selector.
func selectorKey(sel v1alpha1.ResourceSelector) string {
	name := sel.Name
	if name == "" {
		name = AnyName
	}
	return selectsKey(schema.GroupKind{Group: sel.Group, Kind: sel.Kind}, name)
}

// NamespaceContents is SelectsIndex's key of ClusterPropagations that
// select namespaces with what is in them: any namespaced object's event
// concerns them.
const NamespaceContents = "(namespace contents)"

// indexSelectedKinds registers SelectsIndex for both kinds.
func indexSelectedKinds(mgr ctrl.Manager) error {
	idx := mgr.GetFieldIndexer()
	if err := idx.IndexField(context.Background(), &v1alpha1.Propagation{}, SelectsIndex, propagationKinds); err != nil {
		return fmt.Errorf("indexing Propagations by the kinds they select: %w", err)
	}
	if err := idx.IndexField(context.Background(), &v1alpha1.ClusterPropagation{}, SelectsIndex, clusterPropagationKinds); err != nil {
		return fmt.Errorf("indexing ClusterPropagations by the kinds they select: %w", err)
	}
	return nil
}

// propagationKinds is SelectsIndex's function for Propagations.
func propagationKinds(o client.Object) []string {
	p, ok := o.(*v1alpha1.Propagation)
	if !ok {
		return nil
	}
	keys := make([]string, 0, len(p.Spec.ResourceSelectors))
	for _, sel := range p.Spec.ResourceSelectors {
		keys = append(keys, selectorKey(sel))
	}
	return keys
}

// clusterPropagationKinds is SelectsIndex's function for
// ClusterPropagations.
func clusterPropagationKinds(o client.Object) []string {
	p, ok := o.(*v1alpha1.ClusterPropagation)
	if !ok {
		return nil
	}
	keys := make([]string, 0, len(p.Spec.ResourceSelectors)+1)
	for _, sel := range p.Spec.ResourceSelectors {
		keys = append(keys, selectorKey(sel.ResourceSelector))
		if bringsContents(sel) {
			keys = append(keys, NamespaceContents)
		}
	}
	return keys
}

// watcher starts, once per kind, a watch of the kind's objects through
// the manager's cache, whose events re-select the propagations that
// select the kind.
type watcher struct {
	cache  cache.Cache
	ctrl   controller.Controller
	client client.Client

	mu      sync.Mutex
	watched map[schema.GroupVersionKind]bool
}

func newWatcher(c cache.Cache, ctl controller.Controller, cl client.Client) *watcher {
	return &watcher{cache: c, ctrl: ctl, client: cl, watched: map[schema.GroupVersionKind]bool{}}
}

// watch makes sure m's kind is watched.
func (w *watcher) watch(ctx context.Context, m *meta.RESTMapping) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.watched[m.GroupVersionKind] {
		return nil
	}
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(m.GroupVersionKind)
	gk := m.GroupVersionKind.GroupKind()
	if err := w.ctrl.Watch(source.Kind[client.Object](w.cache, obj, handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []reconcile.Request {
		return w.requestsFor(ctx, gk, o)
	}), predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool { return selectable(e.ObjectOld, e.ObjectNew) }})); err != nil {
		return err
	}
	w.watched[m.GroupVersionKind] = true
	ctrl.LoggerFrom(ctx).V(1).Info("Watching a selected kind", "kind", m.GroupVersionKind.String())
	return nil
}

// selectable says whether an update of a selected object may change
// what a revision holds: not one that changed only the status (the same
// generation, when the kind keeps one) and none of the metadata a
// revision keeps or Skipped reads. The status controller's own writes of
// templates' status are such updates.
func selectable(old, obj client.Object) bool {
	if obj.GetGeneration() == 0 || obj.GetGeneration() != old.GetGeneration() {
		return true
	}
	return !maps.Equal(old.GetLabels(), obj.GetLabels()) || !maps.Equal(old.GetAnnotations(), obj.GetAnnotations()) ||
		!slices.Equal(old.GetFinalizers(), obj.GetFinalizers()) ||
		!equality.Semantic.DeepEqual(old.GetOwnerReferences(), obj.GetOwnerReferences())
}

// requestsFor are the propagations an event of obj, of kind gk, may
// concern: the Propagations of its namespace selecting obj by name or gk
// by labels (of a Namespace: every Propagation in it, which brings it),
// and the ClusterPropagations selecting obj by name, gk by labels or, for
// a namespaced object, the contents of namespaces. The lists only read
// names, so they are not deep-copied.
func (w *watcher) requestsFor(ctx context.Context, gk schema.GroupKind, obj client.Object) []reconcile.Request {
	var reqs []reconcile.Request
	ns := obj.GetNamespace()
	keys := []string{selectsKey(gk, obj.GetName()), selectsKey(gk, AnyName)}
	if ns != "" {
		for _, key := range keys {
			props := &v1alpha1.PropagationList{}
			if err := w.client.List(ctx, props, client.InNamespace(ns), client.MatchingFields{SelectsIndex: key}, client.UnsafeDisableDeepCopy); err != nil {
				ctrl.LoggerFrom(ctx).Error(err, "Listing the Propagations selecting an object", "key", key)
			}
			for _, p := range props.Items {
				reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: p.Namespace, Name: p.Name}})
			}
		}
		keys = []string{NamespaceContents}
	}
	if ns == "" && gk == (schema.GroupKind{Kind: "Namespace"}) {
		// The Propagations of a namespace bring it (bringNamespace).
		props := &v1alpha1.PropagationList{}
		if err := w.client.List(ctx, props, client.InNamespace(obj.GetName()), client.UnsafeDisableDeepCopy); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "Listing the Propagations of a namespace", "namespace", obj.GetName())
		}
		for _, p := range props.Items {
			reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: p.Namespace, Name: p.Name}})
		}
	}
	for _, key := range keys {
		cprops := &v1alpha1.ClusterPropagationList{}
		if err := w.client.List(ctx, cprops, client.MatchingFields{SelectsIndex: key}, client.UnsafeDisableDeepCopy); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "Listing the ClusterPropagations selecting an object", "key", key)
		}
		for _, p := range cprops.Items {
			reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Name: p.Name}})
		}
	}
	return reqs
}
