package propagation_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/testenv"
)

// A valid OverridePolicy and ClusterOverridePolicy, which each refusal
// case breaks in one place.
const (
	validOverridePolicy = `
apiVersion: apps.corral.dev/v1alpha1
kind: OverridePolicy
metadata: {name: web-eu}
spec:
  priority: 5
  resourceSelectors:
  - {group: apps, version: v1, kind: Deployment, name: web}
  rules:
  - name: eu-mirror
    clusterSelector:
      labelSelector: {matchLabels: {region: eu}}
    images:
    - {registry: mirror.eu.example}
    containers:
    - {container: web, args: ["--cluster=${CLUSTER_NAME}"]}
    setLabels: {region: "${CLUSTER_LABEL:region}"}
    removeAnnotations: [legacy]
    jsonPatch:
    - {op: add, path: /spec/template/spec/containers/0/env, value: [{name: TIER, value: gold}]}
    - {op: replace, path: /spec/replicas, value: 3}
    - {op: remove, path: /spec/paused}
`
	validClusterOverridePolicy = `
apiVersion: apps.corral.dev/v1alpha1
kind: ClusterOverridePolicy
metadata: {name: every-web}
spec:
  resourceSelectors:
  - {group: apps, version: v1, kind: Deployment, namespace: shop}
  rules:
  - setAnnotations: {owner: platform}
`
)

var _ = Describe("override policies' API", func() {
	It("takes an OverridePolicy with every kind of change, its patch values as written", func(ctx context.Context) {
		u := object(validOverridePolicy)
		u.SetNamespace(freshNamespace(ctx))
		Expect(c.Create(ctx, u)).To(Succeed())
		got := object(validOverridePolicy)
		Expect(c.Get(ctx, client.ObjectKeyFromObject(u), got)).To(Succeed())
		rules, _, _ := unstructured.NestedSlice(got.Object, "spec", "rules")
		patch := rules[0].(map[string]any)["jsonPatch"].([]any)
		Expect(patch[0].(map[string]any)["value"]).To(Equal([]any{map[string]any{"name": "TIER", "value": "gold"}}))
		Expect(patch[1].(map[string]any)["value"]).To(Equal(int64(3)))
	})

	It("takes a ClusterOverridePolicy selecting one namespace's objects", func(ctx context.Context) {
		u := object(validClusterOverridePolicy)
		u.SetName(testenv.UniqueName("cop"))
		Expect(c.Create(ctx, u)).To(Succeed())
	})

	// rule sets the first rule.
	rule := func(fields map[string]any) func(*unstructured.Unstructured) {
		return set([]any{fields}, "spec", "rules")
	}
	DescribeTable("an OverridePolicy the CRD refuses",
		func(ctx context.Context, edit func(*unstructured.Unstructured), says string) {
			u := object(validOverridePolicy)
			u.SetNamespace(freshNamespace(ctx))
			edit(u)
			err := c.Create(ctx, u)
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want Invalid, got %v", err)
			Expect(err).To(MatchError(ContainSubstring(says)))
		},
		Entry("no rules", set([]any{}, "spec", "rules"), "spec.rules: Invalid value"),
		Entry("rules missing", remove("spec", "rules"), "spec.rules: Required value"),
		Entry("no resourceSelectors", set([]any{}, "spec", "resourceSelectors"), "spec.resourceSelectors: Invalid value"),
		Entry("a selector with name and labelSelector", selector(map[string]any{
			"group": "apps", "version": "v1", "kind": "Deployment", "name": "web", "labelSelector": map[string]any{},
		}), "give name or labelSelector, not both"),
		Entry("a patch op the policy does not make", rule(map[string]any{"jsonPatch": []any{map[string]any{"op": "move", "path": "/a", "value": int64(1)}}}),
			`spec.rules[0].jsonPatch[0].op: Unsupported value: "move"`),
		Entry("a patch path that is not a pointer", rule(map[string]any{"jsonPatch": []any{map[string]any{"op": "replace", "path": "spec.replicas", "value": int64(1)}}}),
			"spec.rules[0].jsonPatch[0].path: Invalid value"),
		Entry("an image override changing nothing", rule(map[string]any{"images": []any{map[string]any{"container": "web"}}}),
			"give registry, repository or tag"),
		Entry("a container override changing nothing", rule(map[string]any{"containers": []any{map[string]any{"container": "web"}}}),
			"give command or args"),
		Entry("a container override without container", rule(map[string]any{"containers": []any{map[string]any{"args": []any{"-v"}}}}),
			"spec.rules[0].containers[0].container: Required value"),
	)
})
