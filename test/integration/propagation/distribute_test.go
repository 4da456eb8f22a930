package propagation_test

import (
	"context"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/testenv"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/distribute"
)

const (
	deliverTimeout = 30 * time.Second
	poll           = 100 * time.Millisecond
)

var _ = Describe("distribute", Ordered, func() {
	BeforeAll(func() { startDistributor(distribute.Options{}) })

	It("delivers the newest revision, follows a pin, and cleans up when deleted", func(ctx context.Context) {
		ns := freshNamespace(ctx)
		c1, c2 := clusterNamespace(ctx), clusterNamespace(ctx)
		decide(ctx, ns, "both", c1, c2)
		createRevision(ctx, ns, "web", 1, "blue")
		p := propagationOf(ns, "web", "both", clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All})
		Expect(c.Create(ctx, p)).To(Succeed())

		By("delivering revision 1 to both clusters")
		Eventually(worksOf).WithContext(ctx).WithArguments(ns, "web").WithTimeout(deliverTimeout).WithPolling(poll).
			Should(Equal(map[string]string{c1: "1", c2: "1"}))
		Eventually(func(g Gomega) {
			got := &v1alpha1.Propagation{}
			g.Expect(c.Get(ctx, client.ObjectKeyFromObject(p), got)).To(Succeed())
			g.Expect(got.Finalizers).To(ContainElement(v1alpha1.Finalizer))
			g.Expect(got.Status.DeliveredRevision).To(BeEquivalentTo(1))
			g.Expect(got.Status.Summary.Total).To(BeEquivalentTo(2))
			g.Expect(meta.IsStatusConditionTrue(got.Status.Conditions, v1alpha1.ConditionScheduled)).To(BeTrue())
		}).WithTimeout(deliverTimeout).WithPolling(poll).Should(Succeed())

		By("updating both to a new revision")
		createRevision(ctx, ns, "web", 2, "green")
		Eventually(worksOf).WithContext(ctx).WithArguments(ns, "web").WithTimeout(deliverTimeout).WithPolling(poll).
			Should(Equal(map[string]string{c1: "2", c2: "2"}))

		By("rolling back to revision 1 with a pin")
		Expect(c.Get(ctx, client.ObjectKeyFromObject(p), p)).To(Succeed())
		p.Spec.Revision = ptr.To[int64](1)
		Expect(c.Update(ctx, p)).To(Succeed())
		Eventually(worksOf).WithContext(ctx).WithArguments(ns, "web").WithTimeout(deliverTimeout).WithPolling(poll).
			Should(Equal(map[string]string{c1: "1", c2: "1"}))

		By("deleting the propagation: its works and its finalizer go")
		Expect(c.Delete(ctx, p)).To(Succeed())
		Eventually(worksOf).WithContext(ctx).WithArguments(ns, "web").WithTimeout(deliverTimeout).WithPolling(poll).Should(BeEmpty())
		Eventually(func() bool {
			return apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(p), &v1alpha1.Propagation{}))
		}).WithTimeout(deliverTimeout).WithPolling(poll).Should(BeTrue())
	})

	It("rolls out Progressive with maxConcurrency 1 one cluster at a time", func(ctx context.Context) {
		ns := freshNamespace(ctx)
		c1, c2 := clusterNamespace(ctx), clusterNamespace(ctx)
		decide(ctx, ns, "both", c1, c2)
		createRevision(ctx, ns, "web", 1, "blue")
		p := propagationOf(ns, "web", "both", clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.Progressive,
			Progressive: &clusterv1alpha1.RolloutProgressive{MaxConcurrency: intstr.FromInt32(1)}})
		Expect(c.Create(ctx, p)).To(Succeed())

		for _, revision := range []int64{1, 2} {
			want := strconv.FormatInt(revision, 10)
			if revision > 1 {
				createRevision(ctx, ns, "web", revision, "green")
			}
			By("giving revision " + want + " to one cluster first")
			var first string
			Eventually(func(g Gomega) {
				first = ""
				for cluster, rev := range worksOf(ctx, ns, "web") {
					if rev == want {
						g.Expect(first).To(BeEmpty(), "two clusters got revision %s at once", want)
						first = cluster
					}
				}
				g.Expect(first).NotTo(BeEmpty())
			}).WithTimeout(deliverTimeout).WithPolling(poll).Should(Succeed())
			Consistently(func() int { return count(worksOf(ctx, ns, "web"), want) }).
				WithTimeout(2 * time.Second).WithPolling(poll).Should(Equal(1))

			By("letting it proceed once the first cluster's work is available")
			markDone(ctx, first, distribute.WorkName(ns, "web", 0))
			Eventually(worksOf).WithContext(ctx).WithArguments(ns, "web").WithTimeout(deliverTimeout).WithPolling(poll).
				Should(Equal(map[string]string{c1: want, c2: want}))
			other := c1
			if first == c1 {
				other = c2
			}
			markDone(ctx, other, distribute.WorkName(ns, "web", 0))
		}
	})

	It("removes a leaving cluster's works, with deleteOption Orphan under Orphan", func(ctx context.Context) {
		ns := freshNamespace(ctx)
		c1, c2 := clusterNamespace(ctx), clusterNamespace(ctx)
		decide(ctx, ns, "both", c1, c2)
		createRevision(ctx, ns, "web", 1, "blue")
		p := propagationOf(ns, "web", "both", clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All})
		p.Spec.DeletionPolicy = v1alpha1.DeletionPolicyOrphan
		Expect(c.Create(ctx, p)).To(Succeed())

		Eventually(worksOf).WithContext(ctx).WithArguments(ns, "web").WithTimeout(deliverTimeout).WithPolling(poll).
			Should(Equal(map[string]string{c1: "1", c2: "1"}))
		for _, cluster := range []string{c1, c2} {
			w := &workv1.ManifestWork{}
			Expect(c.Get(ctx, client.ObjectKey{Namespace: cluster, Name: distribute.WorkName(ns, "web", 0)}, w)).To(Succeed())
			Expect(w.Spec.DeleteOption).To(Equal(&workv1.DeleteOption{PropagationPolicy: workv1.DeletePropagationPolicyTypeOrphan}))
		}

		By("taking the second cluster out of the decision")
		decide(ctx, ns, "both", c1)
		Eventually(worksOf).WithContext(ctx).WithArguments(ns, "web").WithTimeout(deliverTimeout).WithPolling(poll).
			Should(Equal(map[string]string{c1: "1"}))

		By("deleting the propagation")
		Expect(c.Delete(ctx, p)).To(Succeed())
		Eventually(worksOf).WithContext(ctx).WithArguments(ns, "web").WithTimeout(deliverTimeout).WithPolling(poll).Should(BeEmpty())
	})
})

