package workindex

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

func TestKeyOfTellsPropagationsApart(t *testing.T) {
	work := func(labels map[string]string) *workv1.ManifestWork {
		return &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: "cluster1", Name: "w", Labels: labels}}
	}
	cases := map[string]struct {
		work *workv1.ManifestWork
		want []string
	}{
		"a Propagation's":        {work: work(map[string]string{v1alpha1.LabelPropagation: "web", v1alpha1.LabelPropagationNamespace: "shop"}), want: []string{"shop/web"}},
		"a ClusterPropagation's": {work: work(map[string]string{v1alpha1.LabelPropagation: "web"}), want: []string{"/web"}},
		"no propagation's":       {work: work(map[string]string{"app": "web"})},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, KeyOf(tc.work)); diff != "" {
				t.Errorf("KeyOf (-want +got):\n%s", diff)
			}
		})
	}
	if Key("shop", "web") == Key("", "web") {
		t.Error("a Propagation's key equals a ClusterPropagation's of the same name")
	}
}
