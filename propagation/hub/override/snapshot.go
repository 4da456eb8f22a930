package override

import (
	"fmt"

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
	type entry struct {
		order *Policy
		snap  v1alpha1.OverrideSnapshot
	}
	var entries []entry
	add := func(clusterScoped bool, name string, o v1alpha1.Overrides, selects func(*unstructured.Unstructured) (bool, error)) error {
		p := &Policy{ClusterScoped: clusterScoped, Name: name, Priority: o.Priority}
		snap := v1alpha1.OverrideSnapshot{Policy: p.String(), ClusterScoped: clusterScoped, Priority: o.Priority, Rules: o.Rules}
		for i, obj := range objs {
			ok, err := selects(obj)
			if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			if ok {
				snap.Objects = append(snap.Objects, int32(i))
			}
		}
		if len(snap.Objects) > 0 {
			entries = append(entries, entry{order: p, snap: snap})
		}
		return nil
	}
	for i := range clusterPolicies {
		cp := &clusterPolicies[i]
		err := add(true, cp.Name, cp.Spec.Overrides, func(obj *unstructured.Unstructured) (bool, error) {
			for _, sel := range cp.Spec.ResourceSelectors {
				if sel.Namespace != "" && sel.Namespace != obj.GetNamespace() {
					continue
				}
				if ok, err := selects(sel.ResourceSelector, obj); ok || err != nil {
					return ok, err
				}
			}
			return false, nil
		})
		if err != nil {
			return nil, err
		}
	}
	for i := range policies {
		op := &policies[i]
		err := add(false, op.Namespace+"/"+op.Name, op.Spec.Overrides, func(obj *unstructured.Unstructured) (bool, error) {
			if obj.GetNamespace() != op.Namespace {
				return false, nil
			}
			for _, sel := range op.Spec.ResourceSelectors {
				if ok, err := selects(sel, obj); ok || err != nil {
					return ok, err
				}
			}
			return false, nil
		})
		if err != nil {
			return nil, err
		}
	}
	order := make([]*Policy, len(entries))
	byPolicy := map[*Policy]v1alpha1.OverrideSnapshot{}
	for i, e := range entries {
		order[i] = e.order
		byPolicy[e.order] = e.snap
	}
	Order(order)
	out := make([]v1alpha1.OverrideSnapshot, 0, len(order))
	for _, p := range order {
		out = append(out, byPolicy[p])
	}
	return out, nil
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
