package placementagent_test

import (
	"context"
	"time"

	placementapi "github.com/corral-dev/corral/placement/api"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

var _ = Describe("The placement agent", func() {
	It("publishes the cluster's free CPU and memory as resource-usage, valid for a while, and follows pods coming and going", func(ctx context.Context) {
		cluster := newClusterNamespace(ctx)
		grantHubRules(ctx, cluster)
		node := createNode(ctx, "40", "256Gi")
		createNode(ctx, "40", "256Gi")
		startAgent(cluster)

		By("publishing 80 of 100 cores (60) and 512Gi of 1Ti (0)")
		s := expectScores(ctx, cluster, 60, 0)
		Expect(s.Status.ValidUntil).NotTo(BeNil())
		Expect(s.Status.ValidUntil.Time).To(BeTemporally(">", time.Now().Add(5*time.Minute)))

		By("taking a pod's requests off its node: 60 cores (20) and 256Gi (-50)")
		createPod(ctx, node, "20", "256Gi")
		expectScores(ctx, cluster, 20, -50)
	})

	It("changes the scores when a pod's requests change, and when it goes", func(ctx context.Context) {
		cluster := newClusterNamespace(ctx)
		grantHubRules(ctx, cluster)
		node := createNode(ctx, "100", "1Ti")
		pod := createPod(ctx, node, "50", "512Gi")
		startAgent(cluster)
		expectScores(ctx, cluster, 0, 0)

		By("resizing the pod to 10 cores: 90 free (80)")
		patch := []byte(`{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"10"}}}]}}`)
		_, err := managed.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "resize")
		Expect(err).NotTo(HaveOccurred())
		expectScores(ctx, cluster, 80, 0)

		By("deleting the pod: all free (100, 100)")
		Expect(managed.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)})).To(Succeed())
		expectScores(ctx, cluster, 100, 100)
	})

	It("writes only when a score changes: a pod that asks for nothing rewrites nothing", func(ctx context.Context) {
		cluster := newClusterNamespace(ctx)
		grantHubRules(ctx, cluster)
		node := createNode(ctx, "100", "1Ti")
		startAgent(cluster)
		s := expectScores(ctx, cluster, 100, 100)
		list := &clusterv1alpha1.AddOnPlacementScoreList{}
		w, err := hub.Watch(ctx, list, client.InNamespace(cluster), &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: s.ResourceVersion}})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(w.Stop)

		createPod(ctx, node, "0", "0")  // the agent recomputes: same scores
		createPod(ctx, node, "50", "0") // half the CPU
		var writes []clusterv1alpha1.AddOnPlacementScoreStatus
		Eventually(func(g Gomega) {
			for {
				select {
				case e := <-w.ResultChan():
					if e.Type == watch.Modified {
						writes = append(writes, e.Object.(*clusterv1alpha1.AddOnPlacementScore).Status)
					}
					continue
				default:
				}
				break
			}
			g.Expect(writes).NotTo(BeEmpty())
			g.Expect(writes[len(writes)-1].Scores).To(ContainElement(clusterv1alpha1.AddOnPlacementScoreItem{Name: placementapi.ScoreCPU, Value: 0}))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		Expect(writes).To(HaveLen(1), "every write after the first scores: %v", writes)
	})

	It("renews the lease placement in its install namespace", func(ctx context.Context) {
		cluster := newClusterNamespace(ctx)
		grantHubRules(ctx, cluster)
		startAgent(cluster)
		Eventually(func(g Gomega) {
			lease, err := managed.CoordinationV1().Leases(installNamespace).Get(ctx, "placement", metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(lease.Spec.RenewTime).NotTo(BeNil())
			g.Expect(lease.Spec.RenewTime.Time).To(BeTemporally(">", time.Now().Add(-time.Minute)))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	})

	It("keeps trying while the hub refuses it, and publishes once it is granted its rules", func(ctx context.Context) {
		cluster := newClusterNamespace(ctx)
		createNode(ctx, "50", "1Ti")
		startAgent(cluster)
		By("running, with no score on the hub")
		Eventually(func(g Gomega) {
			_, err := managed.CoordinationV1().Leases(installNamespace).Get(ctx, "placement", metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		_, err := scores(ctx, cluster)
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the score exists before the agent may write it: %v", err)
		By("publishing once the addon manager has granted them")
		grantHubRules(ctx, cluster)
		expectScores(ctx, cluster, 0, 100)
	})
})
