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

	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/revision"
)

// systemNamespaces are made by every cluster's API server, and may not be
// deleted: a Propagation in one does not bring it.
var systemNamespaces = sets.New("default", "kube-system", "kube-public", "kube-node-lease")

// bringNamespace is the step adding a Propagation's own Namespace to its
// objects, first in order, so that they apply on a cluster that lacks it:
// the Namespace's name, labels and annotations only (revision.Clean
// applied), nothing in it. A namespace going away (not found) is not
// brought. It is not labelled with the revision (writeRevision): every
// Propagation of the namespace delivers it, and on a cluster they share
// it, so their numbers would overwrite each other there.
func (r *Reconciler) bringNamespace(ctx context.Context, s *scope) (steps.Result, error) {
	if s.namespace == "" || systemNamespaces.Has(s.namespace) {
		return steps.Continue, nil
	}
	m, err := r.Mapper.RESTMapping(schema.GroupKind{Kind: "Namespace"}, "v1")
	if err != nil {
		return steps.StopList, fmt.Errorf("resolving Namespace: %w", err)
	}
	found, err := r.list(ctx, m, "", v1alpha1.ResourceSelector{Name: s.namespace})
	if err != nil {
		return steps.StopList, err
	}
	if len(found) == 0 {
		return steps.Continue, nil
	}
	s.brought = namespaceShell(found[0])
	s.objects = append(s.objects, s.brought)
	revision.Sort(s.objects)
	return steps.Continue, nil
}

// namespaceShell is ns without its spec and status: its name, labels and
// annotations, cleaned.
func namespaceShell(ns *unstructured.Unstructured) *unstructured.Unstructured {
	out := &unstructured.Unstructured{}
	out.SetAPIVersion("v1")
	out.SetKind("Namespace")
	out.SetName(ns.GetName())
	out.SetLabels(ns.GetLabels())
	out.SetAnnotations(ns.GetAnnotations())
	revision.Clean(out)
	return out
}

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
