package workagent_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/corral-dev/corral/work/agent/manifestwork"
)

var _ = Describe("Condition rules", func() {
	It("sets a manifest's condition from CEL, and the work's Complete once the object is complete", func(ctx context.Context) {
		ns, w := createNamespace(ctx), name("work")
		createWork(ctx, w, workv1.ManifestWorkSpec{ManifestConfigs: []workv1.ManifestConfigOption{{
			ResourceIdentifier: workv1.ResourceIdentifier{Resource: "configmaps", Namespace: ns, Name: "job"},
			UpdateStrategy:     &workv1.UpdateStrategy{Type: workv1.UpdateStrategyTypeCreateOnly},
			ConditionRules: []workv1.ConditionRule{{
				Condition: workv1.ManifestComplete, Type: workv1.CelConditionExpressionsType,
				CelExpressions:    []string{`has(object.data) && object.data.phase == "done"`},
				MessageExpression: `result ? "finished" : "still running"`,
			}},
		}}}, configMap(ns, "job", map[string]any{"phase": "running"}))
		Eventually(func(g Gomega) {
			c := manifestCondition(ctx, w, 0, workv1.ManifestComplete)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(c.Message).To(Equal("still running"))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		expectWorkCondition(ctx, w, workv1.WorkComplete, metav1.ConditionFalse)

		By("the object finishing on the managed cluster")
		cm, err := getConfigMap(ctx, ns, "job")
		Expect(err).NotTo(HaveOccurred())
		cm.Data["phase"] = "done"
		Expect(managed.Update(ctx, cm)).To(Succeed())
		expectWorkCondition(ctx, w, workv1.WorkComplete, metav1.ConditionTrue)
		Expect(manifestCondition(ctx, w, 0, workv1.ManifestComplete)).To(HaveField("Message", "finished"))
	})

	It("no longer updates a manifest once it is Complete, nor any other once the work is, and keeps it Complete when the object changes", func(ctx context.Context) {
		ns, w := createNamespace(ctx), name("work")
		createWork(ctx, w, workv1.ManifestWorkSpec{ManifestConfigs: []workv1.ManifestConfigOption{{
			ResourceIdentifier: workv1.ResourceIdentifier{Resource: "configmaps", Namespace: ns, Name: "job"},
			ConditionRules: []workv1.ConditionRule{{
				Condition: workv1.ManifestComplete, Type: workv1.CelConditionExpressionsType,
				CelExpressions: []string{`object.data.phase == "done"`},
			}},
		}}}, configMap(ns, "job", map[string]any{"phase": "done", "v": "1"}), configMap(ns, "other", map[string]any{"v": "1"}))
		expectWorkCondition(ctx, w, workv1.WorkComplete, metav1.ConditionTrue)

		By("the job's object changing on the managed cluster: the manifest stays Complete")
		cm, err := getConfigMap(ctx, ns, "job")
		Expect(err).NotTo(HaveOccurred())
		cm.Data["phase"] = "running"
		Expect(managed.Update(ctx, cm)).To(Succeed())

		By("the hub changing both manifests: neither is applied")
		mw := setManifests(ctx, w, configMap(ns, "job", map[string]any{"phase": "done", "v": "2"}), configMap(ns, "other", map[string]any{"v": "2"}))
		Eventually(func(g Gomega) {
			for i := range 2 {
				c := manifestCondition(ctx, w, i, workv1.ManifestApplied)
				g.Expect(c).NotTo(BeNil())
				g.Expect(c.ObservedGeneration).To(Equal(mw.Generation)) // the update of the work is seen
			}
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		for _, name := range []string{"job", "other"} {
			obj, err := getConfigMap(ctx, ns, name)
			Expect(err).NotTo(HaveOccurred())
			Expect(obj.Data).To(HaveKeyWithValue("v", "1"), name)
		}
		Expect(manifestCondition(ctx, w, 0, workv1.ManifestComplete)).To(HaveField("Status", metav1.ConditionTrue))
		expectWorkCondition(ctx, w, workv1.WorkComplete, metav1.ConditionTrue)
	})

	It("sets the work's Degraded from a manifest's Degraded condition rule", func(ctx context.Context) {
		ns, w := createNamespace(ctx), name("work")
		createWork(ctx, w, workv1.ManifestWorkSpec{ManifestConfigs: []workv1.ManifestConfigOption{{
			ResourceIdentifier: workv1.ResourceIdentifier{Resource: "configmaps", Namespace: ns, Name: "app"},
			UpdateStrategy:     &workv1.UpdateStrategy{Type: workv1.UpdateStrategyTypeCreateOnly},
			ConditionRules: []workv1.ConditionRule{{
				Condition: workv1.ManifestDegraded, Type: workv1.CelConditionExpressionsType,
				CelExpressions:    []string{`object.data.errors != "0"`},
				MessageExpression: `result ? "errors: " + object.data.errors : "no errors"`,
			}},
		}}}, configMap(ns, "app", map[string]any{"errors": "3"}), configMap(ns, "other", nil))
		expectWorkCondition(ctx, w, workv1.WorkDegraded, metav1.ConditionTrue)
		c := meta.FindStatusCondition(work(ctx, w).Status.Conditions, workv1.WorkDegraded)
		Expect(c.Reason).To(Equal(manifestwork.ReasonWorkDegraded))
		Expect(c.Message).To(Equal("1 of 2 manifests degraded"))
		Expect(manifestCondition(ctx, w, 0, workv1.ManifestDegraded)).To(And(
			HaveField("Status", metav1.ConditionTrue), HaveField("Message", "errors: 3")))
		// Degraded is not unavailable: the resources are there.
		expectWorkCondition(ctx, w, workv1.WorkAvailable, metav1.ConditionTrue)

		By("the object recovering on the managed cluster")
		Eventually(func() error {
			cm, err := getConfigMap(ctx, ns, "app")
			if err != nil {
				return err
			}
			cm.Data["errors"] = "0"
			return managed.Update(ctx, cm)
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		expectWorkCondition(ctx, w, workv1.WorkDegraded, metav1.ConditionFalse)
		Expect(meta.FindStatusCondition(work(ctx, w).Status.Conditions, workv1.WorkDegraded)).To(HaveField("Reason", manifestwork.ReasonWorkNotDegraded))
		Expect(manifestCondition(ctx, w, 0, workv1.ManifestDegraded)).To(HaveField("Message", "no errors"))
	})
})
