package placement_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/placement/hub/scheduler"
)

var _ = Describe("cluster sets and bindings", func() {
	It("selects nothing until a set is bound, then the bound set's clusters, and none once it is unbound", func(ctx context.Context) {
		f := newFixture(ctx)
		clusters := f.clusters(ctx, f.set, 3, nil)
		Expect(admin.Create(ctx, f.placement("all", nil))).To(Succeed())
		f.condition(ctx, "all", clusterv1beta1.PlacementConditionSatisfied, func(g Gomega, c *metav1.Condition) {
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(c.Reason).To(Equal(scheduler.ReasonNoBindings))
		})
		f.eventuallyDecided(ctx, "all", nil)

		By("binding the set")
		f.bind(ctx, f.set)
		f.eventuallyDecided(ctx, "all", clusters)
		f.condition(ctx, "all", clusterv1beta1.PlacementConditionSatisfied, func(g Gomega, c *metav1.Condition) {
			g.Expect(c.Status).To(Equal(metav1.ConditionTrue))
			g.Expect(c.Message).To(Equal("3 clusters selected"))
		})

		By("unbinding it")
		Expect(admin.Delete(ctx, &clusterv1beta2.ManagedClusterSetBinding{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: f.set}})).To(Succeed())
		f.eventuallyDecided(ctx, "all", nil)
	})

	It("chooses only from spec.clusterSets among the bound sets, and follows a cluster moved between sets", func(ctx context.Context) {
		f := newFixture(ctx)
		other := f.ns + "-other"
		f.createSet(ctx, other)
		mine := f.clusters(ctx, f.set, 2, nil)
		theirs := f.clusters(ctx, other, 2, nil)
		f.bind(ctx, f.set)
		f.bind(ctx, other)
		Expect(admin.Create(ctx, f.placement("both", nil))).To(Succeed())
		Expect(admin.Create(ctx, f.placement("other-only", func(p *clusterv1beta1.Placement) { p.Spec.ClusterSets = []string{other} }))).To(Succeed())
		f.eventuallyDecided(ctx, "both", append(append([]string{}, mine...), theirs...))
		f.eventuallyDecided(ctx, "other-only", theirs)

		By("moving a cluster into the other set")
		c := &clusterv1.ManagedCluster{}
		Expect(admin.Get(ctx, client.ObjectKey{Name: mine[0]}, c)).To(Succeed())
		c.Labels[clusterv1beta2.ClusterSetLabel] = other
		Expect(admin.Update(ctx, c)).To(Succeed())
		f.eventuallyDecided(ctx, "other-only", append([]string{mine[0]}, theirs...))
	})

	It("selects the best clusters by label, and re-decides when a cluster is relabelled", func(ctx context.Context) {
		f := newFixture(ctx)
		clusters := f.clusters(ctx, f.set, 4, func(i int, c *clusterv1.ManagedCluster) {
			if i < 3 {
				c.Labels["env"] = "prod"
			}
		})
		f.bind(ctx, f.set)
		Expect(admin.Create(ctx, f.placement("prod", func(p *clusterv1beta1.Placement) {
			p.Spec.NumberOfClusters = ptr[int32](2)
			p.Spec.Predicates = []clusterv1beta1.ClusterPredicate{{RequiredClusterSelector: clusterv1beta1.ClusterSelector{
				LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}}}}
		}))).To(Succeed())
		f.eventuallyDecided(ctx, "prod", clusters[:2])

		By("taking a selected cluster out of prod")
		c := &clusterv1.ManagedCluster{}
		Expect(admin.Get(ctx, client.ObjectKey{Name: clusters[0]}, c)).To(Succeed())
		c.Labels["env"] = "dev"
		Expect(admin.Update(ctx, c)).To(Succeed())
		f.eventuallyDecided(ctx, "prod", clusters[1:3])

		By("taking another: fewer match than wanted")
		Expect(admin.Get(ctx, client.ObjectKey{Name: clusters[1]}, c)).To(Succeed())
		c.Labels["env"] = "dev"
		Expect(admin.Update(ctx, c)).To(Succeed())
		f.eventuallyDecided(ctx, "prod", clusters[2:3])
		f.condition(ctx, "prod", clusterv1beta1.PlacementConditionSatisfied, func(g Gomega, c *metav1.Condition) {
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(c.Reason).To(Equal(scheduler.ReasonNotAllScheduled))
			g.Expect(c.Message).To(Equal("1 cluster matches, 2 wanted"))
		})

		By("taking the last: none match, which OCM reports whatever numberOfClusters is")
		Expect(admin.Get(ctx, client.ObjectKey{Name: clusters[2]}, c)).To(Succeed())
		c.Labels["env"] = "dev"
		Expect(admin.Update(ctx, c)).To(Succeed())
		f.eventuallyDecided(ctx, "prod", nil)
		f.condition(ctx, "prod", clusterv1beta1.PlacementConditionSatisfied, func(g Gomega, c *metav1.Condition) {
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(c.Reason).To(Equal(scheduler.ReasonNoClusterMatched))
			g.Expect(c.Message).To(Equal("none of the 4 candidate clusters matches the placement's predicates and tolerations, 2 wanted"))
		})
	})

	It("keeps its condition true to the candidates while none matches", func(ctx context.Context) {
		f := newFixture(ctx)
		f.bind(ctx, f.set)
		Expect(admin.Create(ctx, f.placement("prod", func(p *clusterv1beta1.Placement) {
			p.Spec.Predicates = []clusterv1beta1.ClusterPredicate{{RequiredClusterSelector: clusterv1beta1.ClusterSelector{
				LabelSelector: metav1LabelSelector("env", "prod")}}}
		}))).To(Succeed())
		f.condition(ctx, "prod", clusterv1beta1.PlacementConditionSatisfied, func(g Gomega, c *metav1.Condition) {
			g.Expect(c.Reason).To(Equal(scheduler.ReasonSetsEmpty))
		})

		By("a cluster that matches nothing joining the set")
		f.clusters(ctx, f.set, 1, nil)
		f.condition(ctx, "prod", clusterv1beta1.PlacementConditionSatisfied, func(g Gomega, c *metav1.Condition) {
			g.Expect(c.Reason).To(Equal(scheduler.ReasonNoClusterMatched))
			g.Expect(c.Message).To(Equal("the one candidate cluster does not match the placement's predicates and tolerations"))
		})
	})

	It("puts back a PlacementDecision someone else edits or deletes", func(ctx context.Context) {
		f := newFixture(ctx)
		clusters := f.clusters(ctx, f.set, 2, nil)
		f.bind(ctx, f.set)
		Expect(admin.Create(ctx, f.placement("p", nil))).To(Succeed())
		f.eventuallyDecided(ctx, "p", clusters)

		d := f.pages(ctx, "p")[0]
		d.Status.Decisions = d.Status.Decisions[:1]
		Expect(admin.Status().Update(ctx, &d)).To(Succeed())
		f.eventuallyDecided(ctx, "p", clusters)

		Expect(admin.Delete(ctx, &d)).To(Succeed())
		f.eventuallyDecided(ctx, "p", clusters)
	})
})
