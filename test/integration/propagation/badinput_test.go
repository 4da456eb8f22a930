package propagation_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/distribute"
)

// The distributor's bad input (issue 32, "Bad input"): a Placement that
// does not exist and a pin to a revision that does not exist are each a
// condition in one line, and no work anywhere changes.
var _ = Describe("the distributor, given bad input,", Ordered, func() {
	BeforeAll(func() { startDistributor(distribute.Options{}) })

	It("says a Placement does not exist, writes no work, and delivers once it does", func(ctx context.Context) {
		ns := freshNamespace(ctx)
		c1 := clusterNamespace(ctx)
		createRevision(ctx, ns, "web", 1, "blue")
		p := propagationOf(ns, "web", "nowhere", clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All})
		Expect(c.Create(ctx, p)).To(Succeed())

		Eventually(condition).WithContext(ctx).WithArguments(p, v1alpha1.ConditionScheduled).WithTimeout(deliverTimeout).WithPolling(poll).
			Should(And(
				HaveField("Status", metav1.ConditionFalse),
				HaveField("Reason", v1alpha1.ReasonPlacementNotFound),
				HaveField("Message", And(ContainSubstring("nowhere"), Not(ContainSubstring("\n"))))))
		Consistently(worksOf).WithContext(ctx).WithArguments(ns, "web").WithTimeout(2 * time.Second).WithPolling(poll).Should(BeEmpty())

		By("creating the Placement and its decision")
		decide(ctx, ns, "nowhere", c1)
		Eventually(worksOf).WithContext(ctx).WithArguments(ns, "web").WithTimeout(deliverTimeout).WithPolling(poll).
			Should(Equal(map[string]string{c1: "1"}))
		Eventually(condition).WithContext(ctx).WithArguments(p, v1alpha1.ConditionScheduled).WithTimeout(deliverTimeout).WithPolling(poll).
			Should(HaveField("Status", metav1.ConditionTrue))
	})

	It("says a pinned revision does not exist, and the clusters keep the revision they run", func(ctx context.Context) {
		ns := freshNamespace(ctx)
		c1, c2 := clusterNamespace(ctx), clusterNamespace(ctx)
		decide(ctx, ns, "both", c1, c2)
		createRevision(ctx, ns, "web", 1, "blue")
		createRevision(ctx, ns, "web", 2, "green")
		p := propagationOf(ns, "web", "both", clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All})
		Expect(c.Create(ctx, p)).To(Succeed())
		Eventually(worksOf).WithContext(ctx).WithArguments(ns, "web").WithTimeout(deliverTimeout).WithPolling(poll).
			Should(Equal(map[string]string{c1: "2", c2: "2"}))

		By("pinning revision 7, which does not exist")
		Expect(c.Get(ctx, client.ObjectKeyFromObject(p), p)).To(Succeed())
		p.Spec.Revision = ptr.To[int64](7)
		Expect(c.Update(ctx, p)).To(Succeed())
		Eventually(func(g Gomega) {
			got := &v1alpha1.Propagation{}
			g.Expect(c.Get(ctx, client.ObjectKeyFromObject(p), got)).To(Succeed())
			var found *metav1.Condition
			for i := range got.Status.Conditions {
				if got.Status.Conditions[i].Reason == v1alpha1.ReasonRevisionNotFound {
					found = &got.Status.Conditions[i]
				}
			}
			g.Expect(found).NotTo(BeNil(), "a condition with reason %s in %+v", v1alpha1.ReasonRevisionNotFound, got.Status.Conditions)
			g.Expect(found.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(found.Message).To(And(ContainSubstring("revision 7"), Not(ContainSubstring("\n"))))
			g.Expect(found.ObservedGeneration).To(Equal(got.Generation))
		}).WithTimeout(deliverTimeout).WithPolling(poll).Should(Succeed())
		Consistently(worksOf).WithContext(ctx).WithArguments(ns, "web").WithTimeout(2 * time.Second).WithPolling(poll).
			Should(Equal(map[string]string{c1: "2", c2: "2"}))

		By("pinning revision 1, which exists")
		Expect(c.Get(ctx, client.ObjectKeyFromObject(p), p)).To(Succeed())
		p.Spec.Revision = ptr.To[int64](1)
		Expect(c.Update(ctx, p)).To(Succeed())
		Eventually(worksOf).WithContext(ctx).WithArguments(ns, "web").WithTimeout(deliverTimeout).WithPolling(poll).
			Should(Equal(map[string]string{c1: "1", c2: "1"}))
	})
})

// condition is the propagation's condition of type t, as stored; the zero
// condition while it has none.
func condition(ctx context.Context, p *v1alpha1.Propagation, t string) metav1.Condition {
	GinkgoHelper()
	got := &v1alpha1.Propagation{}
	Expect(c.Get(ctx, client.ObjectKeyFromObject(p), got)).To(Succeed())
	if cond := meta.FindStatusCondition(got.Status.Conditions, t); cond != nil {
		return *cond
	}
	return metav1.Condition{}
}
