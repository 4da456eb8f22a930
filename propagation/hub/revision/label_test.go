package revision

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

func TestLabelled(t *testing.T) {
	objs := []*unstructured.Unstructured{
		obj(t, nsShop),
		obj(t, `{apiVersion: v1, kind: ConfigMap, metadata: {name: web, namespace: shop, labels: {app: web, apps.corral.dev/revision: "9"}}}`),
	}
	before, err := Hash(objs)
	if err != nil {
		t.Fatal(err)
	}
	got := Labelled(objs, 3)
	want := []map[string]string{
		{v1alpha1.LabelRevision: "3"},
		{"app": "web", v1alpha1.LabelRevision: "3"},
	}
	for i, o := range got {
		if diff := cmp.Diff(want[i], o.GetLabels()); diff != "" {
			t.Errorf("%s labels (-want +got):\n%s", o.GetName(), diff)
		}
	}
	if objs[0].GetLabels() != nil || objs[1].GetLabels()[v1alpha1.LabelRevision] != "9" {
		t.Errorf("Labelled changed its input: %v, %v", objs[0].GetLabels(), objs[1].GetLabels())
	}
	if after, _ := Hash(objs); after != before {
		t.Errorf("the input's hash changed from %s to %s", before, after)
	}
}
