package override

import (
	"cmp"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// Snapshot is what a revision of objs holds of the policies
// (RevisionSpec.Overrides): each policy that selects any of objs, with
// the indexes of those it selects, in the order the policies apply
// (Order's). A policy whose label selector does not parse is an error
// naming it.
func Snapshot(objs []*unstructured.Unstructured, policies []v1alpha1.OverridePolicy, clusterPolicies []v1alpha1.ClusterOverridePolicy) ([]v1alpha1.OverrideSnapshot, error) {
	// An OverridePolicy selects in its own namespace: its selectors are a
	// ClusterOverridePolicy's with that namespace.
	type policy struct {
		clusterScoped bool
		name          string
		selectors     []v1alpha1.ClusterOverrideResourceSelector
		overrides     v1alpha1.Overrides
	}
	all := make([]policy, 0, len(clusterPolicies)+len(policies))
	for _, cp := range clusterPolicies {
		all = append(all, policy{true, cp.Name, cp.Spec.ResourceSelectors, cp.Spec.Overrides})
	}
	for _, op := range policies {
		sels := make([]v1alpha1.ClusterOverrideResourceSelector, len(op.Spec.ResourceSelectors))
		for i, sel := range op.Spec.ResourceSelectors {
			sels[i] = v1alpha1.ClusterOverrideResourceSelector{ResourceSelector: sel, Namespace: op.Namespace}
		}
		all = append(all, policy{false, op.Namespace + "/" + op.Name, sels, op.Spec.Overrides})
	}
	var out []v1alpha1.OverrideSnapshot
	for _, p := range all {
		snap := v1alpha1.OverrideSnapshot{Name: p.name, ClusterScoped: p.clusterScoped, Priority: p.overrides.Priority, Rules: p.overrides.Rules}
		for i, obj := range objs {
			ok, err := selectsAny(p.selectors, obj)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", policyName(p.clusterScoped, p.name), err)
			}
			if ok {
				snap.Objects = append(snap.Objects, int32(i))
			}
		}
		if len(snap.Objects) > 0 {
			out = append(out, snap)
		}
	}
	// The order they apply in: ClusterOverridePolicies first, then by
	// priority, lowest first, then by name.
	slices.SortStableFunc(out, func(a, b v1alpha1.OverrideSnapshot) int {
		return cmp.Or(-cmpBool(a.ClusterScoped, b.ClusterScoped), cmp.Compare(a.Priority, b.Priority), cmp.Compare(a.Name, b.Name))
	})
	return out, nil
}

// selectsAny says whether one of sels selects obj: in its namespace when
// it names one.
func selectsAny(sels []v1alpha1.ClusterOverrideResourceSelector, obj *unstructured.Unstructured) (bool, error) {
	for _, sel := range sels {
		if sel.Namespace != "" && sel.Namespace != obj.GetNamespace() {
			continue
		}
		if ok, err := selects(sel.ResourceSelector, obj); ok || err != nil {
			return ok, err
		}
	}
	return false, nil
}

// selects says whether sel selects obj: its group and kind (any
// version: the revision holds the propagation's), and its name or labels
// when sel names them.
func selects(sel v1alpha1.ResourceSelector, obj *unstructured.Unstructured) (bool, error) {
	gk := obj.GroupVersionKind().GroupKind()
	if gk.Group != sel.Group || gk.Kind != sel.Kind {
		return false, nil
	}
	if sel.Name != "" {
		return obj.GetName() == sel.Name, nil
	}
	if sel.LabelSelector != nil {
		ls, err := metav1.LabelSelectorAsSelector(sel.LabelSelector)
		if err != nil {
			return false, fmt.Errorf("resource selector %s: %w", sel.Kind, err)
		}
		return ls.Matches(labels.Set(obj.GetLabels())), nil
	}
	return true, nil
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}
