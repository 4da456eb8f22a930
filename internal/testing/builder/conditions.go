package builder

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// setCondition puts c in conds in place of the condition of its type, or
// after the others. Unlike meta.SetStatusCondition it keeps c as given,
// LastTransitionTime included.
func setCondition(conds *[]metav1.Condition, c metav1.Condition) {
	for i := range *conds {
		if (*conds)[i].Type == c.Type {
			(*conds)[i] = c
			return
		}
	}
	*conds = append(*conds, c)
}

// setKey sets m[k] = v, making m first if it is nil.
func setKey(m *map[string]string, k, v string) {
	if *m == nil {
		*m = map[string]string{}
	}
	(*m)[k] = v
}
