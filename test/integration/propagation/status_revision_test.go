package propagation_test

import (
	"context"
	"strconv"
	"time"

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

var _ = Describe("aggregated status, outdated members", Ordered, func() {
	BeforeAll(startHubHalf)

	It("holds observedGeneration back while an object's revision label is older, its work applied or not", func(ctx context.Context) {
		ns := freshNamespace(ctx)
		c1 := clusterNamespace(ctx)
		decide(ctx, ns, "all", c1)
		dep := webDeployment(ns)
		dep.Spec.Replicas = ptr.To[int32](2)
		Expect(c.Create(ctx, dep)).To(Succeed())
		Expect(c.Create(ctx, newPropagation(ns, "web", nil,
			v1alpha1.ResourceSelector{Group: "apps", Version: "v1", Kind: "Deployment", Name: "web"}))).To(Succeed())
		work := distribute.WorkName(ns, "web", 0)
		// caughtUp waits until the template's status is current with ready
		// replicas.
		caughtUp := func(ready int) {
			GinkgoHelper()
			Eventually(func(g Gomega) {
				got := &appsv1.Deployment{}
				g.Expect(c.Get(ctx, client.ObjectKeyFromObject(dep), got)).To(Succeed())
				g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))
				g.Expect(got.Status.ReadyReplicas).To(BeEquivalentTo(ready))
			}).WithTimeout(eventually).WithPolling(poll).Should(Succeed())
		}
		Eventually(worksOf).WithContext(ctx).WithArguments(ns, "web").WithTimeout(eventually).WithPolling(poll).
			Should(Equal(map[string]string{c1: "1"}))

		By("revision 1 fed back by an object labelled 1: caught up")
		feed(ctx, c1, work, deploymentMeta(ns), deploymentValues(1, 2))
		caughtUp(2)

		By("a new image: revision 2, its work applied, but the object still fed back as labelled 1")
		Eventually(func(g Gomega) {
			g.Expect(c.Get(ctx, client.ObjectKeyFromObject(dep), dep)).To(Succeed())
			dep.Spec.Template.Spec.Containers[0].Image = "nginx:1.28"
			g.Expect(c.Update(ctx, dep)).To(Succeed())
		}).WithTimeout(eventually).WithPolling(poll).Should(Succeed())
		Eventually(worksOf).WithContext(ctx).WithArguments(ns, "web").WithTimeout(eventually).WithPolling(poll).
			Should(Equal(map[string]string{c1: "2"}))
		// 3 replicas, settled as far as kubectl's check goes, tell that the
		// controller read this feedback: only the label holds it back.
		feed(ctx, c1, work, deploymentMeta(ns), deploymentValues(1, 3))
		Eventually(func(g Gomega) {
			got := &appsv1.Deployment{}
			g.Expect(c.Get(ctx, client.ObjectKeyFromObject(dep), got)).To(Succeed())
			g.Expect(got.Status.ReadyReplicas).To(BeEquivalentTo(3))
			g.Expect(got.Status.ObservedGeneration).To(BeNumerically("<", got.Generation))
		}).WithTimeout(eventually).WithPolling(poll).Should(Succeed())
		Consistently(func(g Gomega) {
			got := &appsv1.Deployment{}
			g.Expect(c.Get(ctx, client.ObjectKeyFromObject(dep), got)).To(Succeed())
			g.Expect(got.Status.ObservedGeneration).To(BeNumerically("<", got.Generation))
		}).WithTimeout(consistently).WithPolling(poll).Should(Succeed())

		By("the object fed back as labelled 2: caught up")
		feed(ctx, c1, work, deploymentMeta(ns), deploymentValues(2, 2))
		caughtUp(2)
	})
})

// consistently is how long a state that must not change is watched.
const consistently = 3 * time.Second

// deploymentMeta is the work's resource meta of the Deployment ns/web.
func deploymentMeta(ns string) workv1.ManifestResourceMeta {
	return workv1.ManifestResourceMeta{Group: "apps", Version: "v1", Kind: "Deployment", Resource: "deployments", Namespace: ns, Name: "web"}
}

// deploymentValues are a settled Deployment's fed-back values at its
// generation 1, its object labelled revision, replicas updated, ready and
// available.
func deploymentValues(revision, replicas int64) []workv1.FeedbackValue {
	return []workv1.FeedbackValue{
		revisionValue(revision),
		intValue(aggregate.FeedbackGeneration, 1),
		intValue(aggregate.FeedbackObservedGeneration, 1),
		stringValue(aggregate.FeedbackProgressingReason, "NewReplicaSetAvailable"),
		intValue("replicas", replicas), intValue("updatedReplicas", replicas),
		intValue("availableReplicas", replicas), intValue("readyReplicas", replicas),
	}
}

// feed reports the work applied at its generation, with values fed back
// for the object of rm, as a work agent would by aggregate.FeedbackRules.
func feed(ctx context.Context, cluster, name string, rm workv1.ManifestResourceMeta, values []workv1.FeedbackValue) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		w := &workv1.ManifestWork{}
		g.Expect(c.Get(ctx, client.ObjectKey{Namespace: cluster, Name: name}, w)).To(Succeed())
		meta.SetStatusCondition(&w.Status.Conditions, metav1.Condition{Type: workv1.WorkApplied, Status: metav1.ConditionTrue,
			Reason: "AppliedManifestWorkComplete", ObservedGeneration: w.Generation})
		w.Status.ResourceStatus.Manifests = []workv1.ManifestCondition{{
			ResourceMeta: rm, StatusFeedbacks: workv1.StatusFeedbackResult{Values: values}, Conditions: []metav1.Condition{},
		}}
		g.Expect(c.Status().Update(ctx, w)).To(Succeed())
	}).WithTimeout(eventually).WithPolling(poll).Should(Succeed())
}

// revisionValue is the object's revision label, fed back.
func revisionValue(n int64) workv1.FeedbackValue {
	return stringValue(aggregate.FeedbackRevision, strconv.FormatInt(n, 10))
}

func stringValue(name, s string) workv1.FeedbackValue {
	return workv1.FeedbackValue{Name: name, Value: workv1.FieldValue{Type: workv1.String, String: ptr.To(s)}}
}
