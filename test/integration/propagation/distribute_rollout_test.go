package propagation_test

import (
	"context"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/intstr"
	clocktesting "k8s.io/utils/clock/testing"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/corral-dev/corral/internal/testenv"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/distribute"
)

// holdFinalizer keeps a deleted work in sight, as a work agent's
// finalizer does until it has removed (or orphaned) the objects.
const holdFinalizer = "test.corral.dev/hold"

var _ = Describe("distribute, rollouts in time", Ordered, func() {
	// clock is the distributor's: minSuccessTime and progressDeadline
	// pass only when a spec steps it.
	var clock *clocktesting.FakeClock

	BeforeAll(func() {
		clock = clocktesting.NewFakeClock(time.Now())
		startDistributor(distribute.Options{Clock: clock})
	})

	It("Progressive waits minSuccessTime after a cluster succeeded before the next", func(ctx context.Context) {
		ns := freshNamespace(ctx)
		c1, c2 := clusterNamespace(ctx), clusterNamespace(ctx)
		decide(ctx, ns, "both", c1, c2)
		createRevision(ctx, ns, "web", 1, "blue")
		Expect(c.Create(ctx, propagationOf(ns, "web", "both", clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.Progressive,
			Progressive: &clusterv1alpha1.RolloutProgressive{MaxConcurrency: intstr.FromInt32(1),
				RolloutConfig: clusterv1alpha1.RolloutConfig{MinSuccessTime: metav1.Duration{Duration: time.Hour}}}}))).To(Succeed())

		first := onlyOne(ctx, ns, "web", "1")
		markDone(ctx, first, distribute.WorkName(ns, "web", 0))
		By("the first cluster succeeded: the second waits for minSuccessTime")
		Consistently(func() int { return count(worksOf(ctx, ns, "web"), "1") }).
			WithTimeout(consistently).WithPolling(poll).Should(Equal(1))
		By("an hour later on the clock, the second cluster gets it")
		clock.Step(2 * time.Hour)
		Eventually(worksOf).WithContext(ctx).WithArguments(ns, "web").WithTimeout(deliverTimeout).WithPolling(poll).
			Should(Equal(map[string]string{c1: "1", c2: "1"}))
	})

	It("Progressive moves past a cluster over its progressDeadline, within maxFailures, and says it failed", func(ctx context.Context) {
		ns := freshNamespace(ctx)
		c1, c2 := clusterNamespace(ctx), clusterNamespace(ctx)
		decide(ctx, ns, "both", c1, c2)
		createRevision(ctx, ns, "web", 1, "blue")
		Expect(c.Create(ctx, propagationOf(ns, "web", "both", clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.Progressive,
			Progressive: &clusterv1alpha1.RolloutProgressive{MaxConcurrency: intstr.FromInt32(1),
				RolloutConfig: clusterv1alpha1.RolloutConfig{ProgressDeadline: "10m", MaxFailures: intstr.FromInt32(1)}}}))).To(Succeed())

		stuck := onlyOne(ctx, ns, "web", "1")
		By("the first cluster never finishes: the second waits until the deadline")
		Consistently(func() int { return count(worksOf(ctx, ns, "web"), "1") }).
			WithTimeout(consistently).WithPolling(poll).Should(Equal(1))
		clock.Step(11 * time.Minute)
		Eventually(worksOf).WithContext(ctx).WithArguments(ns, "web").WithTimeout(deliverTimeout).WithPolling(poll).
			Should(Equal(map[string]string{c1: "1", c2: "1"}))
		Eventually(func(g Gomega) {
			got := &v1alpha1.Propagation{}
			g.Expect(c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, got)).To(Succeed())
			failed := clusterCondition(got.Status, stuck, v1alpha1.ConditionFailed)
			g.Expect(failed).NotTo(BeNil())
			g.Expect(failed.Status).To(Equal(metav1.ConditionTrue))
			g.Expect(failed.Reason).To(Equal(distribute.ReasonProgressDeadlineExceeded))
		}).WithTimeout(deliverTimeout).WithPolling(poll).Should(Succeed())
	})

	It("Progressive stops at a cluster over its progressDeadline with maxFailures 0", func(ctx context.Context) {
		ns := freshNamespace(ctx)
		c1, c2 := clusterNamespace(ctx), clusterNamespace(ctx)
		decide(ctx, ns, "both", c1, c2)
		createRevision(ctx, ns, "web", 1, "blue")
		Expect(c.Create(ctx, propagationOf(ns, "web", "both", clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.Progressive,
			Progressive: &clusterv1alpha1.RolloutProgressive{MaxConcurrency: intstr.FromInt32(1),
				RolloutConfig: clusterv1alpha1.RolloutConfig{ProgressDeadline: "10m"}}}))).To(Succeed())

		onlyOne(ctx, ns, "web", "1")
		clock.Step(11 * time.Minute)
		Consistently(func() int { return count(worksOf(ctx, ns, "web"), "1") }).
			WithTimeout(consistently).WithPolling(poll).Should(Equal(1))
	})

	It("ProgressivePerGroup rolls out one decision group at a time, minSuccessTime apart", func(ctx context.Context) {
		ns := freshNamespace(ctx)
		c1, c2, c3 := clusterNamespace(ctx), clusterNamespace(ctx), clusterNamespace(ctx)
		decideGroups(ctx, ns, "groups", []string{c1, c2}, []string{c3})
		createRevision(ctx, ns, "web", 1, "blue")
		Expect(c.Create(ctx, propagationOf(ns, "web", "groups", clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.ProgressivePerGroup,
			ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{
				RolloutConfig: clusterv1alpha1.RolloutConfig{MinSuccessTime: metav1.Duration{Duration: time.Hour}}}}))).To(Succeed())

		By("group 0, both its clusters at once")
		Eventually(worksOf).WithContext(ctx).WithArguments(ns, "web").WithTimeout(deliverTimeout).WithPolling(poll).
			Should(Equal(map[string]string{c1: "1", c2: "1"}))
		markDone(ctx, c1, distribute.WorkName(ns, "web", 0))
		By("group 1 waits while a cluster of group 0 is in progress, then for minSuccessTime")
		Consistently(worksOf).WithContext(ctx).WithArguments(ns, "web").WithTimeout(consistently).WithPolling(poll).
			Should(Equal(map[string]string{c1: "1", c2: "1"}))
		markDone(ctx, c2, distribute.WorkName(ns, "web", 0))
		Consistently(worksOf).WithContext(ctx).WithArguments(ns, "web").WithTimeout(consistently).WithPolling(poll).
			Should(Equal(map[string]string{c1: "1", c2: "1"}))
		clock.Step(2 * time.Hour)
		Eventually(worksOf).WithContext(ctx).WithArguments(ns, "web").WithTimeout(deliverTimeout).WithPolling(poll).
			Should(Equal(map[string]string{c1: "1", c2: "1", c3: "1"}))
	})

	It("gives a cluster joining the placement the current revision", func(ctx context.Context) {
		ns := freshNamespace(ctx)
		c1, c2 := clusterNamespace(ctx), clusterNamespace(ctx)
		decide(ctx, ns, "all", c1)
		createRevision(ctx, ns, "web", 1, "blue")
		Expect(c.Create(ctx, propagationOf(ns, "web", "all", clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All}))).To(Succeed())
		Eventually(worksOf).WithContext(ctx).WithArguments(ns, "web").WithTimeout(deliverTimeout).WithPolling(poll).
			Should(Equal(map[string]string{c1: "1"}))
		createRevision(ctx, ns, "web", 2, "green")
		Eventually(worksOf).WithContext(ctx).WithArguments(ns, "web").WithTimeout(deliverTimeout).WithPolling(poll).
			Should(Equal(map[string]string{c1: "2"}))

		By("a second cluster joins: it gets revision 2, not 1")
		decide(ctx, ns, "all", c1, c2)
		Eventually(worksOf).WithContext(ctx).WithArguments(ns, "web").WithTimeout(deliverTimeout).WithPolling(poll).
			Should(Equal(map[string]string{c1: "2", c2: "2"}))
	})

	for _, policy := range []v1alpha1.DeletionPolicy{v1alpha1.DeletionPolicyDelete, v1alpha1.DeletionPolicyOrphan} {
		It("distributes a ClusterPropagation as cprop works and deletes it with "+string(policy), func(ctx context.Context) {
			ns := freshNamespace(ctx)
			c1, c2 := clusterNamespace(ctx), clusterNamespace(ctx)
			decide(ctx, ns, "both", c1, c2)
			name := testenv.UniqueName("ops")
			createClusterRevision(ctx, name, 1)
			cp := &v1alpha1.ClusterPropagation{
				ObjectMeta: metav1.ObjectMeta{Name: name},
				Spec: v1alpha1.ClusterPropagationSpec{
					ResourceSelectors: []v1alpha1.ClusterResourceSelector{{ResourceSelector: v1alpha1.ResourceSelector{
						Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole", Name: name}}},
					PlacementRefs: []v1alpha1.PlacementReference{{Namespace: ns, LocalPlacementReference: v1alpha1.LocalPlacementReference{
						Name: "both", RolloutStrategy: clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All}}}},
					PropagationPolicy: v1alpha1.PropagationPolicy{DeletionPolicy: policy},
				},
			}
			Expect(c.Create(ctx, cp)).To(Succeed())

			By("delivering it to both clusters as " + distribute.WorkName("", name, 0))
			Eventually(clusterWorksOf).WithContext(ctx).WithArguments(name).WithTimeout(deliverTimeout).WithPolling(poll).
				Should(Equal(map[string]string{c1 + "/" + distribute.WorkName("", name, 0): "1", c2 + "/" + distribute.WorkName("", name, 0): "1"}))
			for _, cluster := range []string{c1, c2} {
				Eventually(func(g Gomega) {
					w := &workv1.ManifestWork{}
					g.Expect(c.Get(ctx, client.ObjectKey{Namespace: cluster, Name: distribute.WorkName("", name, 0)}, w)).To(Succeed())
					controllerutil.AddFinalizer(w, holdFinalizer)
					g.Expect(c.Update(ctx, w)).To(Succeed())
				}).WithTimeout(deliverTimeout).WithPolling(poll).Should(Succeed())
			}

			By("deleting it: its works are deleted, with deleteOption Orphan under Orphan only")
			Expect(c.Delete(ctx, cp)).To(Succeed())
			for _, cluster := range []string{c1, c2} {
				Eventually(func(g Gomega) {
					w := &workv1.ManifestWork{}
					g.Expect(c.Get(ctx, client.ObjectKey{Namespace: cluster, Name: distribute.WorkName("", name, 0)}, w)).To(Succeed())
					g.Expect(w.DeletionTimestamp.IsZero()).To(BeFalse(), "work on %s not deleted", cluster)
					if policy == v1alpha1.DeletionPolicyOrphan {
						g.Expect(w.Spec.DeleteOption).To(Equal(&workv1.DeleteOption{PropagationPolicy: workv1.DeletePropagationPolicyTypeOrphan}))
					} else {
						g.Expect(w.Spec.DeleteOption).To(Or(BeNil(), HaveField("PropagationPolicy", Not(Equal(workv1.DeletePropagationPolicyTypeOrphan)))))
					}
					controllerutil.RemoveFinalizer(w, holdFinalizer)
					g.Expect(c.Update(ctx, w)).To(Succeed())
				}).WithTimeout(deliverTimeout).WithPolling(poll).Should(Succeed())
			}
			Eventually(clusterWorksOf).WithContext(ctx).WithArguments(name).WithTimeout(deliverTimeout).WithPolling(poll).Should(BeEmpty())
			Eventually(func() bool {
				return apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(cp), &v1alpha1.ClusterPropagation{}))
			}).WithTimeout(deliverTimeout).WithPolling(poll).Should(BeTrue())
		})
	}
})

