package workagent_test

import (
	"context"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/corral-dev/corral/work/agent/manifestwork"
)

// crd is a namespaced CRD of kind Widget in group g.
func crd(g string) obj {
	return obj{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": obj{"name": "widgets." + g},
		"spec": obj{
			"group": g, "scope": "Namespaced",
			"names": obj{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{obj{"name": "v1", "served": true, "storage": true,
				"schema": obj{"openAPIV3Schema": obj{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}},
		},
	}
}

func widget(g, ns, name string) obj {
	return obj{"apiVersion": g + "/v1", "kind": "Widget", "metadata": obj{"namespace": ns, "name": name}, "spec": obj{"size": int64(3)}}
}

var _ = Describe("Ordering and bad input", func() {
	It("applies a custom resource once the CRD that comes after it in the work is established", func(ctx context.Context) {
		ns, w, g := createNamespace(ctx), name("work"), name("g")+".example.com"
		createWork(ctx, w, workv1.ManifestWorkSpec{}, widget(g, ns, "w1"), crd(g))
		expectWorkCondition(ctx, w, workv1.WorkApplied, metav1.ConditionTrue)
		expectWorkCondition(ctx, w, workv1.WorkAvailable, metav1.ConditionTrue)
		Expect(work(ctx, w).Status.ResourceStatus.Manifests[0].ResourceMeta.Resource).To(Equal("widgets"))
	})

	It("says a kind is not installed, applies the rest, and applies it once its CRD appears", func(ctx context.Context) {
		ns, w, g := createNamespace(ctx), name("work"), name("g")+".example.com"
		createWork(ctx, w, workv1.ManifestWorkSpec{}, widget(g, ns, "w1"), configMap(ns, "cm", nil))
		Eventually(func(g Gomega) {
			c := manifestCondition(ctx, w, 0, workv1.ManifestApplied)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(c.Message).To(ContainSubstring("is not installed on the managed cluster"))
			g.Expect(manifestCondition(ctx, w, 1, workv1.ManifestApplied)).To(HaveField("Status", metav1.ConditionTrue))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		_, err := getConfigMap(ctx, ns, "cm")
		Expect(err).NotTo(HaveOccurred())
		Expect(meta.FindStatusCondition(work(ctx, w).Status.Conditions, workv1.WorkProgressing)).To(HaveField("Reason", workv1.WorkProgressingReasonApplying))

		By("installing the CRD by hand on the managed cluster")
		crdObj := toUnstructured(crd(g))
		Expect(managed.Create(ctx, crdObj)).To(Succeed())
		expectWorkCondition(ctx, w, workv1.WorkApplied, metav1.ConditionTrue)
		Expect(manifestCondition(ctx, w, 0, workv1.ManifestAvailable)).To(HaveField("Status", metav1.ConditionTrue))
	})

	It("reports an invalid manifest and an over-size one, and applies the rest", func(ctx context.Context) {
		ns, w := createNamespace(ctx), name("work")
		big := strings.Repeat("x", manifestwork.MaxManifestSize)
		createWork(ctx, w, workv1.ManifestWorkSpec{},
			obj{"apiVersion": "v1", "kind": "ConfigMap", "metadata": obj{"namespace": ns}},
			configMap(ns, "big", map[string]any{"a": big}),
			configMap(ns, "good", nil))
		Eventually(func(g Gomega) {
			c := manifestCondition(ctx, w, 0, workv1.ManifestApplied)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(c.Message).To(ContainSubstring("has no metadata.name"))
			c = manifestCondition(ctx, w, 1, workv1.ManifestApplied)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(c.Message).To(ContainSubstring("-byte cap"))
			g.Expect(manifestCondition(ctx, w, 2, workv1.ManifestApplied)).To(HaveField("Status", metav1.ConditionTrue))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		expectWorkCondition(ctx, w, workv1.WorkApplied, metav1.ConditionFalse)
		Expect(meta.FindStatusCondition(work(ctx, w).Status.Conditions, workv1.WorkProgressing)).To(And(
			HaveField("Reason", workv1.WorkProgressingReasonFailed), HaveField("Message", "2 of 3 manifests failed to apply: see their Applied conditions")))
		_, err := getConfigMap(ctx, ns, "good")
		Expect(err).NotTo(HaveOccurred())
		_, err = getConfigMap(ctx, ns, "big")
		Expect(err).To(MatchError(ContainSubstring("not found")))
	})
})
