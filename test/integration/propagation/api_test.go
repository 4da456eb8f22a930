package propagation_test

import (
	"context"
	"strings"

	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/corral-dev/corral/internal/testenv"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// The rollout strategy the CRD defaults an absent one to, as OCM's
// ManifestWorkReplicaSet does.
var defaultRollout = clusterv1alpha1.RolloutStrategy{
	Type: clusterv1alpha1.All,
	All: &clusterv1alpha1.RolloutAll{RolloutConfig: clusterv1alpha1.RolloutConfig{
		ProgressDeadline: "None",
		MaxFailures:      intstr.FromInt32(0),
	}},
}

// What a Go client gets: RolloutStrategy is not a pointer, so it sends
// `rolloutStrategy: {}`, and only the type is defaulted. The controllers
// must read a nil All as the defaults (internal/rollout does).
var goClientRollout = clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All}

// The policy the CRD defaults an empty one to.
var defaultPolicy = v1alpha1.PropagationPolicy{
	DeletionPolicy:       v1alpha1.DeletionPolicyDelete,
	RevisionHistoryLimit: ptr.To[int32](10),
	StatusAggregation:    v1alpha1.StatusAggregationEnabled,
}

var _ = Describe("defaults", func() {
	It("defaults a Propagation's policy and its placements' rollout", func(ctx context.Context) {
		ns := freshNamespace(ctx)
		p := &v1alpha1.Propagation{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
			Spec: v1alpha1.PropagationSpec{
				ResourceSelectors: []v1alpha1.ResourceSelector{{Group: "apps", Version: "v1", Kind: "Deployment", Name: "web"}},
				PlacementRefs:     []v1alpha1.LocalPlacementReference{{Name: "all"}},
			},
		}
		Expect(c.Create(ctx, p)).To(Succeed())
		want := v1alpha1.PropagationSpec{
			ResourceSelectors: p.Spec.ResourceSelectors,
			PlacementRefs:     []v1alpha1.LocalPlacementReference{{Name: "all", RolloutStrategy: goClientRollout}},
			PropagationPolicy: defaultPolicy,
		}
		got := &v1alpha1.Propagation{}
		Expect(c.Get(ctx, client.ObjectKeyFromObject(p), got)).To(Succeed())
		Expect(cmp.Diff(want, got.Spec)).To(BeEmpty())
	})

	It("defaults a ClusterPropagation's and keeps a pin and a limit of 0", func(ctx context.Context) {
		p := &v1alpha1.ClusterPropagation{
			ObjectMeta: metav1.ObjectMeta{Name: testenv.UniqueName("cprop")},
			Spec: v1alpha1.ClusterPropagationSpec{
				ResourceSelectors: []v1alpha1.ClusterResourceSelector{{
					ResourceSelector: v1alpha1.ResourceSelector{Version: "v1", Kind: "Namespace", Name: "shop"},
					SelectionScope:   v1alpha1.NamespaceOnly,
				}},
				PlacementRefs: []v1alpha1.PlacementReference{{Namespace: "ops", LocalPlacementReference: v1alpha1.LocalPlacementReference{Name: "all"}}},
				PropagationPolicy: v1alpha1.PropagationPolicy{
					DeletionPolicy: v1alpha1.DeletionPolicyOrphan, RevisionHistoryLimit: ptr.To[int32](0), Revision: ptr.To[int64](3),
				},
			},
		}
		Expect(c.Create(ctx, p)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(c.Delete(ctx, p)).To(Succeed()) })
		want := p.Spec.DeepCopy()
		want.PlacementRefs[0].RolloutStrategy = goClientRollout
		want.StatusAggregation = v1alpha1.StatusAggregationEnabled
		got := &v1alpha1.ClusterPropagation{}
		Expect(c.Get(ctx, client.ObjectKeyFromObject(p), got)).To(Succeed())
		Expect(cmp.Diff(*want, got.Spec)).To(BeEmpty())
	})
})

var _ = It("defaults an absent rolloutStrategy as the ManifestWorkReplicaSet does", func(ctx context.Context) {
	u := object(validPropagation)
	u.SetNamespace(freshNamespace(ctx))
	Expect(c.Create(ctx, u)).To(Succeed())
	got := &v1alpha1.Propagation{}
	Expect(c.Get(ctx, client.ObjectKeyFromObject(u), got)).To(Succeed())
	Expect(cmp.Diff(defaultRollout, got.Spec.PlacementRefs[0].RolloutStrategy)).To(BeEmpty())
	Expect(cmp.Diff(defaultPolicy, got.Spec.PropagationPolicy)).To(BeEmpty())
})