// onlyOne waits until exactly one cluster has ns/name's work of
// revision, and says which.
func onlyOne(ctx context.Context, ns, name, revision string) string {
	GinkgoHelper()
	var first string
	Eventually(func(g Gomega) {
		first = ""
		for cluster, rev := range worksOf(ctx, ns, name) {
			if rev == revision {
				g.Expect(first).To(BeEmpty(), "two clusters got revision %s at once", revision)
				first = cluster
			}
		}
		g.Expect(first).NotTo(BeEmpty())
	}).WithTimeout(deliverTimeout).WithPolling(poll).Should(Succeed())
	return first
}

// decideGroups makes the Placement ns/name and one PlacementDecision per
// decision group, group i selecting groups[i], as the scheduler would.
func decideGroups(ctx context.Context, ns, name string, groups ...[]string) {
	GinkgoHelper()
	Expect(c.Create(ctx, &clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}})).To(Succeed())
	for i, clusters := range groups {
		pd := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-decision-" + strconv.Itoa(i+1),
			Labels: map[string]string{clusterv1beta1.PlacementLabel: name, clusterv1beta1.DecisionGroupIndexLabel: strconv.Itoa(i)}}}
		Expect(c.Create(ctx, pd)).To(Succeed())
		for _, cluster := range clusters {
			pd.Status.Decisions = append(pd.Status.Decisions, clusterv1beta1.ClusterDecision{ClusterName: cluster, Reason: "test"})
		}
		Expect(c.Status().Update(ctx, pd)).To(Succeed())
	}
}

