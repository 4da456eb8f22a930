package workagent_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/work/agent/appliedwork"
)

// expectGone waits until the ConfigMap is gone from the managed cluster.
func expectGone(ctx context.Context, ns, name string) {
	GinkgoHelper()
	Eventually(func() error {
		_, err := getConfigMap(ctx, ns, name)
		return err
	}).WithContext(ctx).WithTimeout(timeout).Should(MatchError(ContainSubstring("not found")))
}

// expectKept checks the ConfigMap is on the managed cluster and owned by
// no AppliedManifestWork.
func expectKept(ctx context.Context, ns, name string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		cm, err := getConfigMap(ctx, ns, name)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(cm.OwnerReferences).To(BeEmpty())
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}

// expectEvicted waits until amw's eviction has started and checks that the
// ConfigMap ns/name it owns is kept through the grace period, then goes,
// and amw with it.
func expectEvicted(ctx context.Context, amw *workv1.AppliedManifestWork, ns, name string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		g.Expect(managed.Get(ctx, client.ObjectKeyFromObject(amw), amw)).To(Succeed())
		g.Expect(amw.Status.EvictionStartTime).NotTo(BeNil())
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	_, err := getConfigMap(ctx, ns, name)
	Expect(err).NotTo(HaveOccurred(), "kept during the grace period")
	expectGone(ctx, ns, name)
	Expect(time.Since(amw.Status.EvictionStartTime.Time)).To(BeNumerically(">=", evictionGrace-time.Second))
	expectAppliedWorkGone(ctx, amw)
}

// expectAppliedWorkGone waits until the AppliedManifestWork is gone.
func expectAppliedWorkGone(ctx context.Context, amw *workv1.AppliedManifestWork) {
	GinkgoHelper()
	Eventually(func() error {
		return managed.Get(ctx, client.ObjectKeyFromObject(amw), &workv1.AppliedManifestWork{})
	}).WithContext(ctx).WithTimeout(timeout).Should(MatchError(ContainSubstring("not found")))
}

