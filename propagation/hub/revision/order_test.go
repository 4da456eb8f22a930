package revision

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// ids names objs as group/Kind namespace/name@version, for comparing
// orders.
func ids(objs []*unstructured.Unstructured) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		gvk := o.GroupVersionKind()
		out[i] = gvk.Group + "/" + gvk.Kind + " " + o.GetNamespace() + "/" + o.GetName() + "@" + gvk.Version
	}
	return out
}

func TestSort(t *testing.T) {
	cases := map[string]struct {
		in   []*unstructured.Unstructured
		want []string
	}{
		"namespaces, then CRDs, then the rest": {
			in: []*unstructured.Unstructured{
				named("apps/v1", "Deployment", "shop", "web"),
				named("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "widgets.example.com"),
				named("example.com/v1", "Widget", "shop", "w"),
				named("v1", "Namespace", "", "shop"),
			},
			want: []string{
				"/Namespace /shop@v1",
				"apiextensions.k8s.io/CustomResourceDefinition /widgets.example.com@v1",
				"apps/Deployment shop/web@v1",
				"example.com/Widget shop/w@v1",
			},
		},
		"the fixed kind order: identity and config before the workloads that use them": {
			in: []*unstructured.Unstructured{
				named("apps/v1", "Deployment", "shop", "web"),
				named("v1", "Service", "shop", "web"),
				named("rbac.authorization.k8s.io/v1", "RoleBinding", "shop", "web"),
				named("v1", "ConfigMap", "shop", "web"),
				named("v1", "ServiceAccount", "shop", "web"),
				named("rbac.authorization.k8s.io/v1", "Role", "shop", "web"),
				named("v1", "Secret", "shop", "web"),
			},
			want: []string{
				"/ServiceAccount shop/web@v1",
				"/Secret shop/web@v1",
				"/ConfigMap shop/web@v1",
				"rbac.authorization.k8s.io/Role shop/web@v1",
				"rbac.authorization.k8s.io/RoleBinding shop/web@v1",
				"/Service shop/web@v1",
				"apps/Deployment shop/web@v1",
			},
		},
		"other kinds by group and kind, then webhooks last": {
			in: []*unstructured.Unstructured{
				named("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", "", "check"),
				named("zeta.example.com/v1", "Alpha", "shop", "a"),
				named("alpha.example.com/v1", "Zeta", "shop", "z"),
				named("alpha.example.com/v1", "Beta", "shop", "b"),
				named("apiregistration.k8s.io/v1", "APIService", "", "v1.metrics"),
				named("batch/v1", "CronJob", "shop", "nightly"),
			},
			want: []string{
				"batch/CronJob shop/nightly@v1",
				"alpha.example.com/Beta shop/b@v1",
				"alpha.example.com/Zeta shop/z@v1",
				"zeta.example.com/Alpha shop/a@v1",
				"apiregistration.k8s.io/APIService /v1.metrics@v1",
				"admissionregistration.k8s.io/ValidatingWebhookConfiguration /check@v1",
			},
		},
		"one kind by namespace, then name": {
			in: []*unstructured.Unstructured{
				named("v1", "ConfigMap", "b", "one"),
				named("v1", "ConfigMap", "a", "two"),
				named("v1", "ConfigMap", "a", "one"),
			},
			want: []string{"/ConfigMap a/one@v1", "/ConfigMap a/two@v1", "/ConfigMap b/one@v1"},
		},
		"a kind named Namespace of another group is not first": {
			in: []*unstructured.Unstructured{
				named("example.com/v1", "Namespace", "", "fake"),
				named("v1", "ConfigMap", "shop", "web"),
			},
			want: []string{"/ConfigMap shop/web@v1", "example.com/Namespace /fake@v1"},
		},
		"nothing": {},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			// Every rotation of the input sorts the same.
			for r := range max(len(tc.in), 1) {
				in := slices.Concat(tc.in[r:], tc.in[:r])
				Sort(in)
				if diff := cmp.Diff(tc.want, ids(in), cmpEmpty); diff != "" {
					t.Errorf("Sort of rotation %d (-want +got):\n%s", r, diff)
				}
			}
		})
	}
}

// cmpEmpty takes a nil and an empty list as equal.
var cmpEmpty = cmp.FilterValues(func(a, b []string) bool { return len(a) == 0 && len(b) == 0 }, cmp.Ignore())
