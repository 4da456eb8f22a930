package workhub_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

var _ = Describe("ManifestWorkReplicaSet rollout", func() {
	var (
		ns  string
		cls []string
	)
	BeforeEach(func(ctx context.Context) {
		ns = newNamespace(ctx, "rollout")
		cls = clusters(ctx, 3)
		createPlacement(ctx, ns, "place")
	})

	progressive := func(maxConcurrency int32, c clusterv1alpha1.RolloutConfig, mandatory ...clusterv1alpha1.MandatoryDecisionGroup) workv1alpha1.LocalPlacementReference {
		return workv1alpha1.LocalPlacementReference{Name: "place", RolloutStrategy: clusterv1alpha1.RolloutStrategy{
			Type: clusterv1alpha1.Progressive,
			Progressive: &clusterv1alpha1.RolloutProgressive{RolloutConfig: c, MaxConcurrency: intstr.FromInt32(maxConcurrency),
				MandatoryDecisionGroups: clusterv1alpha1.MandatoryDecisionGroups{MandatoryDecisionGroups: mandatory}},
		}}
	}

	perGroup := func(c clusterv1alpha1.RolloutConfig, mandatory ...clusterv1alpha1.MandatoryDecisionGroup) workv1alpha1.LocalPlacementReference {
		return workv1alpha1.LocalPlacementReference{Name: "place", RolloutStrategy: clusterv1alpha1.RolloutStrategy{
			Type: clusterv1alpha1.ProgressivePerGroup,
			ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{RolloutConfig: c,
				MandatoryDecisionGroups: clusterv1alpha1.MandatoryDecisionGroups{MandatoryDecisionGroups: mandatory}},
		}}
	}

	// notRolledOut waits until the set's PlacementRolledOut condition is
	// False with message.
	notRolledOut := func(ctx context.Context, set *workv1alpha1.ManifestWorkReplicaSet, message string) {
		GinkgoHelper()
		expectSet(ctx, set, func(g Gomega, s *workv1alpha1.ManifestWorkReplicaSet) {
			c := condition(s, workv1alpha1.ManifestWorkReplicaSetConditionPlacementRolledOut)
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse), c.Message)
			g.Expect(c.Message).To(Equal(message))
		})
	}

	It("Progressive applies to maxConcurrency clusters at a time, the next once one succeeded", func(ctx context.Context) {
		decide(ctx, ns, "place", 0, "", cls...)
		set := createSet(ctx, ns, "app", progressive(1, clusterv1alpha1.RolloutConfig{}))
		expectWorksOn(ctx, set, cls[0])
		consistentlyWorksOn(ctx, set, cls[0])
		expectSet(ctx, set, func(g Gomega, s *workv1alpha1.ManifestWorkReplicaSet) {
			g.Expect(s.Status.Summary.DesiredTotal).To(Equal(3))
			g.Expect(condition(s, workv1alpha1.ManifestWorkReplicaSetConditionPlacementRolledOut).Reason).To(Equal(workv1alpha1.ReasonProgressing))
		})

		agentReports(ctx, cls[0], "app", "progressing")
		consistentlyWorksOn(ctx, set, cls[0])
		agentReports(ctx, cls[0], "app", "done")
		expectWorksOn(ctx, set, cls[0], cls[1])
		agentReports(ctx, cls[1], "app", "done")
		expectWorksOn(ctx, set, cls...)
		agentReports(ctx, cls[2], "app", "done")
		expectSet(ctx, set, func(g Gomega, s *workv1alpha1.ManifestWorkReplicaSet) {
			c := condition(s, workv1alpha1.ManifestWorkReplicaSetConditionPlacementRolledOut)
			g.Expect(c.Status).To(Equal(metav1.ConditionTrue), c.Message)
			g.Expect(c.Message).To(Equal("3 of 3 clusters rolled out"))
		})
	})

	It("Progressive waits minSuccessTime after a success before the next cluster", func(ctx context.Context) {
		decide(ctx, ns, "place", 0, "", cls[0], cls[1])
		set := createSet(ctx, ns, "app", progressive(1, clusterv1alpha1.RolloutConfig{MinSuccessTime: metav1.Duration{Duration: 5 * time.Minute}}))
		expectWorksOn(ctx, set, cls[0])
		agentReports(ctx, cls[0], "app", "done")
		consistentlyWorksOn(ctx, set, cls[0])

		By("moving the clock past minSuccessTime")
		fakeClock.Step(5*time.Minute + time.Second)
		expectWorksOn(ctx, set, cls[0], cls[1])
	})

	DescribeTable("Progressive counts a cluster past progressDeadline as failed and stops beyond maxFailures",
		func(ctx context.Context, firstState string) {
			decide(ctx, ns, "place", 0, "", cls...)
			set := createSet(ctx, ns, "app", progressive(1, clusterv1alpha1.RolloutConfig{ProgressDeadline: "10m", MaxFailures: intstr.FromInt32(1)}))
			expectWorksOn(ctx, set, cls[0])
			agentReports(ctx, cls[0], "app", firstState)
			consistentlyWorksOn(ctx, set, cls[0])

			By("moving the clock past the first cluster's progressDeadline: one failure is allowed")
			fakeClock.Step(10*time.Minute + time.Second)
			expectWorksOn(ctx, set, cls[0], cls[1])
			expectSet(ctx, set, func(g Gomega, s *workv1alpha1.ManifestWorkReplicaSet) {
				g.Expect(condition(s, workv1alpha1.ManifestWorkReplicaSetConditionPlacementRolledOut).Message).To(ContainSubstring("1 past their progressDeadline"))
			})

			By("failing the second cluster past its deadline too: more than maxFailures")
			agentReports(ctx, cls[1], "app", "failed")
			fakeClock.Step(10*time.Minute + time.Second)
			expectSet(ctx, set, func(g Gomega, s *workv1alpha1.ManifestWorkReplicaSet) {
				c := condition(s, workv1alpha1.ManifestWorkReplicaSetConditionPlacementRolledOut)
				g.Expect(c.Message).To(ContainSubstring("stopped: more clusters failed than maxFailures allows"))
			})
			consistentlyWorksOn(ctx, set, cls[0], cls[1])
		},
		Entry("a cluster in progress", "progressing"),
		Entry("a cluster whose agent cannot apply the work", "unapplied"),
	)

	It("Progressive rolls out to the mandatory decision groups first", func(ctx context.Context) {
		decide(ctx, ns, "place", 0, "", cls[0], cls[1])
		decide(ctx, ns, "place", 1, "canary", cls[2])
		set := createSet(ctx, ns, "app", progressive(2, clusterv1alpha1.RolloutConfig{}, clusterv1alpha1.MandatoryDecisionGroup{GroupName: "canary"}))
		expectWorksOn(ctx, set, cls[2])
		consistentlyWorksOn(ctx, set, cls[2])
		agentReports(ctx, cls[2], "app", "done")
		expectWorksOn(ctx, set, cls...)
	})

	It("Progressive without maxConcurrency rolls out to the placement's clustersPerDecisionGroup at a time", func(ctx context.Context) {
		placement := &clusterv1beta1.Placement{}
		Expect(admin.Get(ctx, client.ObjectKey{Namespace: ns, Name: "place"}, placement)).To(Succeed())
		perGroup := intstr.FromInt32(2)
		placement.Spec.DecisionStrategy.GroupStrategy.ClustersPerDecisionGroup = perGroup
		Expect(admin.Update(ctx, placement)).To(Succeed())
		decide(ctx, ns, "place", 0, "", cls...)
		set := createSet(ctx, ns, "app", progressive(0, clusterv1alpha1.RolloutConfig{}))
		expectWorksOn(ctx, set, cls[0], cls[1])
		consistentlyWorksOn(ctx, set, cls[0], cls[1])
		agentReports(ctx, cls[0], "app", "done")
		expectWorksOn(ctx, set, cls...)
	})

	It("Progressive leaves a cluster an earlier placement ref has to that ref, and goes on with its own", func(ctx context.Context) {
		createPlacement(ctx, ns, "first")
		decide(ctx, ns, "first", 0, "", cls[0])
		decide(ctx, ns, "place", 0, "", cls...)
		set := createSet(ctx, ns, "app", workv1alpha1.LocalPlacementReference{Name: "first"}, progressive(1, clusterv1alpha1.RolloutConfig{}))
		expectWorksOn(ctx, set, cls[0], cls[1])
		agentReports(ctx, cls[1], "app", "done")
		expectWorksOn(ctx, set, cls...)
	})

	It("ProgressivePerGroup applies to one decision group at a time", func(ctx context.Context) {
		decide(ctx, ns, "place", 0, "", cls[0])
		decide(ctx, ns, "place", 1, "", cls[1], cls[2])
		set := createSet(ctx, ns, "app", perGroup(clusterv1alpha1.RolloutConfig{}))
		expectWorksOn(ctx, set, cls[0])
		consistentlyWorksOn(ctx, set, cls[0])
		agentReports(ctx, cls[0], "app", "done")
		expectWorksOn(ctx, set, cls...)
		agentReports(ctx, cls[1], "app", "done")
		expectSet(ctx, set, func(g Gomega, s *workv1alpha1.ManifestWorkReplicaSet) {
			g.Expect(s.Status.PlacementsSummary).To(HaveLen(1))
			g.Expect(s.Status.PlacementsSummary[0].AvailableDecisionGroups).To(Equal("1/2"))
		})
	})

	It("ProgressivePerGroup rolls out to the mandatory decision groups first, named or indexed, then the others a group at a time", func(ctx context.Context) {
		d := clusters(ctx, 1)[0]
		decide(ctx, ns, "place", 0, "", cls[0])
		decide(ctx, ns, "place", 1, "canary", cls[1])
		decide(ctx, ns, "place", 2, "", cls[2])
		decide(ctx, ns, "place", 3, "", d)
		// A group named is that group, whatever index is given with the
		// name: group 3 is not mandatory.
		set := createSet(ctx, ns, "app", perGroup(clusterv1alpha1.RolloutConfig{},
			clusterv1alpha1.MandatoryDecisionGroup{GroupIndex: 2}, clusterv1alpha1.MandatoryDecisionGroup{GroupName: "canary", GroupIndex: 3}))

		By("the mandatory group of lower index first, canary")
		expectWorksOn(ctx, set, cls[1])
		consistentlyWorksOn(ctx, set, cls[1])
		agentReports(ctx, cls[1], "app", "progressing")
		consistentlyWorksOn(ctx, set, cls[1])
		agentReports(ctx, cls[1], "app", "done")

		By("then the other mandatory group, index 2")
		expectWorksOn(ctx, set, cls[1], cls[2])
		consistentlyWorksOn(ctx, set, cls[1], cls[2])
		agentReports(ctx, cls[2], "app", "done")

		By("then the other groups by index, one at a time")
		expectWorksOn(ctx, set, cls[0], cls[1], cls[2])
		consistentlyWorksOn(ctx, set, cls[0], cls[1], cls[2])
		agentReports(ctx, cls[0], "app", "done")
		expectWorksOn(ctx, set, cls[0], cls[1], cls[2], d)
		agentReports(ctx, d, "app", "done")
		expectSet(ctx, set, func(g Gomega, s *workv1alpha1.ManifestWorkReplicaSet) {
			c := condition(s, workv1alpha1.ManifestWorkReplicaSetConditionPlacementRolledOut)
			g.Expect(c.Status).To(Equal(metav1.ConditionTrue), c.Message)
			g.Expect(s.Status.PlacementsSummary[0].AvailableDecisionGroups).To(Equal("4/4"))
		})
	})

	It("ProgressivePerGroup waits minSuccessTime after the last cluster of a group succeeded before the next group", func(ctx context.Context) {
		decide(ctx, ns, "place", 0, "", cls[0], cls[1])
		decide(ctx, ns, "place", 1, "", cls[2])
		set := createSet(ctx, ns, "app", perGroup(clusterv1alpha1.RolloutConfig{MinSuccessTime: metav1.Duration{Duration: 5 * time.Minute}}))
		expectWorksOn(ctx, set, cls[0], cls[1])
		agentReports(ctx, cls[0], "app", "done")
		fakeClock.Step(3 * time.Minute)
		agentReports(ctx, cls[1], "app", "done")

		By("moving the clock past minSuccessTime after the first cluster's success but not the last's")
		fakeClock.Step(3 * time.Minute)
		consistentlyWorksOn(ctx, set, cls[0], cls[1])

		By("moving the clock past minSuccessTime after the last cluster's success")
		fakeClock.Step(2*time.Minute + time.Second)
		expectWorksOn(ctx, set, cls...)
	})

	It("ProgressivePerGroup counts clusters past progressDeadline as failed, goes on within maxFailures of a group and stops beyond", func(ctx context.Context) {
		more := clusters(ctx, 2)
		decide(ctx, ns, "place", 0, "", cls[0])
		decide(ctx, ns, "place", 1, "", cls[1])
		decide(ctx, ns, "place", 2, "", cls[2], more[0])
		decide(ctx, ns, "place", 3, "", more[1])
		set := createSet(ctx, ns, "app", perGroup(clusterv1alpha1.RolloutConfig{ProgressDeadline: "10m", MaxFailures: intstr.FromInt32(1)}))
		expectWorksOn(ctx, set, cls[0])
		agentReports(ctx, cls[0], "app", "progressing")
		consistentlyWorksOn(ctx, set, cls[0])

		By("moving the clock past the first group's progressDeadline: one failure in the group is allowed, the next group starts alone")
		fakeClock.Step(10*time.Minute + time.Second)
		expectWorksOn(ctx, set, cls[0], cls[1])
		consistentlyWorksOn(ctx, set, cls[0], cls[1])
		notRolledOut(ctx, set, "0 of 5 clusters rolled out, 1 past their progressDeadline")

		// Progressing, not Failed: a Failed cluster is a failure at once,
		// and the third group would start before the clock moves, racing
		// the step below.
		By("the second group's one cluster progressing past its deadline too: maxFailures counts in each group")
		agentReports(ctx, cls[1], "app", "progressing")
		fakeClock.Step(10*time.Minute + time.Second)
		expectWorksOn(ctx, set, cls[0], cls[1], cls[2], more[0])
		consistentlyWorksOn(ctx, set, cls[0], cls[1], cls[2], more[0])
		notRolledOut(ctx, set, "0 of 5 clusters rolled out, 2 past their progressDeadline")

		By("both clusters of the third group staying progressing past their deadline: more than maxFailures")
		agentReports(ctx, cls[2], "app", "progressing")
		agentReports(ctx, more[0], "app", "progressing")
		fakeClock.Step(10*time.Minute + time.Second)
		notRolledOut(ctx, set, "0 of 5 clusters rolled out, 4 past their progressDeadline; stopped: more clusters failed than maxFailures allows")
		consistentlyWorksOn(ctx, set, cls[0], cls[1], cls[2], more[0])
	})

	DescribeTable("goes on past a timeout within maxFailures once the mandatory groups succeeded",
		func(ctx context.Context, strategy func(clusterv1alpha1.RolloutConfig, clusterv1alpha1.MandatoryDecisionGroup) workv1alpha1.LocalPlacementReference) {
			decide(ctx, ns, "place", 0, "canary", cls[0])
			decide(ctx, ns, "place", 1, "", cls[1])
			decide(ctx, ns, "place", 2, "", cls[2])
			set := createSet(ctx, ns, "app", strategy(clusterv1alpha1.RolloutConfig{ProgressDeadline: "10m", MaxFailures: intstr.FromInt32(1)},
				clusterv1alpha1.MandatoryDecisionGroup{GroupName: "canary"}))
			expectWorksOn(ctx, set, cls[0])
			agentReports(ctx, cls[0], "app", "done")
			expectWorksOn(ctx, set, cls[0], cls[1])
			agentReports(ctx, cls[1], "app", "progressing")
			consistentlyWorksOn(ctx, set, cls[0], cls[1])

			By("moving the clock past the second cluster's progressDeadline: one failure is allowed")
			fakeClock.Step(10*time.Minute + time.Second)
			expectWorksOn(ctx, set, cls...)
		},
		Entry("ProgressivePerGroup, a group at a time", func(c clusterv1alpha1.RolloutConfig, m clusterv1alpha1.MandatoryDecisionGroup) workv1alpha1.LocalPlacementReference {
			return perGroup(c, m)
		}),
		Entry("Progressive, one cluster at a time", func(c clusterv1alpha1.RolloutConfig, m clusterv1alpha1.MandatoryDecisionGroup) workv1alpha1.LocalPlacementReference {
			return progressive(1, c, m)
		}),
	)

	It("ProgressivePerGroup stops on a failure in a mandatory decision group, whatever maxFailures allows", func(ctx context.Context) {
		decide(ctx, ns, "place", 0, "canary", cls[0], cls[1])
		decide(ctx, ns, "place", 1, "", cls[2])
		set := createSet(ctx, ns, "app", perGroup(clusterv1alpha1.RolloutConfig{ProgressDeadline: "10m", MaxFailures: intstr.FromInt32(1)},
			clusterv1alpha1.MandatoryDecisionGroup{GroupName: "canary"}))
		expectWorksOn(ctx, set, cls[0], cls[1])
		agentReports(ctx, cls[0], "app", "done")
		agentReports(ctx, cls[1], "app", "failed")
		notRolledOut(ctx, set, "1 of 3 clusters rolled out; stopped: more clusters failed than maxFailures allows")
		consistentlyWorksOn(ctx, set, cls[0], cls[1])

		By("moving the clock past the failed cluster's progressDeadline")
		fakeClock.Step(10*time.Minute + time.Second)
		notRolledOut(ctx, set, "1 of 3 clusters rolled out, 1 past their progressDeadline; stopped: more clusters failed than maxFailures allows")
		consistentlyWorksOn(ctx, set, cls[0], cls[1])
	})

	It("Progressive updates a changed template one cluster at a time", func(ctx context.Context) {
		decide(ctx, ns, "place", 0, "", cls[0], cls[1])
		set := createSet(ctx, ns, "app", progressive(1, clusterv1alpha1.RolloutConfig{}))
		expectWorksOn(ctx, set, cls[0])
		agentReports(ctx, cls[0], "app", "done")
		expectWorksOn(ctx, set, cls[0], cls[1])
		agentReports(ctx, cls[1], "app", "done")

		By("changing the template")
		updateTemplate(ctx, set)
		Eventually(func(g Gomega) {
			works := worksOf(ctx, g, set)
			g.Expect(works[cls[0]].Spec.Workload.Manifests).To(HaveLen(2))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		Consistently(func(g Gomega) {
			g.Expect(worksOf(ctx, g, set)[cls[1]].Spec.Workload.Manifests).To(HaveLen(1))
		}).WithContext(ctx).WithTimeout(3 * time.Second).Should(Succeed())
		agentReports(ctx, cls[0], "app", "done")
		Eventually(func(g Gomega) {
			g.Expect(worksOf(ctx, g, set)[cls[1]].Spec.Workload.Manifests).To(HaveLen(2))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	})

	It("Progressive waits minSuccessTime after a changed template succeeded, though the agent's condition kept its time", func(ctx context.Context) {
		decide(ctx, ns, "place", 0, "", cls[0], cls[1])
		set := createSet(ctx, ns, "app", progressive(1, clusterv1alpha1.RolloutConfig{MinSuccessTime: metav1.Duration{Duration: 5 * time.Minute}}))
		expectWorksOn(ctx, set, cls[0])
		agentReports(ctx, cls[0], "app", "done")
		fakeClock.Step(5*time.Minute + time.Second)
		expectWorksOn(ctx, set, cls[0], cls[1])
		agentReports(ctx, cls[1], "app", "done")
		fakeClock.Step(5*time.Minute + time.Second)

		By("changing the template: the first cluster's agent says it is still done, since before")
		updateTemplate(ctx, set)
		Eventually(func(g Gomega) {
			g.Expect(worksOf(ctx, g, set)[cls[0]].Spec.Workload.Manifests).To(HaveLen(2))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		agentReports(ctx, cls[0], "app", "still done")
		Consistently(func(g Gomega) {
			g.Expect(worksOf(ctx, g, set)[cls[1]].Spec.Workload.Manifests).To(HaveLen(1))
		}).WithContext(ctx).WithTimeout(3 * time.Second).Should(Succeed())

		By("moving the clock past minSuccessTime from the change")
		fakeClock.Step(5*time.Minute + time.Second)
		Eventually(func(g Gomega) {
			g.Expect(worksOf(ctx, g, set)[cls[1]].Spec.Workload.Manifests).To(HaveLen(2))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	})
})
