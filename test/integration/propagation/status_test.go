package propagation_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/aggregate"
	"github.com/corral-dev/corral/propagation/hub/distribute"
)

var _ = Describe("aggregated status", Ordered, func() {
	BeforeAll(startHubHalf)

	It("sums the clusters' Deployment status into the template, observedGeneration once both caught up", func(ctx context.Context) {
		ns := freshNamespace(ctx)
		c1, c2 := clusterNamespace(ctx), clusterNamespace(ctx)
		decide(ctx, ns, "all", c1, c2)
		dep := webDeployment(ns)
		dep.Spec.Replicas = ptr.To[int32](4)
		Expect(c.Create(ctx, dep)).To(Succeed())
		Expect(c.Create(ctx, newPropagation(ns, "web", nil,
			v1alpha1.ResourceSelector{Group: "apps", Version: "v1", Kind: "Deployment", Name: "web"}))).To(Succeed())

		By("delivering the Deployment with its feedback rules to both clusters")
		work := distribute.WorkName(ns, "web", 0)
		Eventually(func(g Gomega) {
			g.Expect(worksOf(ctx, ns, "web")).To(Equal(map[string]string{c1: "1", c2: "1"}))
			for _, cluster := range []string{c1, c2} {
				w := &workv1.ManifestWork{}
				g.Expect(c.Get(ctx, client.ObjectKey{Namespace: cluster, Name: work}, w)).To(Succeed())
				g.Expect(w.Spec.ManifestConfigs).To(ConsistOf(HaveField("ResourceIdentifier", workv1.ResourceIdentifier{
					Group: "apps", Resource: "deployments", Namespace: ns, Name: "web"})))
			}
		}).WithTimeout(eventually).WithPolling(poll).Should(Succeed())

		By("one cluster ready: readyReplicas summed, observedGeneration held back")
		feedDeployment(ctx, c1, work, ns, 4)
		Eventually(func(g Gomega) {
			got := &appsv1.Deployment{}
			g.Expect(c.Get(ctx, client.ObjectKeyFromObject(dep), got)).To(Succeed())
			g.Expect(got.Status.ReadyReplicas).To(BeEquivalentTo(4))
			g.Expect(got.Status.Replicas).To(BeEquivalentTo(4))
			g.Expect(got.Status.ObservedGeneration).To(BeNumerically("<", got.Generation))
		}).WithTimeout(eventually).WithPolling(poll).Should(Succeed())

		By("both clusters ready: replicas summed, observedGeneration the template's generation")
		feedDeployment(ctx, c2, work, ns, 4)
		Eventually(func(g Gomega) {
			got := &appsv1.Deployment{}
			g.Expect(c.Get(ctx, client.ObjectKeyFromObject(dep), got)).To(Succeed())
			g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))
			g.Expect(got.Status.Replicas).To(BeEquivalentTo(8))
			g.Expect(got.Status.ReadyReplicas).To(BeEquivalentTo(8))
			g.Expect(got.Status.UpdatedReplicas).To(BeEquivalentTo(8))
			g.Expect(got.Status.AvailableReplicas).To(BeEquivalentTo(8))
		}).WithTimeout(eventually).WithPolling(poll).Should(Succeed())
	})
})

// feedDeployment reports the work applied with a Deployment ns/web of
// replicas, all ready, updated and available, fed back as a work agent
// would by aggregate.FeedbackRules.
func feedDeployment(ctx context.Context, cluster, name, ns string, replicas int64) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		w := &workv1.ManifestWork{}
		g.Expect(c.Get(ctx, client.ObjectKey{Namespace: cluster, Name: name}, w)).To(Succeed())
		meta.SetStatusCondition(&w.Status.Conditions, metav1.Condition{Type: workv1.WorkApplied, Status: metav1.ConditionTrue,
			Reason: "AppliedManifestWorkComplete", ObservedGeneration: w.Generation})
		values := []workv1.FeedbackValue{
			intValue(aggregate.FeedbackGeneration, 1),
			intValue(aggregate.FeedbackObservedGeneration, 1),
			{Name: aggregate.FeedbackProgressingReason, Value: workv1.FieldValue{Type: workv1.String, String: ptr.To("NewReplicaSetAvailable")}},
		}
		for _, counter := range []string{"replicas", "readyReplicas", "updatedReplicas", "availableReplicas"} {
			values = append(values, intValue(counter, replicas))
		}
		w.Status.ResourceStatus.Manifests = []workv1.ManifestCondition{{
			ResourceMeta:    workv1.ManifestResourceMeta{Group: "apps", Version: "v1", Kind: "Deployment", Resource: "deployments", Namespace: ns, Name: "web"},
			StatusFeedbacks: workv1.StatusFeedbackResult{Values: values},
			Conditions:      []metav1.Condition{},
		}}
		g.Expect(c.Status().Update(ctx, w)).To(Succeed())
	}).WithTimeout(eventually).WithPolling(poll).Should(Succeed())
}

func intValue(name string, n int64) workv1.FeedbackValue {
	return workv1.FeedbackValue{Name: name, Value: workv1.FieldValue{Type: workv1.Integer, Integer: ptr.To(n)}}
}
