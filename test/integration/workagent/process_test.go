package workagent_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/testenv"
	"github.com/corral-dev/corral/work/agent"
)

var _ = Describe("Several work agents in one process", func() {
	// corral dev up runs every managed cluster's agent, and so every work
	// agent, in one process; the addon host restarts one that crashed.
	It("runs a second agent, for another cluster, beside the suite's: it applies that cluster's works", func(ctx context.Context) {
		other := name("cluster")
		Expect(hub.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: other}})).To(Succeed())
		stop := testenv.Go(context.Background(), func(ctx context.Context) error {
			return agent.Run(ctx, agent.Options{ClusterName: other, Hub: hubCluster.Config, Managed: managedCluster.Config})
		})
		DeferCleanup(func() { Expect(stop(timeout)).To(Succeed()) })

		ns, w := createNamespace(ctx), name("work")
		work := &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: other, Name: w}}
		work.Spec.Workload.Manifests = manifests(configMap(ns, "cm", map[string]any{"from": other}))
		Expect(hub.Create(ctx, work)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(hub.Get(ctx, client.ObjectKeyFromObject(work), work)).To(Succeed())
			g.Expect(meta.IsStatusConditionTrue(work.Status.Conditions, workv1.WorkApplied)).To(BeTrue(), "%v", work.Status.Conditions)
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		cm, err := getConfigMap(ctx, ns, "cm")
		Expect(err).NotTo(HaveOccurred())
		Expect(cm.Data).To(HaveKeyWithValue("from", other))
	})
})
