package workagent_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"
)

var _ = Describe("Status writes", func() {
	It("writes a work's status only when it changed", func(ctx context.Context) {
		ns, w := createNamespace(ctx), name("work")
		createWork(ctx, w, workv1.ManifestWorkSpec{}, configMap(ns, "cm", map[string]any{"a": "1"}))
		expectWorkCondition(ctx, w, workv1.WorkAvailable, metav1.ConditionTrue)
		statusPath := "/apis/" + workv1.GroupVersion.String() + "/namespaces/" + clusterName + "/manifestworks/" + w + "/status"
		writes := func() int { return hubRequests.count("PATCH", statusPath) + hubRequests.count("PUT", statusPath) }
		cmPath := "/api/v1/namespaces/" + ns + "/configmaps/cm"
		written, read := writes(), managedRequests.count("GET", cmPath)
		Expect(written).To(BeNumerically(">", 0), "the status writes are counted")

		By("a change on the managed cluster that leaves the work's status as it is: a reconcile that writes nothing")
		Eventually(func() error {
			cm, err := getConfigMap(ctx, ns, "cm")
			if err != nil {
				return err
			}
			cm.Labels = map[string]string{"touched": "by-hand"}
			return managed.Update(ctx, cm)
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		// The agent reads the object it did not change itself: its
		// reconcile is under way, and any later one comes after it.
		Eventually(func() int { return managedRequests.count("GET", cmPath) }).
			WithContext(ctx).WithTimeout(timeout).Should(BeNumerically(">", read))

		By("a new generation of the work, whose status does change")
		setManifests(ctx, w, configMap(ns, "cm", map[string]any{"a": "2"}))
		Eventually(func(g Gomega) {
			mw := work(ctx, w)
			c := meta.FindStatusCondition(mw.Status.Conditions, workv1.WorkAvailable)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.ObservedGeneration).To(Equal(mw.Generation))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		Expect(writes()-written).To(Equal(1), "the status was written for the new generation alone")
	})
})
