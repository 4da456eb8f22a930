package addons_test

import (
	"context"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The spec plays the third-party addon's framework (it hashes the
// placement's config in the ClusterManagementAddOn's status) and its
// agents (each applies the config it is given).
var _ = Describe("Rolling an addon's configs out", func() {
	It("gives a placement's config, with the framework's hash, to one cluster at a time under Progressive maxConcurrency 1, then marks the install progression Completed", func(ctx context.Context) {
		clusters := []string{newCluster(ctx, true), newCluster(ctx, true), newCluster(ctx, true)}
		slices.Sort(clusters) // the order Progressive starts them in
		ns := newNamespace(ctx)
		placement := &clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "fleet"}}
		Expect(admin.Create(ctx, placement)).To(Succeed())
		newDecision(ctx, ns, "fleet", 1, clusters...)

		tuned := addonv1alpha1.ConfigReferent{Namespace: ns, Name: "tuned"}
		cma := &addonv1alpha1.ClusterManagementAddOn{
			ObjectMeta: metav1.ObjectMeta{Name: "rolling-" + utilrand.String(4)},
			Spec: addonv1alpha1.ClusterManagementAddOnSpec{
				SupportedConfigs: []addonv1alpha1.ConfigMeta{{ConfigGroupResource: adcResource}},
				InstallStrategy: addonv1alpha1.InstallStrategy{
					Type: addonv1alpha1.AddonInstallStrategyPlacements,
					Placements: []addonv1alpha1.PlacementStrategy{{
						PlacementRef: addonv1alpha1.PlacementRef{Namespace: ns, Name: "fleet"},
						Configs:      []addonv1alpha1.AddOnConfig{{ConfigGroupResource: adcResource, ConfigReferent: tuned}},
						RolloutStrategy: clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.Progressive,
							Progressive: &clusterv1alpha1.RolloutProgressive{MaxConcurrency: intstr.FromInt32(1)}},
					}},
				},
			},
		}
		Expect(admin.Create(ctx, cma)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { _ = admin.Delete(ctx, cma) })
		Eventually(func(g Gomega) {
			g.Expect(installedOn(ctx, g, cma.Name)).To(ConsistOf(clusters))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		By("the framework hashes the placement's config")
		Eventually(func(g Gomega) {
			got := &addonv1alpha1.ClusterManagementAddOn{}
			g.Expect(admin.Get(ctx, client.ObjectKeyFromObject(cma), got)).To(Succeed())
			g.Expect(got.Status.InstallProgressions).To(HaveLen(1))
			g.Expect(got.Status.InstallProgressions[0].ConfigReferences).To(HaveLen(1))
			got.Status.InstallProgressions[0].ConfigReferences[0].DesiredConfig.SpecHash = "h1"
			g.Expect(admin.Status().Update(ctx, got)).To(Succeed())
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		for i, c := range clusters {
			By("cluster " + c + " gets the config, the ones after it not yet")
			expectDesiredHash(ctx, c, cma.Name, "h1")
			Consistently(func(g Gomega) {
				for _, later := range clusters[i+1:] {
					g.Expect(getAddon(ctx, later, cma.Name).Status.ConfigReferences).To(BeEmpty())
				}
			}).WithContext(ctx).WithTimeout(3 * time.Second).Should(Succeed())
			expectProgression(ctx, cma.Name, metav1.ConditionTrue, addonv1alpha1.ProgressingReasonProgressing)

			By("its agent applies the config")
			updateAddonStatus(ctx, c, cma.Name, func(st *addonv1alpha1.ManagedClusterAddOnStatus) {
				st.ConfigReferences[0].LastAppliedConfig = st.ConfigReferences[0].DesiredConfig.DeepCopy()
			})
		}

		By("every addon applied the config: the install progression is Completed with it as last applied")
		expectProgression(ctx, cma.Name, metav1.ConditionFalse, addonv1alpha1.ProgressingReasonCompleted)
		got := &addonv1alpha1.ClusterManagementAddOn{}
		Expect(admin.Get(ctx, client.ObjectKeyFromObject(cma), got)).To(Succeed())
		Expect(got.Status.InstallProgressions[0].ConfigReferences).To(ConsistOf(And(
			HaveField("LastAppliedConfig.SpecHash", "h1"), HaveField("LastKnownGoodConfig.SpecHash", "h1"))))
	})
})

// expectProgression waits until the addon's one install progression is
// Progressing with this status and reason.
func expectProgression(ctx context.Context, addon string, status metav1.ConditionStatus, reason string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		cma := &addonv1alpha1.ClusterManagementAddOn{}
		g.Expect(admin.Get(ctx, client.ObjectKey{Name: addon}, cma)).To(Succeed())
		g.Expect(cma.Status.InstallProgressions).To(HaveLen(1))
		c := meta.FindStatusCondition(cma.Status.InstallProgressions[0].Conditions, addonv1alpha1.ManagedClusterAddOnConditionProgressing)
		g.Expect(c).NotTo(BeNil())
		g.Expect(c.Status).To(Equal(status), c.Message)
		g.Expect(c.Reason).To(Equal(reason), c.Message)
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}
