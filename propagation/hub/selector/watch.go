package selector

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// SelectsIndex is the cache index of (Cluster)Propagations by the kinds
// their selectors name, as schema.GroupKind.String() ("Deployment.apps",
// "ConfigMap"), and NamespaceContents for a ClusterPropagation selecting
// namespaces with their resources.
const SelectsIndex = "spec.resourceSelectors.groupKind"

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
		keys = append(keys, schema.GroupKind{Group: sel.Group, Kind: sel.Kind}.String())
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
		keys = append(keys, schema.GroupKind{Group: sel.Group, Kind: sel.Kind}.String())
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
	}))); err != nil {
		return err
	}
	w.watched[m.GroupVersionKind] = true
	ctrl.LoggerFrom(ctx).V(1).Info("Watching a selected kind", "kind", m.GroupVersionKind.String())
	return nil
}

// requestsFor are the propagations an event of obj, of kind gk, may
// concern: the Propagations of its namespace selecting gk (of a
// Namespace: every Propagation in it, which brings it), and the
// ClusterPropagations selecting gk or, for a namespaced object, the
// contents of namespaces.
func (w *watcher) requestsFor(ctx context.Context, gk schema.GroupKind, obj client.Object) []reconcile.Request {
	var reqs []reconcile.Request
	ns := obj.GetNamespace()
	if ns != "" {
		props := &v1alpha1.PropagationList{}
		if err := w.client.List(ctx, props, client.InNamespace(ns), client.MatchingFields{SelectsIndex: gk.String()}); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "Listing the Propagations selecting a kind", "kind", gk.String())
		}
		for _, p := range props.Items {
			reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: p.Namespace, Name: p.Name}})
		}
	}
	key := gk.String()
	if ns != "" {
		key = NamespaceContents
	}
	if ns == "" && gk == (schema.GroupKind{Kind: "Namespace"}) {
		// The Propagations of a namespace bring it (bringNamespace).
		props := &v1alpha1.PropagationList{}
		if err := w.client.List(ctx, props, client.InNamespace(obj.GetName())); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "Listing the Propagations of a namespace", "namespace", obj.GetName())
		}
		for _, p := range props.Items {
			reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: p.Namespace, Name: p.Name}})
		}
	}
	cprops := &v1alpha1.ClusterPropagationList{}
	if err := w.client.List(ctx, cprops, client.MatchingFields{SelectsIndex: key}); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Listing the ClusterPropagations selecting a kind", "kind", key)
	}
	for _, p := range cprops.Items {
		reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Name: p.Name}})
	}
	return reqs
}
