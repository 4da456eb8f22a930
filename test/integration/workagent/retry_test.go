package workagent_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"
)

var _ = Describe("A manifest that fails to apply", func() {
	It("is tried again with backoff: applied once its namespace is created by hand, the work unchanged", func(ctx context.Context) {
		ns, w := name("ns"), name("work")
		createWork(ctx, w, workv1.ManifestWorkSpec{}, configMap(ns, "cm", map[string]any{"a": "1"}))
		expectWorkCondition(ctx, w, workv1.WorkApplied, metav1.ConditionFalse)
		Expect(manifestCondition(ctx, w, 0, workv1.ManifestApplied)).To(HaveField("Reason", workv1.AppliedManifestFailed))

		By("the failure is written once, not on every try")
		failed := work(ctx, w)
		Consistently(func(g Gomega) {
			g.Expect(work(ctx, w).ResourceVersion).To(Equal(failed.ResourceVersion))
		}).WithContext(ctx).WithTimeout(2 * time.Second).Should(Succeed())

		Expect(managed.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
		expectWorkCondition(ctx, w, workv1.WorkApplied, metav1.ConditionTrue)
		cm, err := getConfigMap(ctx, ns, "cm")
		Expect(err).NotTo(HaveOccurred())
		Expect(cm.Data).To(HaveKeyWithValue("a", "1"))
		Expect(work(ctx, w).Generation).To(Equal(failed.Generation))
	})
})
