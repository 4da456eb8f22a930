package workhub_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
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

	It("Progressive counts a cluster past progressDeadline as failed and stops beyond maxFailures", func(ctx context.Context) {
		decide(ctx, ns, "place", 0, "", cls...)
		set := createSet(ctx, ns, "app", progressive(1, clusterv1alpha1.RolloutConfig{ProgressDeadline: "10m", MaxFailures: intstr.FromInt32(1)}))
		expectWorksOn(ctx, set, cls[0])
		agentReports(ctx, cls[0], "app", "progressing")
		consistentlyWorksOn(ctx, set, cls[0])

		By("moving the clock past the first cluster's progressDeadline: one failure is allowed")
		fakeClock.Step(10*time.Minute + time.Second)
		expectWorksOn(ctx, set, cls[0], cls[1])

		By("failing the second cluster past its deadline too: more than maxFailures")
		agentReports(ctx, cls[1], "app", "failed")
		fakeClock.Step(10*time.Minute + time.Second)
		expectSet(ctx, set, func(g Gomega, s *workv1alpha1.ManifestWorkReplicaSet) {
			c := condition(s, workv1alpha1.ManifestWorkReplicaSetConditionPlacementRolledOut)
			g.Expect(c.Message).To(ContainSubstring("stopped: more clusters failed than maxFailures allows"))
		})
		consistentlyWorksOn(ctx, set, cls[0], cls[1])
	})

	It("Progressive rolls out to the mandatory decision groups first", func(ctx context.Context) {
		decide(ctx, ns, "place", 0, "", cls[0], cls[1])
		decide(ctx, ns, "place", 1, "canary", cls[2])
		set := createSet(ctx, ns, "app", progressive(2, clusterv1alpha1.RolloutConfig{}, clusterv1alpha1.MandatoryDecisionGroup{GroupName: "canary"}))
		expectWorksOn(ctx, set, cls[2])
		consistentlyWorksOn(ctx, set, cls[2])
		agentReports(ctx, cls[2], "app", "done")
		expectWorksOn(ctx, set, cls...)
	})

	It("ProgressivePerGroup applies to one decision group at a time", func(ctx context.Context) {
		decide(ctx, ns, "place", 0, "", cls[0])
		decide(ctx, ns, "place", 1, "", cls[1], cls[2])
		set := createSet(ctx, ns, "app", workv1alpha1.LocalPlacementReference{Name: "place", RolloutStrategy: clusterv1alpha1.RolloutStrategy{
			Type: clusterv1alpha1.ProgressivePerGroup, ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{},
		}})
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
})
