package workhub_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/corral-dev/corral/deploy/charts/corral-hub/crds"
	"github.com/corral-dev/corral/dev/localcluster"
	"github.com/corral-dev/corral/internal/testenv"
	"github.com/corral-dev/corral/work/agent"
)

var _ = Describe("ManifestWorkReplicaSet with a real work agent", func() {
	It("delivers the template to the managed cluster and reports it rolled out and available", func(ctx context.Context) {
		By("starting a managed cluster and the work agent for it")
		managedCluster, err := localcluster.Start(ctx, localcluster.Options{
			Name: "managed", Profile: localcluster.ProfileHub, Dir: GinkgoT().TempDir(), Progress: GinkgoWriter,
		})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(managedCluster.Stop)
		all, err := crds.All()
		Expect(err).NotTo(HaveOccurred())
		_, err = envtest.InstallCRDs(managedCluster.Config, envtest.CRDInstallOptions{CRDs: all})
		Expect(err).NotTo(HaveOccurred())
		cls := clusters(ctx, 1)
		stop := testenv.Go(context.Background(), func(ctx context.Context) error {
			return agent.Run(ctx, agent.Options{ClusterName: cls[0], Hub: hubCluster.Config, Managed: managedCluster.Config})
		})
		DeferCleanup(func() { Expect(stop(time.Minute)).To(Succeed()) })
		managed, err := client.New(managedCluster.Config, client.Options{Scheme: admin.Scheme()})
		Expect(err).NotTo(HaveOccurred())

		ns := newNamespace(ctx, "agent")
		createPlacement(ctx, ns, "place")
		decide(ctx, ns, "place", 0, "", cls[0])
		set := createSet(ctx, ns, "app", workv1alpha1.LocalPlacementReference{Name: "place"})

		Eventually(func() error {
			return managed.Get(ctx, client.ObjectKey{Namespace: "default", Name: "app"}, &corev1.ConfigMap{})
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		expectSet(ctx, set, func(g Gomega, s *workv1alpha1.ManifestWorkReplicaSet) {
			g.Expect(s.Status.Summary).To(Equal(workv1alpha1.ManifestWorkReplicaSetSummary{Total: 1, DesiredTotal: 1, Applied: 1, Updated: 1, Available: 1}))
			applied := condition(s, workv1alpha1.ManifestWorkReplicaSetConditionManifestworkApplied)
			g.Expect(applied.Status).To(Equal(metav1.ConditionTrue), applied.Message)
			rolled := condition(s, workv1alpha1.ManifestWorkReplicaSetConditionPlacementRolledOut)
			g.Expect(rolled.Status).To(Equal(metav1.ConditionTrue), rolled.Message)
		})

		By("deleting the set: the agent removes what it applied")
		Expect(admin.Delete(ctx, set)).To(Succeed())
		Eventually(func() error {
			return managed.Get(ctx, client.ObjectKey{Namespace: "default", Name: "app"}, &corev1.ConfigMap{})
		}).WithContext(ctx).WithTimeout(timeout).Should(MatchError(ContainSubstring("not found")))
	}, NodeTimeout(localcluster.DefaultStartTimeout+3*time.Minute))
})