// A valid Propagation and ClusterPropagation, which each refusal case
// breaks in one place.
const (
	validPropagation = `
apiVersion: apps.corral.dev/v1alpha1
kind: Propagation
metadata: {name: web}
spec:
  resourceSelectors:
  - {group: apps, version: v1, kind: Deployment, name: web}
  placementRefs:
  - {name: all}
`
	validClusterPropagation = `
apiVersion: apps.corral.dev/v1alpha1
kind: ClusterPropagation
metadata: {name: shop}
spec:
  resourceSelectors:
  - {version: v1, kind: Namespace, name: shop}
  placementRefs:
  - {namespace: ops, name: all}
`
)

// object decodes a YAML object.
func object(y string) *unstructured.Unstructured {
	GinkgoHelper()
	u := &unstructured.Unstructured{}
	Expect(yaml.Unmarshal([]byte(y), &u.Object)).To(Succeed())
	return u
}

// set sets path of the object to value.
func set(value any, path ...string) func(*unstructured.Unstructured) {
	return func(u *unstructured.Unstructured) {
		GinkgoHelper()
		Expect(unstructured.SetNestedField(u.Object, value, path...)).To(Succeed())
	}
}

// remove removes path from the object.
func remove(path ...string) func(*unstructured.Unstructured) {
	return func(u *unstructured.Unstructured) { unstructured.RemoveNestedField(u.Object, path...) }
}

// selector sets the first resource selector.
func selector(fields map[string]any) func(*unstructured.Unstructured) {
	return set([]any{fields}, "spec", "resourceSelectors")
}

// placementRefs sets the placement refs.
func placementRefs(refs ...map[string]any) func(*unstructured.Unstructured) {
	items := make([]any, len(refs))
	for i, r := range refs {
		items[i] = r
	}
	return set(items, "spec", "placementRefs")
}

