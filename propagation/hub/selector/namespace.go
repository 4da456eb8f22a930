package selector

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/discovery"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/revision"
)

// namespaceContents lists every object in the namespace of every
// namespaced kind the hub serves (in its preferred version) that can be
// listed and watched, but the kinds revision.Skipped always skips.
func (r *Reconciler) namespaceContents(ctx context.Context, namespace string) ([]*unstructured.Unstructured, error) {
	kinds, err := namespacedKinds(r.Discovery)
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	for _, m := range kinds {
		objs, err := r.list(ctx, m, namespace, v1alpha1.ResourceSelector{})
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

// namespacedKinds are the namespaced kinds discovery finds that a
// namespace brings. A group discovery cannot reach is left out, not an
// error: the kinds it found are still listed.
func namespacedKinds(d discovery.DiscoveryInterface) ([]*meta.RESTMapping, error) {
	lists, err := discovery.ServerPreferredNamespacedResources(d)
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return nil, fmt.Errorf("discovering the namespaced kinds: %w", err)
	}
	var out []*meta.RESTMapping
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			continue
		}
		for _, res := range list.APIResources {
			if strings.Contains(res.Name, "/") || !sets.New(res.Verbs...).HasAll("list", "watch") {
				continue
			}
			gvk := gv.WithKind(res.Kind)
			probe := &unstructured.Unstructured{}
			probe.SetGroupVersionKind(gvk)
			if _, skipped := revision.Skipped(probe); skipped {
				continue // a kind never selected: no informer for it
			}
			out = append(out, &meta.RESTMapping{Resource: gv.WithResource(res.Name), GroupVersionKind: gvk, Scope: meta.RESTScopeNamespace})
		}
	}
	return out, nil
}
