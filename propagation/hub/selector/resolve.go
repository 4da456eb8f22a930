package selector

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// ReasonWrongScope: a Propagation selects a cluster-scoped kind, or a
// ClusterPropagation a namespaced one.
const ReasonWrongScope = "WrongScope"

// resolve maps each selector's kind through the hub's RESTMapper. A kind
// the hub does not serve, or of the wrong scope, blocks the selection;
// the former is looked at again after UnknownKindRetry.
func (r *Reconciler) resolve(ctx context.Context, s *scope) (steps.Result, error) {
	s.mappings = make([]*meta.RESTMapping, 0, len(s.selectors))
	for i, sel := range s.selectors {
		gvk := schema.GroupVersionKind{Group: sel.Group, Version: sel.Version, Kind: sel.Kind}
		m, err := r.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if meta.IsNoMatchError(err) {
			s.block(v1alpha1.ReasonUnknownKind, fmt.Sprintf("selector %d: the hub serves no %s", i+1, describeGVK(gvk)))
			return steps.Result{Stop: true, RequeueAfter: UnknownKindRetry}, r.writeStatus(ctx, s)
		}
		if err != nil {
			return steps.StopList, fmt.Errorf("resolving %s: %w", describeGVK(gvk), err)
		}
		namespaced := m.Scope.Name() == meta.RESTScopeNameNamespace
		switch {
		case s.namespace != "" && !namespaced:
			s.block(ReasonWrongScope, fmt.Sprintf("selector %d: %s is cluster-scoped; a Propagation selects objects of its namespace", i+1, sel.Kind))
		case s.namespace == "" && namespaced:
			s.block(ReasonWrongScope, fmt.Sprintf("selector %d: %s is namespaced; a ClusterPropagation selects cluster-scoped objects, and namespaces with their contents", i+1, sel.Kind))
		}
		if s.blocked() {
			return steps.StopList, r.writeStatus(ctx, s)
		}
		s.mappings = append(s.mappings, m)
	}
	return steps.Continue, nil
}

// describeGVK names a kind in messages: Kind.version.group, or Kind.version
// for the core group.
func describeGVK(gvk schema.GroupVersionKind) string {
	if gvk.Group == "" {
		return gvk.Kind + "." + gvk.Version
	}
	return gvk.Kind + "." + gvk.Version + "." + gvk.Group
}
