package placement_test

import (
	"context"
	"fmt"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/testing/builder"
)

// fixture is one spec's world: a fresh namespace and a cluster set of its
// own, named after it, so that specs do not see each other's clusters.
type fixture struct {
	ns  string
	set string
}

func newFixture(ctx context.Context) *fixture {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "placement-"}}
	Expect(admin.Create(ctx, ns)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { _ = admin.Delete(ctx, ns) })
	f := &fixture{ns: ns.Name, set: ns.Name}
	f.createSet(ctx, f.set)
	return f
}

func (f *fixture) createSet(ctx context.Context, name string) {
	GinkgoHelper()
	set := &clusterv1beta2.ManagedClusterSet{ObjectMeta: metav1.ObjectMeta{Name: name}}
	Expect(admin.Create(ctx, set)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { _ = admin.Delete(ctx, set) })
}

// bind binds the set to the fixture's namespace and waits until it is
// Bound.
func (f *fixture) bind(ctx context.Context, set string) {
	GinkgoHelper()
	b := &clusterv1beta2.ManagedClusterSetBinding{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: set},
		Spec: clusterv1beta2.ManagedClusterSetBindingSpec{ClusterSet: set}}
	Expect(admin.Create(ctx, b)).To(Succeed())
	Eventually(func(g Gomega) {
		g.Expect(admin.Get(ctx, client.ObjectKeyFromObject(b), b)).To(Succeed())
		g.Expect(meta.IsStatusConditionTrue(b.Status.Conditions, clusterv1beta2.ClusterSetBindingBoundType)).To(BeTrue())
	}).WithTimeout(timeout).Should(Succeed())
}

// clusters creates n clusters <ns>-<i> in the set, each changed by mutate.
func (f *fixture) clusters(ctx context.Context, set string, n int, mutate func(i int, c *clusterv1.ManagedCluster)) []string {
	GinkgoHelper()
	var names []string
	for i := range n {
		c := builder.Cluster(fmt.Sprintf("%s-%03d", set, i)).InSet(set).Obj()
		if mutate != nil {
			mutate(i, c)
		}
		status := c.Status
		Expect(admin.Create(ctx, c)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { _ = admin.Delete(ctx, c) })
		if status.Allocatable != nil || status.ClusterClaims != nil {
			c.Status = status
			Expect(admin.Status().Update(ctx, c)).To(Succeed())
		}
		names = append(names, c.Name)
	}
	return names
}

func (f *fixture) placement(name string, mutate func(*clusterv1beta1.Placement)) *clusterv1beta1.Placement {
	return builder.Placement(f.ns, name).With(mutate).Obj()
}

// decided lists the clusters of the placement's PlacementDecisions, sorted.
func (f *fixture) decided(ctx context.Context, placement string) []string {
	GinkgoHelper()
	out := []string{}
	for _, d := range f.pages(ctx, placement) {
		for _, cd := range d.Status.Decisions {
			out = append(out, cd.ClusterName)
		}
	}
	slices.Sort(out)
	return out
}

func (f *fixture) pages(ctx context.Context, placement string) []clusterv1beta1.PlacementDecision {
	GinkgoHelper()
	list := &clusterv1beta1.PlacementDecisionList{}
	Expect(admin.List(ctx, list, client.InNamespace(f.ns), client.MatchingLabels{clusterv1beta1.PlacementLabel: placement})).To(Succeed())
	return list.Items
}

// eventuallyDecided waits until the placement's decisions hold exactly
// want and its status counts them.
func (f *fixture) eventuallyDecided(ctx context.Context, placement string, want []string) {
	GinkgoHelper()
	want = slices.Sorted(slices.Values(want))
	if want == nil {
		want = []string{}
	}
	Eventually(func(g Gomega) {
		g.Expect(f.decided(ctx, placement)).To(Equal(want))
		p := &clusterv1beta1.Placement{}
		g.Expect(admin.Get(ctx, client.ObjectKey{Namespace: f.ns, Name: placement}, p)).To(Succeed())
		g.Expect(p.Status.NumberOfSelectedClusters).To(BeEquivalentTo(len(want)))
	}).WithTimeout(timeout).Should(Succeed())
}

// condition waits for the placement's condition of that type and returns
// it once check passes.
func (f *fixture) condition(ctx context.Context, placement, typ string, check func(Gomega, *metav1.Condition)) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		p := &clusterv1beta1.Placement{}
		g.Expect(admin.Get(ctx, client.ObjectKey{Namespace: f.ns, Name: placement}, p)).To(Succeed())
		c := meta.FindStatusCondition(p.Status.Conditions, typ)
		g.Expect(c).NotTo(BeNil())
		g.Expect(c.ObservedGeneration).To(Equal(p.Generation))
		check(g, c)
	}).WithTimeout(timeout).Should(Succeed())
}

func ptr[T any](v T) *T { return &v }

func metav1LabelSelector(k, v string) metav1.LabelSelector {
	return metav1.LabelSelector{MatchLabels: map[string]string{k: v}}
}
