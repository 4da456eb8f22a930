package registration_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/registration/hub/clusterset"
	"github.com/corral-dev/corral/registration/hub/clustersetbinding"
)

// newSet creates a ManagedClusterSet with a fresh name, deleted after the
// spec; a nil selector makes it an ExclusiveClusterSetLabel set.
func newSet(ctx context.Context, selector *metav1.LabelSelector) string {
	name := "set-" + rand.String(6)
	set := &clusterv1beta2.ManagedClusterSet{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if selector != nil {
		set.Spec.ClusterSelector = clusterv1beta2.ManagedClusterSelector{SelectorType: clusterv1beta2.LabelSelector, LabelSelector: selector}
	}
	Expect(admin.Create(ctx, set)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { _ = client.IgnoreNotFound(admin.Delete(ctx, set)) })
	return name
}

// newLabelledCluster creates a ManagedCluster with labels, deleted after
// the spec.
func newLabelledCluster(ctx context.Context, labels map[string]string) string {
	name := "c-" + rand.String(6)
	mc := &clusterv1.ManagedCluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec:       clusterv1.ManagedClusterSpec{LeaseDurationSeconds: 60},
	}
	Expect(admin.Create(ctx, mc)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { _ = client.IgnoreNotFound(admin.Delete(ctx, mc)) })
	return name
}

// newNamespace creates a namespace with a fresh name, deleted after the
// spec.
func newNamespace(ctx context.Context) string {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns-" + rand.String(6)}}
	Expect(admin.Create(ctx, ns)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { _ = admin.Delete(ctx, ns) })
	return ns.Name
}

func setClusterLabels(ctx context.Context, name string, labels map[string]string) {
	GinkgoHelper()
	mc := getCluster(ctx, name)
	patch := client.MergeFrom(mc.DeepCopy())
	mc.Labels = labels
	Expect(admin.Patch(ctx, mc, patch)).To(Succeed())
}

func getSet(ctx context.Context, name string) *clusterv1beta2.ManagedClusterSet {
	GinkgoHelper()
	set := &clusterv1beta2.ManagedClusterSet{}
	Expect(admin.Get(ctx, types.NamespacedName{Name: name}, set)).To(Succeed())
	return set
}

// expectEmpty waits until set's ClusterSetEmpty condition has status, and
// the message when one is given.
func expectEmpty(ctx context.Context, set string, status metav1.ConditionStatus, message string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		s := &clusterv1beta2.ManagedClusterSet{}
		g.Expect(admin.Get(ctx, types.NamespacedName{Name: set}, s)).To(Succeed())
		cond := meta.FindStatusCondition(s.Status.Conditions, clusterv1beta2.ManagedClusterSetConditionEmpty)
		g.Expect(cond).NotTo(BeNil())
		g.Expect(cond.Status).To(Equal(status))
		if message != "" {
			g.Expect(cond.Message).To(Equal(message))
		}
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed(), "ManagedClusterSet %s ClusterSetEmpty=%s %s", set, status, message)
}

// expectBound waits until the binding of set in ns has Bound status and
// reason.
func expectBound(ctx context.Context, ns, set string, status metav1.ConditionStatus, reason string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		b := &clusterv1beta2.ManagedClusterSetBinding{}
		g.Expect(admin.Get(ctx, types.NamespacedName{Namespace: ns, Name: set}, b)).To(Succeed())
		cond := meta.FindStatusCondition(b.Status.Conditions, clusterv1beta2.ClusterSetBindingBoundType)
		g.Expect(cond).NotTo(BeNil())
		g.Expect(cond.Status).To(Equal(status))
		g.Expect(cond.Reason).To(Equal(reason))
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed(), "binding %s/%s Bound=%s", ns, set, status)
}

func inSet(set string) map[string]string {
	return map[string]string{clusterv1beta2.ClusterSetLabel: set}
}

