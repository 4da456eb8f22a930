package addons_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
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

		name := newPlacedAddon(ctx, ns, "fleet", clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.Progressive,
			Progressive: &clusterv1alpha1.RolloutProgressive{MaxConcurrency: intstr.FromInt32(1)}})
		Eventually(func(g Gomega) {
			g.Expect(installedOn(ctx, g, name)).To(ConsistOf(clusters))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		hashPlacementConfig(ctx, name, "h1")

		for i, c := range clusters {
			By("cluster " + c + " gets the config, the ones after it not yet")
			expectDesiredHash(ctx, c, name, "h1")
			expectNoConfigs(ctx, name, clusters[i+1:]...)
			expectProgression(ctx, name, metav1.ConditionTrue, addonv1alpha1.ProgressingReasonProgressing)

			By("its agent applies the config")
			applyConfig(ctx, c, name)
		}

		By("every addon applied the config: the install progression is Completed with it as last applied")
		expectProgression(ctx, name, metav1.ConditionFalse, addonv1alpha1.ProgressingReasonCompleted)
		got := &addonv1alpha1.ClusterManagementAddOn{}
		Expect(admin.Get(ctx, client.ObjectKey{Name: name}, got)).To(Succeed())
		Expect(got.Status.InstallProgressions[0].ConfigReferences).To(ConsistOf(And(
			HaveField("LastAppliedConfig.SpecHash", "h1"), HaveField("LastKnownGoodConfig.SpecHash", "h1"))))
	})

	It("gives a placement's config to one decision group at a time under ProgressivePerGroup", func(ctx context.Context) {
		first, second := []string{newCluster(ctx, true), newCluster(ctx, true)}, newCluster(ctx, true)
		ns := newNamespace(ctx)
		Expect(admin.Create(ctx, &clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "fleet"}})).To(Succeed())
		for i, clusters := range [][]string{first, {second}} {
			d := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("fleet-decision-%d", i+1), Labels: map[string]string{
				clusterv1beta1.PlacementLabel: "fleet", clusterv1beta1.DecisionGroupIndexLabel: strconv.Itoa(i),
			}}}
			Expect(admin.Create(ctx, d)).To(Succeed())
			decide(ctx, d, clusters...)
		}
		name := newPlacedAddon(ctx, ns, "fleet", clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.ProgressivePerGroup})
		Eventually(func(g Gomega) {
			g.Expect(installedOn(ctx, g, name)).To(ConsistOf(append([]string{second}, first...)))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		hashPlacementConfig(ctx, name, "h1")

		By("group 0 gets the config, group 1 not while group 0 has not applied it")
		for _, c := range first {
			expectDesiredHash(ctx, c, name, "h1")
		}
		applyConfig(ctx, first[0], name)
		expectNoConfigs(ctx, name, second)

		By("group 0 applied it: group 1 gets it")
		applyConfig(ctx, first[1], name)
		expectDesiredHash(ctx, second, name, "h1")
		applyConfig(ctx, second, name)
		expectProgression(ctx, name, metav1.ConditionFalse, addonv1alpha1.ProgressingReasonCompleted)
	})
})

// newPlacedAddon creates an addon installed by placement ns/placement,
// whose clusters get the AddOnDeploymentConfig ns/tuned as strategy
// rolls it out; it is deleted when the spec ends.
func newPlacedAddon(ctx context.Context, ns, placement string, strategy clusterv1alpha1.RolloutStrategy) string {
	GinkgoHelper()
	cma := &addonv1alpha1.ClusterManagementAddOn{
		ObjectMeta: metav1.ObjectMeta{Name: "rolling-" + utilrand.String(4)},
		Spec: addonv1alpha1.ClusterManagementAddOnSpec{
			SupportedConfigs: []addonv1alpha1.ConfigMeta{{ConfigGroupResource: adcResource}},
			InstallStrategy: addonv1alpha1.InstallStrategy{
				Type: addonv1alpha1.AddonInstallStrategyPlacements,
				Placements: []addonv1alpha1.PlacementStrategy{{
					PlacementRef:    addonv1alpha1.PlacementRef{Namespace: ns, Name: placement},
					Configs:         []addonv1alpha1.AddOnConfig{{ConfigGroupResource: adcResource, ConfigReferent: addonv1alpha1.ConfigReferent{Namespace: ns, Name: "tuned"}}},
					RolloutStrategy: strategy,
				}},
			},
		},
	}
	Expect(admin.Create(ctx, cma)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { _ = admin.Delete(ctx, cma) })
	return cma.Name
}

// hashPlacementConfig plays the addon framework, which writes the spec
// hash of the placement's config in the addon's install progression.
func hashPlacementConfig(ctx context.Context, addon, hash string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		got := &addonv1alpha1.ClusterManagementAddOn{}
		g.Expect(admin.Get(ctx, client.ObjectKey{Name: addon}, got)).To(Succeed())
		g.Expect(got.Status.InstallProgressions).To(HaveLen(1))
		g.Expect(got.Status.InstallProgressions[0].ConfigReferences).To(HaveLen(1))
		got.Status.InstallProgressions[0].ConfigReferences[0].DesiredConfig.SpecHash = hash
		g.Expect(admin.Status().Update(ctx, got)).To(Succeed())
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}

// applyConfig plays the addon's agent on cluster: it applies the config
// it is given.
func applyConfig(ctx context.Context, cluster, addon string) {
	GinkgoHelper()
	updateAddonStatus(ctx, cluster, addon, func(st *addonv1alpha1.ManagedClusterAddOnStatus) {
		st.ConfigReferences[0].LastAppliedConfig = st.ConfigReferences[0].DesiredConfig.DeepCopy()
	})
}

// expectNoConfigs asserts that, for a while, the addon on none of
// clusters has been given a config.
func expectNoConfigs(ctx context.Context, addon string, clusters ...string) {
	GinkgoHelper()
	Consistently(func(g Gomega) {
		for _, c := range clusters {
			g.Expect(getAddon(ctx, c, addon).Status.ConfigReferences).To(BeEmpty(), "the addon on %s", c)
		}
	}).WithContext(ctx).WithTimeout(3 * time.Second).Should(Succeed())
}

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