// clusterNamespace creates the namespace of a fake managed cluster.
func clusterNamespace(ctx context.Context) string {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: testenv.UniqueName("cluster")}}
	Expect(c.Create(ctx, ns)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { Expect(c.Delete(ctx, ns)).To(Succeed()) })
	return ns.Name
}

// decide makes the Placement ns/name, if need be, and its one
// PlacementDecision select clusters, as the scheduler would.
func decide(ctx context.Context, ns, name string, clusters ...string) {
	GinkgoHelper()
	placement := &clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	if err := c.Create(ctx, placement); !apierrors.IsAlreadyExists(err) {
		Expect(err).NotTo(HaveOccurred())
	}
	pd := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-decision-1",
		Labels: map[string]string{clusterv1beta1.PlacementLabel: name, clusterv1beta1.DecisionGroupIndexLabel: "0"}}}
	if err := c.Create(ctx, pd); apierrors.IsAlreadyExists(err) {
		Expect(c.Get(ctx, client.ObjectKeyFromObject(pd), pd)).To(Succeed())
	} else {
		Expect(err).NotTo(HaveOccurred())
	}
	pd.Status.Decisions = nil
	for _, cluster := range clusters {
		pd.Status.Decisions = append(pd.Status.Decisions, clusterv1beta1.ClusterDecision{ClusterName: cluster, Reason: "test"})
	}
	Expect(c.Status().Update(ctx, pd)).To(Succeed())
}

// createRevision creates revision n of ns/name, holding a ConfigMap of
// that color, as the selector controller would.
func createRevision(ctx context.Context, ns, name string, n int64, color string) {
	GinkgoHelper()
	cm := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `","namespace":"` + ns + `"},"data":{"color":"` + color + `"}}`
	rev := &v1alpha1.PropagationRevision{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-" + strconv.FormatInt(n, 10),
			Labels: map[string]string{v1alpha1.LabelPropagation: name, v1alpha1.LabelRevision: strconv.FormatInt(n, 10)}},
		Spec: revisionSpec(n),
	}
	rev.Spec.Objects = []workv1.Manifest{manifest(cm)}
	Expect(c.Create(ctx, rev)).To(Succeed())
}

// propagationOf is the Propagation ns/name of a ConfigMap, to placement.
func propagationOf(ns, name, placement string, strategy clusterv1alpha1.RolloutStrategy) *v1alpha1.Propagation {
	return &v1alpha1.Propagation{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.PropagationSpec{
			ResourceSelectors: []v1alpha1.ResourceSelector{{Version: "v1", Kind: "ConfigMap", Name: name}},
			PlacementRefs:     []v1alpha1.LocalPlacementReference{{Name: placement, RolloutStrategy: strategy}},
		},
	}
}

// worksOf is the revision label of ns/name's work on each cluster.
func worksOf(ctx context.Context, ns, name string) map[string]string {
	GinkgoHelper()
	list := &workv1.ManifestWorkList{}
	Expect(c.List(ctx, list, client.MatchingLabels{v1alpha1.LabelPropagation: name, v1alpha1.LabelPropagationNamespace: ns})).To(Succeed())
	out := map[string]string{}
	for _, w := range list.Items {
		out[w.Namespace] = w.Labels[v1alpha1.LabelRevision]
	}
	return out
}

// count is how many clusters have revision.
func count(revisions map[string]string, revision string) int {
	n := 0
	for _, r := range revisions {
		if r == revision {
			n++
		}
	}
	return n
}

// markDone reports the work applied, available and done, as its agent
// would.
func markDone(ctx context.Context, cluster, name string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		w := &workv1.ManifestWork{}
		g.Expect(c.Get(ctx, client.ObjectKey{Namespace: cluster, Name: name}, w)).To(Succeed())
		for _, cond := range []metav1.Condition{
			{Type: workv1.WorkApplied, Status: metav1.ConditionTrue, Reason: "AppliedManifestWorkComplete"},
			{Type: workv1.WorkAvailable, Status: metav1.ConditionTrue, Reason: "ResourcesAvailable"},
			{Type: workv1.WorkProgressing, Status: metav1.ConditionFalse, Reason: "Completed"},
		} {
			cond.ObservedGeneration = w.Generation
			meta.SetStatusCondition(&w.Status.Conditions, cond)
		}
		g.Expect(c.Status().Update(ctx, w)).To(Succeed())
	}).WithTimeout(deliverTimeout).WithPolling(poll).Should(Succeed())
}
