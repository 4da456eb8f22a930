package override

import (
	"errors"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

func TestValidate(t *testing.T) {
	raw := func(s string) *apiextensionsv1.JSON { return &apiextensionsv1.JSON{Raw: []byte(s)} }
	cases := map[string]struct {
		selectors []v1alpha1.ResourceSelector
		rules     []v1alpha1.OverrideRule
		want      string // "" admits
	}{
		"every change, with every variable": {rules: []v1alpha1.OverrideRule{{
			Name:            "all",
			ClusterSelector: &clusterv1beta1.ClusterSelector{CelSelector: clusterv1beta1.ClusterCelSelector{CelExpressions: []string{`managedCluster.metadata.name == "a"`}}},
			JSONPatch: []v1alpha1.JSONPatchOperation{{Op: v1alpha1.JSONPatchAdd, Path: "/a", Value: raw(`{"x":["${CLUSTER_NAME}"]}`)},
				{Op: v1alpha1.JSONPatchRemove, Path: "/b"}},
			Images:         []v1alpha1.ImageOverride{{Registry: "${CLUSTER_LABEL:registry}", Tag: "v1"}},
			Containers:     []v1alpha1.ContainerOverride{{Container: "web", Args: []string{"--id=${CLUSTER_CLAIM:id.k8s.io}"}}},
			SetLabels:      map[string]string{"example.com/region": "${CLUSTER_LABEL:region}", "tier": "gold"},
			RemoveLabels:   []string{"old"},
			SetAnnotations: map[string]string{"note": "any text: ${HOME} stays"},
		}}},
		"a label selector that does not parse": {
			selectors: []v1alpha1.ResourceSelector{{Kind: "ConfigMap", LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Near"}}}}},
			rules:     []v1alpha1.OverrideRule{{SetLabels: map[string]string{"a": "b"}}},
			want:      `rule -: resourceSelectors[0].labelSelector: "Near" is not a valid label selector operator`,
		},
		"CEL that does not compile": {
			rules: []v1alpha1.OverrideRule{{ClusterSelector: &clusterv1beta1.ClusterSelector{CelSelector: clusterv1beta1.ClusterCelSelector{CelExpressions: []string{"managedCluster.metadata.name =="}}}}},
			want:  "rule rule-0: spec.rules[0].clusterSelector.celSelector",
		},
		"add without a value": {
			rules: []v1alpha1.OverrideRule{{Name: "p", JSONPatch: []v1alpha1.JSONPatchOperation{{Op: v1alpha1.JSONPatchAdd, Path: "/a"}}}},
			want:  "rule p: jsonPatch[0] (add /a): add and replace take a value, remove none",
		},
		"remove with a value": {
			rules: []v1alpha1.OverrideRule{{JSONPatch: []v1alpha1.JSONPatchOperation{{Op: v1alpha1.JSONPatchRemove, Path: "/a", Value: raw(`1`)}}}},
			want:  "jsonPatch[0] (remove /a): add and replace take a value, remove none",
		},
		"an unknown variable in a patch value": {
			rules: []v1alpha1.OverrideRule{{JSONPatch: []v1alpha1.JSONPatchOperation{{Op: v1alpha1.JSONPatchAdd, Path: "/a", Value: raw(`["${CLUSTER_ZONE}"]`)}}}},
			want:  "jsonPatch[0]: unknown variable ${CLUSTER_ZONE}: use ${CLUSTER_NAME}, ${CLUSTER_LABEL:key} or ${CLUSTER_CLAIM:name}",
		},
		"a label without a key": {
			rules: []v1alpha1.OverrideRule{{Containers: []v1alpha1.ContainerOverride{{Container: "web", Command: []string{"${CLUSTER_LABEL:}"}}}}},
			want:  "containers[0]: unknown variable ${CLUSTER_LABEL:}",
		},
		"an unknown variable in an image": {
			rules: []v1alpha1.OverrideRule{{Images: []v1alpha1.ImageOverride{{Tag: "${CLUSTER_VERSION}"}}}},
			want:  "images[0]: unknown variable ${CLUSTER_VERSION}",
		},
		"a label key that is not one": {
			rules: []v1alpha1.OverrideRule{{SetLabels: map[string]string{"a b": "c"}}},
			want:  `setLabels: key "a b"`,
		},
		"a label value that is not one": {
			rules: []v1alpha1.OverrideRule{{SetLabels: map[string]string{"a": "not a value"}}},
			want:  `setLabels[a]: value "not a value"`,
		},
		"an annotation key to remove that is not one": {
			rules: []v1alpha1.OverrideRule{{RemoveAnnotations: []string{"/x"}}},
			want:  `removeAnnotations: key "/x"`,
		},
		"two rules of one name": {
			rules: []v1alpha1.OverrideRule{{Name: "a", SetLabels: map[string]string{"a": "b"}}, {Name: "a", SetLabels: map[string]string{"c": "d"}}},
			want:  "rule a: two rules are named a",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := Validate(false, "shop/p", tc.selectors, v1alpha1.Overrides{Rules: tc.rules})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var oe *Error
			if !errors.As(err, &oe) || !strings.HasPrefix(err.Error(), "OverridePolicy shop/p, ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want an *Error naming the policy and saying %q", err, tc.want)
			}
		})
	}
}