var _ = Describe("built-in cluster sets", func() {
	DescribeTable("exist, with their selector, and come back when deleted",
		func(ctx context.Context, name string) {
			want, _ := clusterset.BuiltinSelector(name)
			var uid types.UID
			Eventually(func(g Gomega) {
				s := &clusterv1beta2.ManagedClusterSet{}
				g.Expect(admin.Get(ctx, types.NamespacedName{Name: name}, s)).To(Succeed())
				g.Expect(s.Spec.ClusterSelector).To(Equal(want))
				uid = s.UID
			}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

			By("deleting it")
			Expect(admin.Delete(ctx, &clusterv1beta2.ManagedClusterSet{ObjectMeta: metav1.ObjectMeta{Name: name}})).To(Succeed())
			Eventually(func(g Gomega) {
				s := &clusterv1beta2.ManagedClusterSet{}
				g.Expect(admin.Get(ctx, types.NamespacedName{Name: name}, s)).To(Succeed())
				g.Expect(s.UID).NotTo(Equal(uid))
				g.Expect(s.Spec.ClusterSelector).To(Equal(want))
			}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		},
		Entry("default: the clusters labelled with it", clusterset.DefaultSetName),
		Entry("global: every cluster", clusterset.GlobalSetName),
	)

	It("get their selector back when someone changes it", func(ctx context.Context) {
		Eventually(func() error {
			return admin.Get(ctx, types.NamespacedName{Name: clusterset.DefaultSetName}, &clusterv1beta2.ManagedClusterSet{})
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		set := getSet(ctx, clusterset.DefaultSetName)
		patch := client.MergeFrom(set.DeepCopy())
		set.Spec.ClusterSelector = clusterv1beta2.ManagedClusterSelector{
			SelectorType: clusterv1beta2.LabelSelector, LabelSelector: &metav1.LabelSelector{},
		}
		Expect(admin.Patch(ctx, set, patch)).To(Succeed())
		Eventually(func() clusterv1beta2.SelectorType {
			return getSet(ctx, clusterset.DefaultSetName).Spec.ClusterSelector.SelectorType
		}).WithContext(ctx).WithTimeout(timeout).Should(Equal(clusterv1beta2.ExclusiveClusterSetLabel))
	})

	It("hold the clusters they should: default the labelled ones, global all", func(ctx context.Context) {
		name := newLabelledCluster(ctx, inSet(clusterset.DefaultSetName))
		expectEmpty(ctx, clusterset.DefaultSetName, metav1.ConditionFalse, "")
		expectEmpty(ctx, clusterset.GlobalSetName, metav1.ConditionFalse, "")
		for _, set := range []string{clusterset.DefaultSetName, clusterset.GlobalSetName} {
			in, err := clusterset.Contains(getSet(ctx, set), getCluster(ctx, name))
			Expect(err).NotTo(HaveOccurred())
			Expect(in).To(BeTrue(), "cluster %s in set %s", name, set)
		}
	})
})

var _ = Describe("cluster set status", func() {
	It("turns not empty when a cluster joins the set, and empty when it leaves", func(ctx context.Context) {
		set := newSet(ctx, nil)
		expectEmpty(ctx, set, metav1.ConditionTrue, "No ManagedCluster selected")

		By("a labelled cluster appearing")
		c1 := newLabelledCluster(ctx, inSet(set))
		expectEmpty(ctx, set, metav1.ConditionFalse, "1 ManagedClusters selected")

		By("a second one being labelled")
		c2 := newLabelledCluster(ctx, nil)
		setClusterLabels(ctx, c2, inSet(set))
		expectEmpty(ctx, set, metav1.ConditionFalse, "2 ManagedClusters selected")

		By("one being deleted and the other unlabelled")
		Expect(admin.Delete(ctx, &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: c1}})).To(Succeed())
		expectEmpty(ctx, set, metav1.ConditionFalse, "1 ManagedClusters selected")
		setClusterLabels(ctx, c2, map[string]string{"unrelated": "yes"})
		expectEmpty(ctx, set, metav1.ConditionTrue, "No ManagedCluster selected")
	})

	It("updates both exclusive sets when a cluster's label moves it from one to the other", func(ctx context.Context) {
		from, to := newSet(ctx, nil), newSet(ctx, nil)
		name := newLabelledCluster(ctx, inSet(from))
		expectEmpty(ctx, from, metav1.ConditionFalse, "1 ManagedClusters selected")
		expectEmpty(ctx, to, metav1.ConditionTrue, "")

		setClusterLabels(ctx, name, inSet(to))
		expectEmpty(ctx, from, metav1.ConditionTrue, "No ManagedCluster selected")
		expectEmpty(ctx, to, metav1.ConditionFalse, "1 ManagedClusters selected")
	})

	It("counts the clusters a label selector set selects, whatever their exclusive set", func(ctx context.Context) {
		team := "team-" + rand.String(6)
		set := newSet(ctx, &metav1.LabelSelector{MatchLabels: map[string]string{"team": team}})
		expectEmpty(ctx, set, metav1.ConditionTrue, "")

		a := newLabelledCluster(ctx, map[string]string{"team": team, clusterv1beta2.ClusterSetLabel: "set-a"})
		newLabelledCluster(ctx, map[string]string{"team": team})
		newLabelledCluster(ctx, map[string]string{"team": "other"})
		expectEmpty(ctx, set, metav1.ConditionFalse, "2 ManagedClusters selected")

		setClusterLabels(ctx, a, map[string]string{"team": "other"})
		expectEmpty(ctx, set, metav1.ConditionFalse, "1 ManagedClusters selected")

		By("the set's selector changing")
		s := getSet(ctx, set)
		patch := client.MergeFrom(s.DeepCopy())
		s.Spec.ClusterSelector.LabelSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "nobody-" + team}}
		Expect(admin.Patch(ctx, s, patch)).To(Succeed())
		expectEmpty(ctx, set, metav1.ConditionTrue, "No ManagedCluster selected")
	})
})

var _ = Describe("cluster set bindings", func() {
	It("are bound only while their set exists", func(ctx context.Context) {
		ns := newNamespace(ctx)
		name := "set-" + rand.String(6)
		binding := &clusterv1beta2.ManagedClusterSetBinding{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec:       clusterv1beta2.ManagedClusterSetBindingSpec{ClusterSet: name},
		}
		Expect(admin.Create(ctx, binding)).To(Succeed())
		expectBound(ctx, ns, name, metav1.ConditionFalse, clustersetbinding.ReasonClusterSetNotFound)

		By("creating the set")
		set := &clusterv1beta2.ManagedClusterSet{ObjectMeta: metav1.ObjectMeta{Name: name}}
		Expect(admin.Create(ctx, set)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { _ = client.IgnoreNotFound(admin.Delete(ctx, set)) })
		expectBound(ctx, ns, name, metav1.ConditionTrue, clustersetbinding.ReasonBound)

		By("deleting the set")
		Expect(admin.Delete(ctx, set)).To(Succeed())
		expectBound(ctx, ns, name, metav1.ConditionFalse, clustersetbinding.ReasonClusterSetNotFound)
	})
})