// createClusterRevision creates revision n of the ClusterPropagation
// name, holding a ClusterRole of that name, as the selector would.
func createClusterRevision(ctx context.Context, name string, n int64) {
	GinkgoHelper()
	role := `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"` + name + `"},"rules":[]}`
	rev := &v1alpha1.ClusterPropagationRevision{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-" + strconv.FormatInt(n, 10),
			Labels: map[string]string{v1alpha1.LabelPropagation: name, v1alpha1.LabelRevision: strconv.FormatInt(n, 10)}},
		Spec: revisionSpec(n),
	}
	rev.Spec.Objects = []workv1.Manifest{manifest(role)}
	Expect(c.Create(ctx, rev)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { Expect(client.IgnoreNotFound(c.Delete(ctx, rev))).To(Succeed()) })
}

// clusterWorksOf is the revision label of each work of the
// ClusterPropagation name, by <cluster>/<work>.
func clusterWorksOf(ctx context.Context, name string) map[string]string {
	GinkgoHelper()
	noNamespace, err := labels.NewRequirement(v1alpha1.LabelPropagationNamespace, selection.DoesNotExist, nil)
	Expect(err).NotTo(HaveOccurred())
	own, err := labels.NewRequirement(v1alpha1.LabelPropagation, selection.Equals, []string{name})
	Expect(err).NotTo(HaveOccurred())
	list := &workv1.ManifestWorkList{}
	Expect(c.List(ctx, list, client.MatchingLabelsSelector{Selector: labels.NewSelector().Add(*own, *noNamespace)})).To(Succeed())
	out := map[string]string{}
	for _, w := range list.Items {
		out[w.Namespace+"/"+w.Name] = w.Labels[v1alpha1.LabelRevision]
	}
	return out
}

// clusterCondition is condType of cluster in status, nil when it has
// none.
func clusterCondition(status v1alpha1.PropagationStatus, cluster, condType string) *metav1.Condition {
	for _, cs := range status.Clusters {
		if cs.Cluster == cluster {
			return meta.FindStatusCondition(cs.Conditions, condType)
		}
	}
	return nil
}