var _ = Describe("refusals", func() {
	DescribeTable("a Propagation the CRD refuses",
		func(ctx context.Context, edit func(*unstructured.Unstructured), says string) {
			u := object(validPropagation)
			u.SetNamespace(freshNamespace(ctx))
			edit(u)
			err := c.Create(ctx, u)
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want Invalid, got %v", err)
			Expect(err).To(MatchError(ContainSubstring(says)))
		},
		Entry("a name over 63 characters", set(strings.Repeat("n", 64), "metadata", "name"), "the name is at most 63 characters"),
		Entry("bad deletionPolicy", set("Cascade", "spec", "deletionPolicy"), `spec.deletionPolicy: Unsupported value: "Cascade"`),
		Entry("bad statusAggregation", set("Off", "spec", "statusAggregation"), `spec.statusAggregation: Unsupported value: "Off"`),
		Entry("revisionHistoryLimit < 0", set(int64(-1), "spec", "revisionHistoryLimit"), "spec.revisionHistoryLimit: Invalid value: -1"),
		Entry("revisionHistoryLimit > 1000", set(int64(1001), "spec", "revisionHistoryLimit"), "spec.revisionHistoryLimit: Invalid value: 1001"),
		Entry("a revision pin of 0", set(int64(0), "spec", "revision"), "spec.revision: Invalid value: 0"),
		Entry("no resourceSelectors", set([]any{}, "spec", "resourceSelectors"), "spec.resourceSelectors: Invalid value"),
		Entry("resourceSelectors missing", remove("spec", "resourceSelectors"), "spec.resourceSelectors: Required value"),
		Entry("a selector without kind", selector(map[string]any{"group": "apps", "version": "v1", "name": "web"}), "spec.resourceSelectors[0].kind: Required value"),
		Entry("a selector with an empty kind", selector(map[string]any{"version": "v1", "kind": ""}), "spec.resourceSelectors[0].kind: Invalid value"),
		Entry("a selector without version", selector(map[string]any{"group": "apps", "kind": "Deployment"}), "spec.resourceSelectors[0].version: Required value"),
		Entry("a selector with name and labelSelector", selector(map[string]any{
			"group": "apps", "version": "v1", "kind": "Deployment", "name": "web",
			"labelSelector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
		}), "give name or labelSelector, not both"),
		Entry("no placementRefs", set([]any{}, "spec", "placementRefs"), "spec.placementRefs: Invalid value"),
		Entry("a placementRef without name", placementRefs(map[string]any{"rolloutStrategy": map[string]any{"type": "All"}}), "spec.placementRefs[0].name: Required value"),
		Entry("a placementRef twice", placementRefs(map[string]any{"name": "all"}, map[string]any{"name": "all"}), "spec.placementRefs[1]: Duplicate value"),
		Entry("a bad rollout type", placementRefs(map[string]any{"name": "all", "rolloutStrategy": map[string]any{"type": "Canary"}}), `spec.placementRefs[0].rolloutStrategy.type: Unsupported value: "Canary"`),
		Entry("a bad progressDeadline", placementRefs(map[string]any{"name": "all", "rolloutStrategy": map[string]any{
			"type": "Progressive", "progressive": map[string]any{"progressDeadline": "soon"},
		}}), "spec.placementRefs[0].rolloutStrategy.progressive.progressDeadline: Invalid value"),
	)

	DescribeTable("a ClusterPropagation the CRD refuses",
		func(ctx context.Context, edit func(*unstructured.Unstructured), says string) {
			u := object(validClusterPropagation)
			u.SetName(testenv.UniqueName("cprop"))
			edit(u)
			err := c.Create(ctx, u)
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want Invalid, got %v", err)
			Expect(err).To(MatchError(ContainSubstring(says)))
		},
		Entry("a name over 63 characters", set(strings.Repeat("n", 64), "metadata", "name"), "the name is at most 63 characters"),
		Entry("bad deletionPolicy", set("Keep", "spec", "deletionPolicy"), `spec.deletionPolicy: Unsupported value: "Keep"`),
		Entry("revisionHistoryLimit < 0", set(int64(-5), "spec", "revisionHistoryLimit"), "spec.revisionHistoryLimit: Invalid value: -5"),
		Entry("a selector without kind", selector(map[string]any{"version": "v1", "name": "shop"}), "spec.resourceSelectors[0].kind: Required value"),
		Entry("a selector with name and labelSelector", selector(map[string]any{
			"version": "v1", "kind": "Namespace", "name": "shop", "labelSelector": map[string]any{},
		}), "give name or labelSelector, not both"),
		Entry("selectionScope on a kind other than Namespace", selector(map[string]any{
			"group": "rbac.authorization.k8s.io", "version": "v1", "kind": "ClusterRole", "selectionScope": "NamespaceOnly",
		}), "selectionScope is for selectors of kind Namespace in the core group"),
		Entry("selectionScope on a Namespace kind of another group", selector(map[string]any{
			"group": "example.com", "version": "v1", "kind": "Namespace", "selectionScope": "NamespaceOnly",
		}), "selectionScope is for selectors of kind Namespace in the core group"),
		Entry("a bad selectionScope", selector(map[string]any{
			"version": "v1", "kind": "Namespace", "selectionScope": "Everything",
		}), `spec.resourceSelectors[0].selectionScope: Unsupported value: "Everything"`),
		Entry("a placementRef without namespace", placementRefs(map[string]any{"name": "all"}), "spec.placementRefs[0].namespace: Required value"),
		Entry("a placementRef twice", placementRefs(map[string]any{"namespace": "ops", "name": "all"}, map[string]any{"namespace": "ops", "name": "all"}), "spec.placementRefs[1]: Duplicate value"),
	)

	It("drops a selectionScope from a Propagation's selector, not refusing it", func(ctx context.Context) {
		u := object(validPropagation)
		u.SetNamespace(freshNamespace(ctx))
		selector(map[string]any{"version": "v1", "kind": "ConfigMap", "selectionScope": "NamespaceOnly"})(u)
		Expect(c.Create(ctx, u)).To(Succeed())
		got := object(validPropagation)
		Expect(c.Get(ctx, client.ObjectKeyFromObject(u), got)).To(Succeed())
		sel, _, _ := unstructured.NestedSlice(got.Object, "spec", "resourceSelectors")
		Expect(sel).To(Equal([]any{map[string]any{"version": "v1", "kind": "ConfigMap"}}))
	})

	It("takes the same placement name in two namespaces", func(ctx context.Context) {
		u := object(validClusterPropagation)
		u.SetName(testenv.UniqueName("cprop"))
		placementRefs(map[string]any{"namespace": "ops", "name": "all"}, map[string]any{"namespace": "dev", "name": "all"})(u)
		Expect(c.Create(ctx, u)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(c.Delete(ctx, u)).To(Succeed()) })
	})
})
