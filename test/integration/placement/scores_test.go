package placement_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// createScore creates the AddOnPlacementScore demo (score demo) in the
// cluster's namespace, creating the namespace.
func createScore(ctx context.Context, cluster string, value int32) {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: cluster}}
	if err := admin.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		Expect(err).NotTo(HaveOccurred())
	}
	DeferCleanup(func(ctx context.Context) { _ = admin.Delete(ctx, ns) })
	s := &clusterv1alpha1.AddOnPlacementScore{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: "demo"}}
	Expect(admin.Create(ctx, s)).To(Succeed())
	setScore(ctx, cluster, value)
}

// scoredClusters makes a cluster in the fixture's set for each of values,
// its demo score, and binds the set.
func (f *fixture) scoredClusters(ctx context.Context, values ...int32) []string {
	GinkgoHelper()
	clusters := f.clusters(ctx, f.set, len(values), nil)
	for i, c := range clusters {
		createScore(ctx, c, values[i])
	}
	f.bind(ctx, f.set)
	return clusters
}

func setScore(ctx context.Context, cluster string, value int32) {
	GinkgoHelper()
	s := &clusterv1alpha1.AddOnPlacementScore{}
	Expect(admin.Get(ctx, client.ObjectKey{Namespace: cluster, Name: "demo"}, s)).To(Succeed())
	s.Status.Scores = []clusterv1alpha1.AddOnPlacementScoreItem{{Name: "demo", Value: value}}
	Expect(admin.Status().Update(ctx, s)).To(Succeed())
}

// byScore selects the one cluster with the best AddOnPlacementScore demo,
// with that scoreRateLimit ("": the CRD's default, 1m).
func byScore(limit string) func(*clusterv1beta1.Placement) {
	return func(p *clusterv1beta1.Placement) {
		p.Spec.NumberOfClusters = ptr[int32](1)
		p.Spec.ScoreRateLimit = limit
		p.Spec.PrioritizerPolicy = clusterv1beta1.PrioritizerPolicy{Mode: clusterv1beta1.PrioritizerPolicyModeExact,
			Configurations: []clusterv1beta1.PrioritizerConfig{{Weight: 1, ScoreCoordinate: &clusterv1beta1.ScoreCoordinate{
				Type: clusterv1beta1.ScoreCoordinateTypeAddOn, AddOn: &clusterv1beta1.AddOnScore{ResourceName: "demo", ScoreName: "demo"}}}}}
	}
}

// scoreHeld is the score the placement's one decision records.
func (f *fixture) scoreHeld(ctx context.Context, placement string) int64 {
	GinkgoHelper()
	for _, d := range f.pages(ctx, placement) {
		for _, cd := range d.Status.Decisions {
			return cd.Score
		}
	}
	return -1
}

var _ = Describe("scores", func() {
	It("writes score changes that keep the same clusters no more often than scoreRateLimit, and at once with 0s", func(ctx context.Context) {
		f := newFixture(ctx)
		clusters := f.scoredClusters(ctx, 10, 20, 30)
		Expect(admin.Create(ctx, f.placement("limited", byScore("")))).To(Succeed())
		Expect(admin.Create(ctx, f.placement("unlimited", byScore("0s")))).To(Succeed())
		f.eventuallyDecided(ctx, "limited", clusters[2:])
		f.eventuallyDecided(ctx, "unlimited", clusters[2:])
		Expect(f.scoreHeld(ctx, "limited")).To(BeEquivalentTo(30))

		By("raising the selected cluster's score: it stays the one selected")
		setScore(ctx, clusters[2], 45)
		Eventually(func() int64 { return f.scoreHeld(ctx, "unlimited") }).WithTimeout(timeout).Should(BeEquivalentTo(45))
		Consistently(func() int64 { return f.scoreHeld(ctx, "limited") }).WithTimeout(2 * time.Second).Should(BeEquivalentTo(30))

		By("letting the minute pass")
		fakeClock.Step(61 * time.Second)
		Eventually(func() int64 { return f.scoreHeld(ctx, "limited") }).WithTimeout(timeout).Should(BeEquivalentTo(45))
		Expect(f.decided(ctx, "limited")).To(Equal(clusters[2:]))
	})

	It("drops a held cluster whose score no longer passes a CEL predicate, and adds one whose score comes to pass", func(ctx context.Context) {
		f := newFixture(ctx)
		clusters := f.scoredClusters(ctx, 60, 70, 10)
		Expect(admin.Create(ctx, f.placement("cel", func(p *clusterv1beta1.Placement) {
			p.Spec.Predicates = []clusterv1beta1.ClusterPredicate{{RequiredClusterSelector: clusterv1beta1.ClusterSelector{
				CelSelector: clusterv1beta1.ClusterCelSelector{CelExpressions: []string{
					`managedCluster.scores("demo").exists(s, s.name == "demo" && s.value >= 50)`}}}}}
		}))).To(Succeed())
		f.eventuallyDecided(ctx, "cel", clusters[:2])

		setScore(ctx, clusters[0], 20)
		f.eventuallyDecided(ctx, "cel", clusters[1:2])
		setScore(ctx, clusters[2], 80)
		f.eventuallyDecided(ctx, "cel", clusters[1:])
	})
})
