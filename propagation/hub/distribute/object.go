package distribute

import (
	"context"
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/revisionindex"
)

// propagation is what delivering needs of a Propagation or a
// ClusterPropagation, over the object itself: changes to policy and status
// are changes to it.
type propagation struct {
	obj    client.Object
	policy *v1alpha1.PropagationPolicy
	status *v1alpha1.PropagationStatus
	refs   []placementRef
}

// placementRef is a placement the propagation names, with its namespace
// (a Propagation's own), and its rollout strategy.
type placementRef struct {
	namespace, name string
	strategy        clusterv1alpha1.RolloutStrategy
}

func (r placementRef) String() string { return r.namespace + "/" + r.name }

// view is the propagation of obj, a *v1alpha1.Propagation or a
// *v1alpha1.ClusterPropagation.
func view(obj client.Object) propagation {
	switch p := obj.(type) {
	case *v1alpha1.Propagation:
		refs := make([]placementRef, 0, len(p.Spec.PlacementRefs))
		for _, ref := range p.Spec.PlacementRefs {
			refs = append(refs, placementRef{namespace: p.Namespace, name: ref.Name, strategy: ref.RolloutStrategy})
		}
		return propagation{obj: p, policy: &p.Spec.PropagationPolicy, status: &p.Status, refs: refs}
	case *v1alpha1.ClusterPropagation:
		refs := make([]placementRef, 0, len(p.Spec.PlacementRefs))
		for _, ref := range p.Spec.PlacementRefs {
			refs = append(refs, placementRef{namespace: ref.Namespace, name: ref.Name, strategy: ref.RolloutStrategy})
		}
		return propagation{obj: p, policy: &p.Spec.PropagationPolicy, status: &p.Status, refs: refs}
	}
	panic(fmt.Sprintf("distribute: %T is not a propagation", obj))
}

// namespaced says whether the propagation is a Propagation.
func (p propagation) namespaced() bool { return p.obj.GetNamespace() != "" }

// WorkName is the name of part (from 0) of a propagation's works in each
// cluster namespace: prop.<namespace>.<name>-<part> for a Propagation,
// cprop.<name>-<part> for a ClusterPropagation. The kinds' short names keep
// the two apart (a ClusterPropagation's name may have dots), a namespace
// has none, and the part follows the last dash: no two propagations share
// a name. With names of at most 63 characters it stays far within the 253
// a work's name may have.
func WorkName(namespace, name string, part int) string {
	if namespace == "" {
		return "cprop." + name + "-" + strconv.Itoa(part)
	}
	return "prop." + namespace + "." + name + "-" + strconv.Itoa(part)
}

// workName is WorkName for p.
func (p propagation) workName(part int) string {
	return WorkName(p.obj.GetNamespace(), p.obj.GetName(), part)
}

// ownLabels are the labels that make a work p's.
func (p propagation) ownLabels() map[string]string {
	l := map[string]string{v1alpha1.LabelPropagation: p.obj.GetName()}
	if p.namespaced() {
		l[v1alpha1.LabelPropagationNamespace] = p.obj.GetNamespace()
	}
	return l
}

// owns says whether w carries p's labels.
func (p propagation) owns(w *workv1.ManifestWork) bool {
	ns, labelled := w.Labels[v1alpha1.LabelPropagationNamespace]
	return w.Labels[v1alpha1.LabelPropagation] == p.obj.GetName() && ns == p.obj.GetNamespace() && labelled == p.namespaced()
}

// workSelector selects p's works in every cluster namespace; a
// ClusterPropagation's are those without a namespace label.
func (p propagation) workSelector() labels.Selector {
	sel := labels.SelectorFromSet(labels.Set{v1alpha1.LabelPropagation: p.obj.GetName()})
	if p.namespaced() {
		req, _ := labels.NewRequirement(v1alpha1.LabelPropagationNamespace, selection.Equals, []string{p.obj.GetNamespace()})
		return sel.Add(*req)
	}
	req, _ := labels.NewRequirement(v1alpha1.LabelPropagationNamespace, selection.DoesNotExist, nil)
	return sel.Add(*req)
}

// works lists p's works through reader by their labels: the API server
// (Live) has no index of them (the cache's is workindex).
func (p propagation) works(ctx context.Context, reader client.Reader) ([]workv1.ManifestWork, error) {
	list := &workv1.ManifestWorkList{}
	if err := reader.List(ctx, list, client.MatchingLabelsSelector{Selector: p.workSelector()}); err != nil {
		return nil, fmt.Errorf("listing the propagation's ManifestWorks: %w", err)
	}
	return list.Items, nil
}

// revision is one revision of a propagation.
type revision struct {
	number    int64
	objects   []workv1.Manifest
	overrides []v1alpha1.OverrideSnapshot
}

// revisions lists p's revisions through reader.
func (p propagation) revisions(ctx context.Context, reader client.Reader) ([]revision, error) {
	revs, err := revisionindex.List(ctx, reader, p.obj.GetNamespace(), p.obj.GetName())
	if err != nil {
		return nil, err
	}
	out := make([]revision, 0, len(revs))
	for _, rev := range revs {
		out = append(out, revision{number: rev.Spec.Revision, objects: rev.Spec.Objects, overrides: rev.Spec.Overrides})
	}
	return out, nil
}
