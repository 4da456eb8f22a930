package revision

import (
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// Labelled is a copy of objs, in their order, each labelled
// apps.corral.dev/revision n: the objects revision n holds, so that what
// runs on a cluster says which revision it is of. Hash is computed
// without the label (it names the selection, whatever its number); objs
// are not changed.
func Labelled(objs []*unstructured.Unstructured, n int64) []*unstructured.Unstructured {
	out := make([]*unstructured.Unstructured, 0, len(objs))
	for _, obj := range objs {
		obj = obj.DeepCopy()
		labels := obj.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels[v1alpha1.LabelRevision] = strconv.FormatInt(n, 10)
		obj.SetLabels(labels)
		out = append(out, obj)
	}
	return out
}
