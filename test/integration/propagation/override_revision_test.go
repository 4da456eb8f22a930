package propagation_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	propselector "github.com/corral-dev/corral/propagation/hub/selector"
)

var _ = Describe("override policies in revisions", Ordered, func() {
	BeforeAll(startHubHalf)

	// overridesOf are the overrides revision n of the propagation holds.
	overridesOf := func(ctx context.Context, ns, name string, n int64) []v1alpha1.OverrideSnapshot {
		GinkgoHelper()
		rev := &v1alpha1.PropagationRevision{}
		Expect(c.Get(ctx, client.ObjectKey{Namespace: ns, Name: propselector.RevisionName(name, n)}, rev)).To(Succeed())
		return rev.Spec.Overrides
	}
	deployments := v1alpha1.ResourceSelector{Group: "apps", Version: "v1", Kind: "Deployment", Name: "web"}
	tier := func(v string) []v1alpha1.OverrideRule {
		return []v1alpha1.OverrideRule{{SetLabels: map[string]string{"tier": v}}}
	}

	It("snapshots the policies that change the objects; a policy's edit or removal is a new revision", func(ctx context.Context) {
		ns := freshNamespace(ctx)
		Expect(c.Create(ctx, webDeployment(ns))).To(Succeed())
		policy := &v1alpha1.OverridePolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "tier"},
			Spec: v1alpha1.OverridePolicySpec{ResourceSelectors: []v1alpha1.ResourceSelector{deployments}, Overrides: v1alpha1.Overrides{Rules: tier("gold")}}}
		Expect(c.Create(ctx, policy)).To(Succeed())
		other := &v1alpha1.OverridePolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "configmaps"},
			Spec: v1alpha1.OverridePolicySpec{ResourceSelectors: []v1alpha1.ResourceSelector{{Version: "v1", Kind: "ConfigMap"}}, Overrides: v1alpha1.Overrides{Rules: tier("x")}}}
		Expect(c.Create(ctx, other)).To(Succeed())
		Expect(c.Create(ctx, newPropagation(ns, "web", nil, deployments))).To(Succeed())

		By("revision 1 holds the policy that selects the Deployment (object 1, after the namespace), not the other")
		Eventually(revisionNumbers).WithContext(ctx).WithArguments(ns, "web").WithTimeout(eventually).Should(Equal([]int64{1}))
		Expect(overridesOf(ctx, ns, "web", 1)).To(Equal([]v1alpha1.OverrideSnapshot{
			{Name: ns + "/tier", Objects: []int32{1}, Rules: tier("gold")}}))

		By("editing the policy: revision 2 with the new rules")
		Expect(c.Get(ctx, client.ObjectKeyFromObject(policy), policy)).To(Succeed())
		policy.Spec.Rules = tier("silver")
		Expect(c.Update(ctx, policy)).To(Succeed())
		Eventually(revisionNumbers).WithContext(ctx).WithArguments(ns, "web").WithTimeout(eventually).Should(Equal([]int64{1, 2}))
		Expect(overridesOf(ctx, ns, "web", 2)[0].Rules).To(Equal(tier("silver")))

		By("deleting it: revision 3 without overrides")
		Expect(c.Delete(ctx, policy)).To(Succeed())
		Eventually(revisionNumbers).WithContext(ctx).WithArguments(ns, "web").WithTimeout(eventually).Should(Equal([]int64{1, 2, 3}))
		Expect(overridesOf(ctx, ns, "web", 3)).To(BeEmpty())
	})

	It("refuses a policy it cannot read, keeping the revisions", func(ctx context.Context) {
		ns := freshNamespace(ctx)
		Expect(c.Create(ctx, webDeployment(ns))).To(Succeed())
		Expect(c.Create(ctx, newPropagation(ns, "web", nil, deployments))).To(Succeed())
		Eventually(revisionNumbers).WithContext(ctx).WithArguments(ns, "web").WithTimeout(eventually).Should(Equal([]int64{1}))

		bad := deployments
		bad.Name = ""
		bad.LabelSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: "Near"}}}
		Expect(c.Create(ctx, &v1alpha1.OverridePolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "broken"},
			Spec: v1alpha1.OverridePolicySpec{ResourceSelectors: []v1alpha1.ResourceSelector{bad}, Overrides: v1alpha1.Overrides{Rules: tier("gold")}}})).To(Succeed())
		Eventually(selectedCondition).WithContext(ctx).WithArguments(ns, "web").WithTimeout(eventually).Should(And(
			HaveField("Status", metav1.ConditionFalse), HaveField("Reason", v1alpha1.ReasonOverrideInvalid),
			HaveField("Message", ContainSubstring("OverridePolicy "+ns+"/broken"))))
		Expect(revisionNumbers(ctx, ns, "web")).To(Equal([]int64{1}))
	})
})
