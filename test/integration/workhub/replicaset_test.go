package workhub_test

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

var _ = Describe("ManifestWorkReplicaSet with the All strategy", func() {
	var (
		ns  string
		cls []string
	)
	BeforeEach(func(ctx context.Context) {
		ns = newNamespace(ctx, "mwrs")
		cls = clusters(ctx, 3)
	})

	It("creates one labelled work per decided cluster and follows the decisions as they change", func(ctx context.Context) {
		createPlacement(ctx, ns, "place")
		decide(ctx, ns, "place", 0, "", cls[0], cls[1])
		set := createSet(ctx, ns, "app", workv1alpha1.LocalPlacementReference{Name: "place"})

		expectWorksOn(ctx, set, cls[0], cls[1])
		w := &workv1.ManifestWork{}
		Expect(admin.Get(ctx, client.ObjectKey{Namespace: cls[0], Name: "app"}, w)).To(Succeed())
		Expect(w.Labels).To(HaveKeyWithValue(workv1alpha1.ManifestWorkReplicaSetControllerNameLabelKey, ns+".app"))
		Expect(w.Labels).To(HaveKeyWithValue(workv1alpha1.ManifestWorkReplicaSetPlacementNameLabelKey, "place"))
		Expect(w.Spec.Workload.Manifests).To(HaveLen(1))
		expectSet(ctx, set, func(g Gomega, s *workv1alpha1.ManifestWorkReplicaSet) {
			g.Expect(s.Finalizers).To(ContainElement(workv1alpha1.ManifestWorkReplicaSetFinalizer))
			g.Expect(s.Status.Summary.Total).To(Equal(2))
			g.Expect(s.Status.Summary.DesiredTotal).To(Equal(2))
			g.Expect(condition(s, workv1alpha1.ManifestWorkReplicaSetConditionPlacementVerified).Reason).To(Equal(workv1alpha1.ReasonAsExpected))
			g.Expect(condition(s, workv1alpha1.ManifestWorkReplicaSetConditionManifestworkApplied).Reason).To(Equal(workv1alpha1.ReasonProcessing))
		})

		By("moving the decision from the first cluster to the third")
		decide(ctx, ns, "place", 0, "", cls[1], cls[2])
		expectWorksOn(ctx, set, cls[1], cls[2])
	})

	It("sums up the works' statuses and says when every cluster has it applied and available", func(ctx context.Context) {
		createPlacement(ctx, ns, "place")
		decide(ctx, ns, "place", 0, "", cls[0], cls[1])
		set := createSet(ctx, ns, "app", workv1alpha1.LocalPlacementReference{Name: "place"})
		expectWorksOn(ctx, set, cls[0], cls[1])

		agentReports(ctx, cls[0], "app", "done")
		agentReports(ctx, cls[1], "app", "failed")
		expectSet(ctx, set, func(g Gomega, s *workv1alpha1.ManifestWorkReplicaSet) {
			g.Expect(s.Status.Summary).To(Equal(workv1alpha1.ManifestWorkReplicaSetSummary{
				Total: 2, DesiredTotal: 2, Applied: 2, Updated: 2, Available: 1, Degraded: 1, Progressing: 1,
			}))
			c := condition(s, workv1alpha1.ManifestWorkReplicaSetConditionManifestworkApplied)
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(c.Reason).To(Equal(workv1alpha1.ReasonNotAsExpected))
			g.Expect(c.Message).To(ContainSubstring("1 of 2 ManifestWorks are Degraded"))
			g.Expect(s.Status.PlacementsSummary).To(HaveLen(1))
			g.Expect(s.Status.PlacementsSummary[0].Name).To(Equal("place"))
			g.Expect(s.Status.PlacementsSummary[0].AvailableDecisionGroups).To(Equal("0/1"))
			g.Expect(condition(s, workv1alpha1.ManifestWorkReplicaSetConditionPlacementRolledOut).Status).To(Equal(metav1.ConditionFalse))
		})

		agentReports(ctx, cls[1], "app", "done")
		expectSet(ctx, set, func(g Gomega, s *workv1alpha1.ManifestWorkReplicaSet) {
			g.Expect(s.Status.Summary.Available).To(Equal(2))
			c := condition(s, workv1alpha1.ManifestWorkReplicaSetConditionManifestworkApplied)
			g.Expect(c.Status).To(Equal(metav1.ConditionTrue), c.Message)
			g.Expect(c.Reason).To(Equal(workv1alpha1.ReasonAsExpected))
			g.Expect(s.Status.PlacementsSummary[0].AvailableDecisionGroups).To(Equal("1/1"))
			r := condition(s, workv1alpha1.ManifestWorkReplicaSetConditionPlacementRolledOut)
			g.Expect(r.Status).To(Equal(metav1.ConditionTrue), r.Message)
			g.Expect(r.Reason).To(Equal(workv1alpha1.ReasonComplete))
		})
	})

	It("reads every PlacementDecision of a placement", func(ctx context.Context) {
		createPlacement(ctx, ns, "place")
		decide(ctx, ns, "place", 0, "", cls[0])
		decide(ctx, ns, "place", 1, "", cls[1], cls[2])
		set := createSet(ctx, ns, "app", workv1alpha1.LocalPlacementReference{Name: "place"})
		expectWorksOn(ctx, set, cls...)
	})

	It("updates its works when the template changes", func(ctx context.Context) {
		createPlacement(ctx, ns, "place")
		decide(ctx, ns, "place", 0, "", cls[0], cls[1])
		set := createSet(ctx, ns, "app", workv1alpha1.LocalPlacementReference{Name: "place"})
		expectWorksOn(ctx, set, cls[0], cls[1])

		updateTemplate(ctx, set)
		Eventually(func(g Gomega) {
			for _, w := range worksOf(ctx, g, set) {
				g.Expect(w.Spec.Workload.Manifests).To(HaveLen(2), w.Namespace)
			}
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	})

	It("deletes its works with it", func(ctx context.Context) {
		createPlacement(ctx, ns, "place")
		decide(ctx, ns, "place", 0, "", cls...)
		set := createSet(ctx, ns, "app", workv1alpha1.LocalPlacementReference{Name: "place"})
		expectWorksOn(ctx, set, cls...)
		expectSet(ctx, set, func(g Gomega, s *workv1alpha1.ManifestWorkReplicaSet) {
			g.Expect(s.Finalizers).To(ContainElement(workv1alpha1.ManifestWorkReplicaSetFinalizer))
		})

		Expect(admin.Delete(ctx, set)).To(Succeed())
		expectWorksOn(ctx, set)
		Eventually(func() error {
			return admin.Get(ctx, client.ObjectKeyFromObject(set), &workv1alpha1.ManifestWorkReplicaSet{})
		}).WithContext(ctx).WithTimeout(timeout).Should(Satisfy(apierrors.IsNotFound))
	})

	DescribeTable("deleting a set whose work an agent still holds",
		func(ctx context.Context, policy workv1alpha1.CascadeDeletionPolicy, setWaits bool) {
			createPlacement(ctx, ns, "place")
			decide(ctx, ns, "place", 0, "", cls[0])
			set := createSet(ctx, ns, "app", workv1alpha1.LocalPlacementReference{Name: "place"})
			before := set.DeepCopy()
			set.Spec.CascadeDeletionPolicy = policy
			Expect(admin.Patch(ctx, set, client.MergeFrom(before))).To(Succeed())
			expectWorksOn(ctx, set, cls[0])
			By("holding the work, as its agent does until it has removed what it applied")
			Eventually(func(g Gomega) {
				w := &workv1.ManifestWork{}
				g.Expect(admin.Get(ctx, client.ObjectKey{Namespace: cls[0], Name: "app"}, w)).To(Succeed())
				w.Finalizers = append(w.Finalizers, holdFinalizer)
				g.Expect(admin.Update(ctx, w)).To(Succeed())
			}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

			Expect(admin.Delete(ctx, set)).To(Succeed())
			Eventually(func(g Gomega) {
				w := &workv1.ManifestWork{}
				g.Expect(admin.Get(ctx, client.ObjectKey{Namespace: cls[0], Name: "app"}, w)).To(Succeed())
				g.Expect(w.DeletionTimestamp).NotTo(BeNil())
			}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
			setExists := func() error {
				return admin.Get(ctx, client.ObjectKeyFromObject(set), &workv1alpha1.ManifestWorkReplicaSet{})
			}
			if setWaits {
				Consistently(setExists).WithContext(ctx).WithTimeout(3 * time.Second).Should(Succeed())
			} else {
				Eventually(setExists).WithContext(ctx).WithTimeout(timeout).Should(Satisfy(apierrors.IsNotFound))
			}
			release(ctx, cls[0], "app")
			Eventually(setExists).WithContext(ctx).WithTimeout(timeout).Should(Satisfy(apierrors.IsNotFound))
			expectWorksOn(ctx, set)
		},
		Entry("Background (the default) goes at once, its work going on its own", workv1alpha1.Background, false),
		Entry("Foreground stays until its work is gone", workv1alpha1.Foreground, true),
	)

	It("deletes the works of a placement it no longer names", func(ctx context.Context) {
		createPlacement(ctx, ns, "one")
		createPlacement(ctx, ns, "two")
		decide(ctx, ns, "one", 0, "", cls[0])
		decide(ctx, ns, "two", 0, "", cls[1])
		set := createSet(ctx, ns, "app", workv1alpha1.LocalPlacementReference{Name: "one"}, workv1alpha1.LocalPlacementReference{Name: "two"})
		expectWorksOn(ctx, set, cls[0], cls[1])

		Eventually(func() error {
			s := &workv1alpha1.ManifestWorkReplicaSet{}
			if err := admin.Get(ctx, client.ObjectKeyFromObject(set), s); err != nil {
				return err
			}
			s.Spec.PlacementRefs = s.Spec.PlacementRefs[1:]
			return admin.Update(ctx, s)
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		expectWorksOn(ctx, set, cls[1])
	})

	It("says when its placement does not exist or selects no cluster", func(ctx context.Context) {
		set := createSet(ctx, ns, "app", workv1alpha1.LocalPlacementReference{Name: "missing"})
		expectSet(ctx, set, func(g Gomega, s *workv1alpha1.ManifestWorkReplicaSet) {
			c := condition(s, workv1alpha1.ManifestWorkReplicaSetConditionPlacementVerified)
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(c.Reason).To(Equal(workv1alpha1.ReasonPlacementDecisionNotFound))
			g.Expect(c.Message).To(ContainSubstring("Placement missing not found"))
		})

		createPlacement(ctx, ns, "missing")
		expectSet(ctx, set, func(g Gomega, s *workv1alpha1.ManifestWorkReplicaSet) {
			g.Expect(condition(s, workv1alpha1.ManifestWorkReplicaSetConditionPlacementVerified).Reason).To(Equal(workv1alpha1.ReasonPlacementDecisionEmpty))
			g.Expect(condition(s, workv1alpha1.ManifestWorkReplicaSetConditionManifestworkApplied).Reason).To(Equal(workv1alpha1.ReasonPlacementDecisionEmpty))
		})
	})

	It("leaves alone a work of the same name that is not its own, and says so", func(ctx context.Context) {
		mine := &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: cls[0], Name: "app"},
			Spec: workv1.ManifestWorkSpec{Workload: workv1.ManifestsTemplate{Manifests: []workv1.Manifest{configMap("hand-made", nil)}}}}
		Expect(admin.Create(ctx, mine)).To(Succeed())
		createPlacement(ctx, ns, "place")
		decide(ctx, ns, "place", 0, "", cls[0], cls[1])
		set := createSet(ctx, ns, "app", workv1alpha1.LocalPlacementReference{Name: "place"})

		expectWorksOn(ctx, set, cls[1])
		expectSet(ctx, set, func(g Gomega, s *workv1alpha1.ManifestWorkReplicaSet) {
			c := condition(s, workv1alpha1.ManifestWorkReplicaSetConditionManifestworkApplied)
			g.Expect(c.Reason).To(Equal(workv1alpha1.ReasonNotAsExpected))
			g.Expect(c.Message).To(ContainSubstring(fmt.Sprintf("ManifestWork %s/app exists and is not this set's", cls[0])))
		})
		Expect(admin.Get(ctx, client.ObjectKeyFromObject(mine), mine)).To(Succeed())
		Expect(mine.Labels).NotTo(HaveKey(workv1alpha1.ManifestWorkReplicaSetControllerNameLabelKey))
		Expect(string(mine.Spec.Workload.Manifests[0].Raw)).To(ContainSubstring("hand-made"))

		By("deleting the set, the hand-made work stays")
		Expect(admin.Delete(ctx, set)).To(Succeed())
		expectWorksOn(ctx, set)
		Consistently(func() error { return admin.Get(ctx, client.ObjectKeyFromObject(mine), &workv1.ManifestWork{}) }).
			WithContext(ctx).WithTimeout(2 * 1e9).Should(Succeed())
	})
})

// updateTemplate adds a second ConfigMap to the set's template.
func updateTemplate(ctx context.Context, set *workv1alpha1.ManifestWorkReplicaSet) {
	GinkgoHelper()
	Eventually(func() error {
		s := &workv1alpha1.ManifestWorkReplicaSet{}
		if err := admin.Get(ctx, client.ObjectKeyFromObject(set), s); err != nil {
			return err
		}
		s.Spec.ManifestWorkTemplate.Workload.Manifests = append(s.Spec.ManifestWorkTemplate.Workload.Manifests, configMap("second", nil))
		return admin.Update(ctx, s)
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}
