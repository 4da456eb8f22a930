package selector

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/revision"
)

// ReasonDuplicate: two objects of one kind, namespace and name would be
// in one revision (an envelope's and a hub object, or two envelopes').
const ReasonDuplicate = "DuplicateObject"

// open takes the objects of an envelope instead of the envelope, and says
// how many it delivers. An envelope that does not decode blocks the
// selection. A Propagation's envelope may carry only namespaced objects
// of the Propagation's namespace (one without a namespace is put there);
// a ClusterPropagation's, anything.
func (r *Reconciler) open(sel *selection, envelope *unstructured.Unstructured) (int, error) {
	s := sel.s
	objs, err := revision.Open(envelope)
	if err != nil {
		s.block(v1alpha1.ReasonUndecodable, err.Error())
		return 0, nil
	}
	name := revision.EnvelopeName(envelope)
	n := 0
	for _, e := range objs {
		obj := e.Object
		where := fmt.Sprintf("envelope ConfigMap %s, key %q", name, e.Key)
		if reason, skip := revision.Skipped(obj); skip {
			s.skipped = append(s.skipped, fmt.Sprintf("%s in envelope %s: %s", describe(obj), name, reason))
			continue
		}
		if ok, err := r.placeInNamespace(s, where, obj); !ok || err != nil {
			return n, err
		}
		key := keyOf(obj)
		if origin, ok := sel.origin[key]; ok {
			also := "is also selected on the hub"
			if origin != "" {
				also = "is also in " + origin
			}
			s.block(ReasonDuplicate, fmt.Sprintf("%s: %s %s; deliver each object once", where, describe(obj), also))
			return n, nil
		}
		sel.origin[key] = where
		revision.Clean(obj)
		s.objects = append(s.objects, obj)
		n++
	}
	return n, nil
}

// placeInNamespace checks that an envelope object of a Propagation is
// namespaced and of the Propagation's namespace, and puts one without a
// namespace there; false blocks the selection. Anything goes in a
// ClusterPropagation's envelope.
//
// A Propagation is for those who may write in its namespace: were its
// envelopes to carry cluster-scoped objects or another namespace's, a
// namespace's users could write them on every cluster of the placement,
// beyond what the hub lets them write.
func (r *Reconciler) placeInNamespace(s *scope, where string, obj *unstructured.Unstructured) (bool, error) {
	if s.namespace == "" {
		return true, nil
	}
	gvk := obj.GroupVersionKind()
	m, err := r.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		s.block(v1alpha1.ReasonUnknownKind, fmt.Sprintf("%s: the hub serves no %s, so cannot tell it is namespaced; a Propagation's envelope carries objects of its namespace only", where, describeGVK(gvk)))
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("%s: resolving %s: %w", where, describeGVK(gvk), err)
	}
	switch {
	case m.Scope.Name() != meta.RESTScopeNameNamespace:
		s.block(ReasonWrongScope, fmt.Sprintf("%s: %s is cluster-scoped; a Propagation's envelope carries objects of its namespace only (use a ClusterPropagation)", where, describe(obj)))
		return false, nil
	case obj.GetNamespace() == "":
		obj.SetNamespace(s.namespace)
	case obj.GetNamespace() != s.namespace:
		s.block(ReasonWrongScope, fmt.Sprintf("%s: %s is of another namespace; a Propagation's envelope carries objects of its namespace (%s) only", where, describe(obj), s.namespace))
		return false, nil
	}
	return true, nil
}
