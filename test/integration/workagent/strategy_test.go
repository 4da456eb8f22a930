package workagent_test

import (
	"context"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ssa is a ServerSideApply config for one ConfigMap.
func ssa(ns, name string, cfg workv1.ServerSideApplyConfig) workv1.ManifestConfigOption {
	return workv1.ManifestConfigOption{
		ResourceIdentifier: workv1.ResourceIdentifier{Resource: "configmaps", Name: name, Namespace: ns},
		UpdateStrategy:     &workv1.UpdateStrategy{Type: workv1.UpdateStrategyTypeServerSideApply, ServerSideApply: &cfg},
	}
}

// applyByHand server-side applies a ConfigMap's data as another field manager.
func applyByHand(ctx context.Context, ns, name string, data map[string]string) {
	GinkgoHelper()
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data}
	//nolint:staticcheck // client.Apply is the plain way to apply a typed object here.
	Expect(managed.Patch(ctx, cm, client.Apply, client.FieldOwner("someone-else"), client.ForceOwnership)).To(Succeed())
}

var _ = Describe("ServerSideApply", func() {
	It("reports a conflict with another field manager, does not overwrite it, and applies once the field is let go", func(ctx context.Context) {
		ns, w := createNamespace(ctx), name("work")
		applyByHand(ctx, ns, "cm", map[string]string{"a": "theirs"})
		createWork(ctx, w, workv1.ManifestWorkSpec{ManifestConfigs: []workv1.ManifestConfigOption{ssa(ns, "cm", workv1.ServerSideApplyConfig{})}},
			configMap(ns, "cm", map[string]any{"a": "ours"}))
		Eventually(func(g Gomega) {
			c := manifestCondition(ctx, w, 0, workv1.ManifestApplied)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			// The api's docs name the reason; it has no constant for it.
			g.Expect(c.Reason).To(Equal("ApplyConflict"))
			g.Expect(c.Message).To(ContainSubstring("conflicts with another field manager"))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		expectWorkCondition(ctx, w, workv1.WorkApplied, metav1.ConditionFalse)
		cm, err := getConfigMap(ctx, ns, "cm")
		Expect(err).NotTo(HaveOccurred())
		Expect(cm.Data).To(HaveKeyWithValue("a", "theirs"))

		By("the other field manager letting go of the field: the work is applied, unchanged")
		applyByHand(ctx, ns, "cm", map[string]string{"b": "theirs"})
		expectWorkCondition(ctx, w, workv1.WorkApplied, metav1.ConditionTrue)
		cm, err = getConfigMap(ctx, ns, "cm")
		Expect(err).NotTo(HaveOccurred())
		Expect(cm.Data).To(Equal(map[string]string{"a": "ours", "b": "theirs"}))
	})

	It("reports ignoreFields it cannot process with the api's reason", func(ctx context.Context) {
		ns, w := createNamespace(ctx), name("work")
		// ignoreFields are processed against the object on the managed cluster.
		applyByHand(ctx, ns, "cm", map[string]string{"other": "theirs"})
		createWork(ctx, w, workv1.ManifestWorkSpec{ManifestConfigs: []workv1.ManifestConfigOption{ssa(ns, "cm", workv1.ServerSideApplyConfig{
			IgnoreFields: []workv1.IgnoreField{{Condition: workv1.IgnoreFieldsConditionOnSpokePresent, JQPathExpressions: []string{".data.ignored"}}},
		})}}, configMap(ns, "cm", map[string]any{"ignored": "hub"}))
		Eventually(func(g Gomega) {
			c := manifestCondition(ctx, w, 0, workv1.ManifestApplied)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(c.Reason).To(Equal(workv1.AppliedManifestSSAIgnoreFieldError))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	})

	It("takes the fields over with force, and puts them back when changed", func(ctx context.Context) {
		ns, w := createNamespace(ctx), name("work")
		applyByHand(ctx, ns, "cm", map[string]string{"a": "theirs"})
		createWork(ctx, w, workv1.ManifestWorkSpec{ManifestConfigs: []workv1.ManifestConfigOption{ssa(ns, "cm", workv1.ServerSideApplyConfig{Force: true})}},
			configMap(ns, "cm", map[string]any{"a": "ours"}))
		expectWorkCondition(ctx, w, workv1.WorkApplied, metav1.ConditionTrue)
		cm, err := getConfigMap(ctx, ns, "cm")
		Expect(err).NotTo(HaveOccurred())
		Expect(cm.Data).To(HaveKeyWithValue("a", "ours"))
		managers := []string{}
		for _, f := range cm.ManagedFields {
			if strings.Contains(string(f.FieldsV1.Raw), `"f:a"`) {
				managers = append(managers, f.Manager)
			}
		}
		Expect(managers).To(ConsistOf(workv1.DefaultFieldManager))

		applyByHand(ctx, ns, "cm", map[string]string{"a": "theirs-again"})
		Eventually(func(g Gomega) {
			cm, err := getConfigMap(ctx, ns, "cm")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(cm.Data).To(HaveKeyWithValue("a", "ours"))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	})

	It("leaves ignored fields as they are on the managed cluster (ignoreFields OnSpokePresent)", func(ctx context.Context) {
		ns, w := createNamespace(ctx), name("work")
		createWork(ctx, w, workv1.ManifestWorkSpec{ManifestConfigs: []workv1.ManifestConfigOption{ssa(ns, "cm", workv1.ServerSideApplyConfig{
			Force:        true,
			IgnoreFields: []workv1.IgnoreField{{Condition: workv1.IgnoreFieldsConditionOnSpokePresent, JSONPaths: []string{".data.ignored"}}},
		})}}, configMap(ns, "cm", map[string]any{"ignored": "hub", "kept": "hub"}))
		expectWorkCondition(ctx, w, workv1.WorkApplied, metav1.ConditionTrue)

		cm, err := getConfigMap(ctx, ns, "cm")
		Expect(err).NotTo(HaveOccurred())
		cm.Data = map[string]string{"ignored": "spoke", "kept": "spoke"}
		Expect(managed.Update(ctx, cm)).To(Succeed())
		Eventually(func(g Gomega) {
			cm, err := getConfigMap(ctx, ns, "cm")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(cm.Data).To(HaveKeyWithValue("kept", "hub"))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		cm, err = getConfigMap(ctx, ns, "cm")
		Expect(err).NotTo(HaveOccurred())
		Expect(cm.Data).To(HaveKeyWithValue("ignored", "spoke"))
	})

	It("leaves a field changed on the managed cluster while the manifest stays, also to a work that did not apply it, and takes the hub's once it changes (ignoreFields OnSpokeChange)", func(ctx context.Context) {
		ns, w1, w2 := createNamespace(ctx), name("work"), name("work")
		spec := workv1.ManifestWorkSpec{
			DeleteOption: &workv1.DeleteOption{PropagationPolicy: workv1.DeletePropagationPolicyTypeOrphan},
			ManifestConfigs: []workv1.ManifestConfigOption{ssa(ns, "cm", workv1.ServerSideApplyConfig{
				Force:        true,
				IgnoreFields: []workv1.IgnoreField{{Condition: workv1.IgnoreFieldsConditionOnSpokeChange, JSONPaths: []string{".data.ignored"}}},
			})},
		}
		createWork(ctx, w1, spec, configMap(ns, "cm", map[string]any{"ignored": "hub", "kept": "hub"}))
		expectWorkCondition(ctx, w1, workv1.WorkApplied, metav1.ConditionTrue)
		data := func(g Gomega) map[string]string {
			cm, err := getConfigMap(ctx, ns, "cm")
			g.Expect(err).NotTo(HaveOccurred())
			return cm.Data
		}
		Expect(data(Default)).To(HaveKeyWithValue("ignored", "hub"))

		By("changing the field on the managed cluster: it stays")
		cm, err := getConfigMap(ctx, ns, "cm")
		Expect(err).NotTo(HaveOccurred())
		cm.Data["ignored"] = "spoke"
		Expect(managed.Update(ctx, cm)).To(Succeed())
		Consistently(data).WithContext(ctx).WithTimeout(3 * time.Second).Should(HaveKeyWithValue("ignored", "spoke"))

		By("another work applying the same manifest: the field still stays")
		deleteWork(ctx, w1) // orphaning the object
		createWork(ctx, w2, spec, configMap(ns, "cm", map[string]any{"ignored": "hub", "kept": "hub"}))
		expectWorkCondition(ctx, w2, workv1.WorkApplied, metav1.ConditionTrue)
		Consistently(data).WithContext(ctx).WithTimeout(3 * time.Second).Should(HaveKeyWithValue("ignored", "spoke"))

		By("the manifest changing on the hub: the hub's value is applied")
		setManifests(ctx, w2, configMap(ns, "cm", map[string]any{"ignored": "hub2", "kept": "hub"}))
		Eventually(data).WithContext(ctx).WithTimeout(timeout).Should(HaveKeyWithValue("ignored", "hub2"))
	})
})