var _ = Describe("Letting go of what a work applied", func() {
	It("deletes what a deleted work applied (Foreground) and nothing created by hand", func(ctx context.Context) {
		ns, w := createNamespace(ctx), name("work")
		Expect(managed.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "by-hand"}})).To(Succeed())
		createWork(ctx, w, workv1.ManifestWorkSpec{}, configMap(ns, "a", nil), configMap(ns, "b", nil))
		expectWorkCondition(ctx, w, workv1.WorkAvailable, metav1.ConditionTrue)
		deleteWork(ctx, w)
		expectGone(ctx, ns, "a")
		expectGone(ctx, ns, "b")
		_, err := getConfigMap(ctx, ns, "by-hand")
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() []workv1.AppliedManifestWork {
			l := &workv1.AppliedManifestWorkList{}
			Expect(managed.List(ctx, l)).To(Succeed())
			var mine []workv1.AppliedManifestWork
			for _, amw := range l.Items {
				if amw.Spec.ManifestWorkName == w {
					mine = append(mine, amw)
				}
			}
			return mine
		}).WithContext(ctx).WithTimeout(timeout).Should(BeEmpty())
	})

	It("keeps what a deleted work applied (Orphan)", func(ctx context.Context) {
		ns, w := createNamespace(ctx), name("work")
		createWork(ctx, w, workv1.ManifestWorkSpec{DeleteOption: &workv1.DeleteOption{PropagationPolicy: workv1.DeletePropagationPolicyTypeOrphan}},
			configMap(ns, "a", nil))
		expectWorkCondition(ctx, w, workv1.WorkAvailable, metav1.ConditionTrue)
		deleteWork(ctx, w)
		expectKept(ctx, ns, "a")
	})

	It("keeps only what the orphaning rules name (SelectivelyOrphan)", func(ctx context.Context) {
		ns, w := createNamespace(ctx), name("work")
		createWork(ctx, w, workv1.ManifestWorkSpec{DeleteOption: &workv1.DeleteOption{
			PropagationPolicy: workv1.DeletePropagationPolicyTypeSelectivelyOrphan,
			SelectivelyOrphan: &workv1.SelectivelyOrphan{OrphaningRules: []workv1.OrphaningRule{{Resource: "configmaps", Namespace: ns, Name: "keep"}}},
		}}, configMap(ns, "keep", nil), configMap(ns, "drop", nil))
		expectWorkCondition(ctx, w, workv1.WorkAvailable, metav1.ConditionTrue)
		deleteWork(ctx, w)
		expectGone(ctx, ns, "drop")
		expectKept(ctx, ns, "keep")
	})

	It("deletes a resource dropped from a work", func(ctx context.Context) {
		ns, w := createNamespace(ctx), name("work")
		createWork(ctx, w, workv1.ManifestWorkSpec{}, configMap(ns, "a", nil), configMap(ns, "b", nil))
		expectWorkCondition(ctx, w, workv1.WorkAvailable, metav1.ConditionTrue)
		setManifests(ctx, w, configMap(ns, "a", nil))
		expectGone(ctx, ns, "b")
		_, err := getConfigMap(ctx, ns, "a")
		Expect(err).NotTo(HaveOccurred())
	})

	DescribeTable("keeps a resource two works apply until both let go of it",
		func(ctx context.Context, strategy func(ns string) []workv1.ManifestConfigOption) {
			ns, w1, w2 := createNamespace(ctx), name("work"), name("work")
			createWork(ctx, w1, workv1.ManifestWorkSpec{ManifestConfigs: strategy(ns)}, configMap(ns, "shared", map[string]any{"a": "1"}))
			createWork(ctx, w2, workv1.ManifestWorkSpec{ManifestConfigs: strategy(ns)}, configMap(ns, "shared", map[string]any{"a": "1"}))
			expectWorkCondition(ctx, w1, workv1.WorkAvailable, metav1.ConditionTrue)
			expectWorkCondition(ctx, w2, workv1.WorkAvailable, metav1.ConditionTrue)
			owners := func(g Gomega) {
				cm, err := getConfigMap(ctx, ns, "shared")
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(cm.OwnerReferences).To(HaveLen(2))
			}
			Eventually(owners).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
			Consistently(owners).WithContext(ctx).WithTimeout(3 * time.Second).Should(Succeed()) // neither work takes the other's out

			deleteWork(ctx, w1)
			cm, err := getConfigMap(ctx, ns, "shared")
			Expect(err).NotTo(HaveOccurred())
			Expect(cm.OwnerReferences).To(HaveLen(1))
			deleteWork(ctx, w2)
			expectGone(ctx, ns, "shared")
		},
		Entry("with Update", func(string) []workv1.ManifestConfigOption { return nil }),
		Entry("with ServerSideApply", func(ns string) []workv1.ManifestConfigOption {
			return []workv1.ManifestConfigOption{ssa(ns, "shared", workv1.ServerSideApplyConfig{})}
		}),
	)

	It("releases what a live work applied when its AppliedManifestWork is deleted by hand, then applies it anew", func(ctx context.Context) {
		ns, w := createNamespace(ctx), name("work")
		createWork(ctx, w, workv1.ManifestWorkSpec{}, configMap(ns, "a", nil))
		expectWorkCondition(ctx, w, workv1.WorkApplied, metav1.ConditionTrue)
		before, err := getConfigMap(ctx, ns, "a")
		Expect(err).NotTo(HaveOccurred())
		amw := &workv1.AppliedManifestWork{}
		Expect(managed.Get(ctx, client.ObjectKey{Name: appliedwork.Name(appliedwork.HubHash(hubCluster.Config.Host), w)}, amw)).To(Succeed())

		Expect(managed.Delete(ctx, amw)).To(Succeed())
		Eventually(func(g Gomega) {
			again := &workv1.AppliedManifestWork{}
			g.Expect(managed.Get(ctx, client.ObjectKeyFromObject(amw), again)).To(Succeed())
			g.Expect(again.UID).NotTo(Equal(amw.UID), "a new record")
			g.Expect(again.DeletionTimestamp).To(BeNil())
			cm, err := getConfigMap(ctx, ns, "a")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(cm.UID).NotTo(Equal(before.UID), "released with the old record, then applied anew")
			g.Expect(cm.OwnerReferences).To(ContainElement(HaveField("UID", again.UID)))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	})

	It("evicts what a work applied only after the grace period when the work vanishes from the hub", func(ctx context.Context) {
		// What the managed cluster holds when a hub lost a ManifestWork
		// the agent had applied: its AppliedManifestWork and what it applied.
		ns, w := createNamespace(ctx), name("work")
		amw := &workv1.AppliedManifestWork{
			ObjectMeta: metav1.ObjectMeta{Name: appliedwork.Name(appliedwork.HubHash(hubCluster.Config.Host), w)},
			Spec:       workv1.AppliedManifestWorkSpec{HubHash: appliedwork.HubHash(hubCluster.Config.Host), AgentID: clusterName, ManifestWorkName: w},
		}
		Expect(managed.Create(ctx, amw)).To(Succeed())
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "a",
			OwnerReferences: []metav1.OwnerReference{appliedwork.Owner(amw)}}}
		Expect(managed.Create(ctx, cm)).To(Succeed())
		// The agent may be writing the eviction start time at the same moment.
		Eventually(func() error {
			if err := managed.Get(ctx, client.ObjectKeyFromObject(amw), amw); err != nil {
				return err
			}
			amw.Status.AppliedResources = []workv1.AppliedManifestResourceMeta{{
				ResourceIdentifier: workv1.ResourceIdentifier{Resource: "configmaps", Namespace: ns, Name: "a"}, Version: "v1", UID: string(cm.UID)}}
			return managed.Status().Update(ctx, amw)
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		expectEvicted(ctx, amw, ns, "a")
	})
})
