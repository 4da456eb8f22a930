package placement_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

var _ = Describe("taints and tolerations", func() {
	It("keeps a cluster while tolerationSeconds last, counted from the taint's timeAdded, and drops it when they run out", func(ctx context.Context) {
		f := newFixture(ctx)
		added := fakeClock.Now()
		clusters := f.clusters(ctx, f.set, 2, func(i int, c *clusterv1.ManagedCluster) {
			if i == 0 {
				c.Spec.Taints = []clusterv1.Taint{{Key: clusterv1.ManagedClusterTaintUnreachable, Effect: clusterv1.TaintEffectNoSelect,
					TimeAdded: metav1.NewTime(added)}}
			}
		})
		f.bind(ctx, f.set)
		Expect(admin.Create(ctx, f.placement("tolerant", func(p *clusterv1beta1.Placement) {
			p.Spec.Tolerations = []clusterv1beta1.Toleration{{Key: clusterv1.ManagedClusterTaintUnreachable,
				Operator: clusterv1beta1.TolerationOpExists, TolerationSeconds: ptr[int64](300)}}
		}))).To(Succeed())
		Expect(admin.Create(ctx, f.placement("intolerant", nil))).To(Succeed())
		f.eventuallyDecided(ctx, "tolerant", clusters)
		f.eventuallyDecided(ctx, "intolerant", clusters[1:])

		By("letting 299 seconds pass: still tolerated")
		fakeClock.SetTime(added.Add(299 * time.Second))
		Consistently(func() []string { return f.decided(ctx, "tolerant") }).WithTimeout(2 * time.Second).Should(Equal(clusters))

		By("letting the 300th second pass")
		fakeClock.SetTime(added.Add(301 * time.Second))
		f.eventuallyDecided(ctx, "tolerant", clusters[1:])
	})

	It("lets a placement keep a cluster tainted NoSelectIfNew but keeps new placements off it", func(ctx context.Context) {
		f := newFixture(ctx)
		clusters := f.clusters(ctx, f.set, 2, nil)
		f.bind(ctx, f.set)
		Expect(admin.Create(ctx, f.placement("old", nil))).To(Succeed())
		f.eventuallyDecided(ctx, "old", clusters)
		// A probe that selects the tainted cluster once the scheduler has
		// seen it tainted: only then is "new" created, or the scheduler
		// could decide "new" before it sees the taint, and keep it.
		Expect(admin.Create(ctx, f.placement("probe", func(p *clusterv1beta1.Placement) {
			p.Spec.Predicates = []clusterv1beta1.ClusterPredicate{{RequiredClusterSelector: clusterv1beta1.ClusterSelector{
				LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"probe": "tainted"}}}}}
			p.Spec.Tolerations = []clusterv1beta1.Toleration{{Key: "draining", Operator: clusterv1beta1.TolerationOpExists}}
		}))).To(Succeed())
		f.eventuallyDecided(ctx, "probe", nil)

		c := &clusterv1.ManagedCluster{}
		Expect(admin.Get(ctx, client.ObjectKey{Name: clusters[0]}, c)).To(Succeed())
		c.Spec.Taints = []clusterv1.Taint{{Key: "draining", Effect: clusterv1.TaintEffectNoSelectIfNew, TimeAdded: metav1.NewTime(fakeClock.Now())}}
		c.Labels["probe"] = "tainted"
		Expect(admin.Update(ctx, c)).To(Succeed())
		f.eventuallyDecided(ctx, "probe", clusters[:1])
		Expect(admin.Create(ctx, f.placement("new", nil))).To(Succeed())
		f.eventuallyDecided(ctx, "new", clusters[1:])
		Consistently(func() []string { return f.decided(ctx, "old") }).WithTimeout(2 * time.Second).Should(Equal(clusters))
	})
})
