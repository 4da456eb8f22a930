package placement_test

import (
	"context"
	"fmt"
	"strconv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

var _ = Describe("decision groups and pages", func() {
	It("splits 250 clusters into decision groups and pages of at most 100, labelled as the api says", func(ctx context.Context) {
		f := newFixture(ctx)
		clusters := f.clusters(ctx, f.set, 250, func(i int, c *clusterv1.ManagedCluster) {
			if i%10 == 0 {
				c.Labels["canary"] = "true"
			}
		})
		f.bind(ctx, f.set)
		Expect(admin.Create(ctx, f.placement("rollout", func(p *clusterv1beta1.Placement) {
			p.Spec.DecisionStrategy.GroupStrategy = clusterv1beta1.GroupStrategy{
				DecisionGroups: []clusterv1beta1.DecisionGroup{{GroupName: "canary", ClusterSelector: clusterv1beta1.GroupClusterSelector{
					LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"canary": "true"}}}}},
				ClustersPerDecisionGroup: intstr.FromString("60%"),
			}
		}))).To(Succeed())
		f.eventuallyDecided(ctx, "rollout", clusters)

		p := &clusterv1beta1.Placement{}
		Expect(admin.Get(ctx, client.ObjectKey{Namespace: f.ns, Name: "rollout"}, p)).To(Succeed())
		type group struct {
			Index     int32
			Name      string
			Count     int32
			Decisions []string
		}
		var groups []group
		for _, g := range p.Status.DecisionGroups {
			groups = append(groups, group{g.DecisionGroupIndex, g.DecisionGroupName, g.ClustersCount, g.Decisions})
		}
		// 60% of 250 is 150 a group: the 25 canaries, then the other 225
		// as 150 and 75.
		Expect(groups).To(Equal([]group{
			{0, "canary", 25, []string{"rollout-decision-1"}},
			{1, "", 150, []string{"rollout-decision-2", "rollout-decision-3"}},
			{2, "", 75, []string{"rollout-decision-4"}},
		}))
		sizes := map[string]int{}
		for _, d := range f.pages(ctx, "rollout") {
			Expect(len(d.Status.Decisions)).To(BeNumerically("<=", 100))
			sizes[d.Name] = len(d.Status.Decisions)
			index, err := strconv.Atoi(d.Labels[clusterv1beta1.DecisionGroupIndexLabel])
			Expect(err).NotTo(HaveOccurred())
			Expect(d.Labels[clusterv1beta1.DecisionGroupNameLabel]).To(Equal(groups[index].Name))
			Expect(groups[index].Decisions).To(ContainElement(d.Name))
			Expect(d.OwnerReferences).To(HaveLen(1))
			Expect(d.OwnerReferences[0].UID).To(Equal(p.UID))
		}
		Expect(sizes).To(Equal(map[string]int{"rollout-decision-1": 25, "rollout-decision-2": 100, "rollout-decision-3": 50, "rollout-decision-4": 75}))

		By("shrinking to 90 clusters: the pages no longer needed go")
		Expect(admin.Get(ctx, client.ObjectKey{Namespace: f.ns, Name: "rollout"}, p)).To(Succeed())
		p.Spec.NumberOfClusters = ptr[int32](90)
		p.Spec.DecisionStrategy = clusterv1beta1.DecisionStrategy{}
		Expect(admin.Update(ctx, p)).To(Succeed())
		Eventually(func(g Gomega) {
			pages := f.pages(ctx, "rollout")
			g.Expect(pages).To(HaveLen(1))
			g.Expect(pages[0].Name).To(Equal("rollout-decision-1"))
			g.Expect(pages[0].Status.Decisions).To(HaveLen(90))
			g.Expect(pages[0].Labels[clusterv1beta1.DecisionGroupNameLabel]).To(Equal(""))
		}).WithTimeout(timeout).Should(Succeed())
	})
})

var _ = Describe("misconfigured placements", func() {
	DescribeTable("get PlacementMisconfigured with a message saying what is wrong, and schedule once fixed",
		func(ctx context.Context, mutate func(*clusterv1beta1.Placement), message string) {
			f := newFixture(ctx)
			clusters := f.clusters(ctx, f.set, 1, nil)
			f.bind(ctx, f.set)
			Expect(admin.Create(ctx, f.placement("bad", mutate))).To(Succeed())
			f.condition(ctx, "bad", clusterv1beta1.PlacementConditionMisconfigured, func(g Gomega, c *metav1.Condition) {
				g.Expect(c.Status).To(Equal(metav1.ConditionTrue))
				g.Expect(c.Message).To(ContainSubstring(message))
			})
			Expect(f.pages(ctx, "bad")).To(BeEmpty())

			By("a good placement beside it is still scheduled")
			Expect(admin.Create(ctx, f.placement("good", nil))).To(Succeed())
			f.eventuallyDecided(ctx, "good", clusters)

			By("fixing it")
			p := &clusterv1beta1.Placement{}
			Expect(admin.Get(ctx, client.ObjectKey{Namespace: f.ns, Name: "bad"}, p)).To(Succeed())
			p.Spec = clusterv1beta1.PlacementSpec{}
			Expect(admin.Update(ctx, p)).To(Succeed())
			f.condition(ctx, "bad", clusterv1beta1.PlacementConditionMisconfigured, func(g Gomega, c *metav1.Condition) {
				g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			})
			f.eventuallyDecided(ctx, "bad", clusters)
		},
		Entry("an unknown prioritizer", func(p *clusterv1beta1.Placement) {
			p.Spec.PrioritizerPolicy.Configurations = []clusterv1beta1.PrioritizerConfig{{Weight: 1,
				ScoreCoordinate: &clusterv1beta1.ScoreCoordinate{Type: clusterv1beta1.ScoreCoordinateTypeBuiltIn, BuiltIn: "Cheapest"}}}
		}, `spec.prioritizerPolicy.configurations[0].scoreCoordinate.builtIn is "Cheapest"`),
		Entry("a negative numberOfClusters", func(p *clusterv1beta1.Placement) { p.Spec.NumberOfClusters = ptr[int32](-2) },
			"spec.numberOfClusters is -2: it must be 0 or more"),
		Entry("a CEL expression that does not compile", func(p *clusterv1beta1.Placement) {
			p.Spec.Predicates = []clusterv1beta1.ClusterPredicate{{RequiredClusterSelector: clusterv1beta1.ClusterSelector{
				CelSelector: clusterv1beta1.ClusterCelSelector{CelExpressions: []string{"managedCluster.metadata.name =="}}}}}
		}, "does not compile"),
	)
})

var _ = Describe("prioritizers", func() {
	It("prefers the clusters with the best AddOnPlacementScore, and follows a score change that changes them at once", func(ctx context.Context) {
		f := newFixture(ctx)
		clusters := f.scoredClusters(ctx, 10, 20, 30)
		Expect(admin.Create(ctx, f.placement("best", byScore("")))).To(Succeed())
		f.eventuallyDecided(ctx, "best", clusters[2:])

		By("raising the first cluster's score above the others: no clock needs to move")
		setScore(ctx, clusters[0], 90)
		f.eventuallyDecided(ctx, "best", clusters[:1])
		Expect(fmt.Sprint(f.pages(ctx, "best")[0].Status.Decisions[0].Score)).To(Equal("90"))
	})
})
