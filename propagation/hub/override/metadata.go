package override

import "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

func (r *Rule) labels(obj map[string]any, vars variables) error {
	return setAndRemove(obj, "labels", r.Spec.SetLabels, r.Spec.RemoveLabels, vars)
}

func (r *Rule) annotations(obj map[string]any, vars variables) error {
	return setAndRemove(obj, "annotations", r.Spec.SetAnnotations, r.Spec.RemoveAnnotations, vars)
}

// setAndRemove sets and removes keys of the metadata map field
// (labels or annotations); an emptied map is dropped.
func setAndRemove(obj map[string]any, field string, set map[string]string, remove []string, vars variables) error {
	if len(set) == 0 && len(remove) == 0 {
		return nil
	}
	m, _, err := unstructured.NestedStringMap(obj, "metadata", field)
	if err != nil {
		return err
	}
	if m == nil {
		m = map[string]string{}
	}
	for k, v := range set {
		if m[k], err = vars.expand(v); err != nil {
			return err
		}
	}
	for _, k := range remove {
		delete(m, k)
	}
	if len(m) == 0 {
		unstructured.RemoveNestedField(obj, "metadata", field)
		return nil
	}
	return unstructured.SetNestedStringMap(obj, m, "metadata", field)
}
