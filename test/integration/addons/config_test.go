package addons_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

var adcResource = addonv1alpha1.ConfigGroupResource{Group: addonv1alpha1.GroupName, Resource: "addondeploymentconfigs"}

var _ = Describe("Addon configs", func() {
	It("says a built-in addon asked for a config type it does not support", func(ctx context.Context) {
		cluster := newCluster(ctx, true)
		mca := &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: helloAddon.Name}, Spec: addonv1alpha1.ManagedClusterAddOnSpec{
			Configs: []addonv1alpha1.AddOnConfig{{ConfigGroupResource: addonv1alpha1.ConfigGroupResource{Resource: "configmaps"}, ConfigReferent: addonv1alpha1.ConfigReferent{Namespace: "ns", Name: "cm"}}},
		}}
		Expect(admin.Create(ctx, mca)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { _ = admin.Delete(ctx, mca) })
		Eventually(func(g Gomega) {
			got := &addonv1alpha1.ManagedClusterAddOn{}
			g.Expect(admin.Get(ctx, client.ObjectKey{Namespace: cluster, Name: helloAddon.Name}, got)).To(Succeed())
			g.Expect(got.Status.Conditions).To(ContainElement(And(
				HaveField("Type", addonv1alpha1.ManagedClusterAddOnConditionProgressing),
				HaveField("Status", metav1.ConditionFalse), HaveField("Reason", addonv1alpha1.ProgressingReasonConfigurationUnsupported))))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	})

	It("gives each ManagedClusterAddOn the ClusterManagementAddOn's default config unless it names its own", func(ctx context.Context) {
		byDefault, own := newCluster(ctx, true), newCluster(ctx, true)
		ns := newNamespace(ctx)
		name := newAddonWithDefaultConfig(ctx, "configured-", ns)
		enable(ctx, byDefault, name)
		mine := &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: own, Name: name}, Spec: addonv1alpha1.ManagedClusterAddOnSpec{
			Configs: []addonv1alpha1.AddOnConfig{{ConfigGroupResource: adcResource, ConfigReferent: addonv1alpha1.ConfigReferent{Namespace: ns, Name: "mine"}}},
		}}
		Expect(admin.Create(ctx, mine)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { _ = admin.Delete(ctx, mine) })

		expectDesiredConfig(ctx, byDefault, name, "default")
		expectDesiredConfig(ctx, own, name, "mine")
	})

	It("has the framework hash the config of a built-in addon, which then is applied and no longer Progressing", func(ctx context.Context) {
		cluster := newCluster(ctx, true)
		ns := newNamespace(ctx)
		adc := &addonv1alpha1.AddOnDeploymentConfig{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "hello-config"},
			Spec:       addonv1alpha1.AddOnDeploymentConfigSpec{AgentInstallNamespace: "hello-agent"},
		}
		Expect(admin.Create(ctx, adc)).To(Succeed())
		mca := &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: helloAddon.Name}, Spec: addonv1alpha1.ManagedClusterAddOnSpec{
			Configs: []addonv1alpha1.AddOnConfig{{ConfigGroupResource: adcResource, ConfigReferent: addonv1alpha1.ConfigReferent{Namespace: ns, Name: adc.Name}}},
		}}
		Expect(admin.Create(ctx, mca)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { _ = admin.Delete(ctx, mca) })

		expectDesiredConfig(ctx, cluster, helloAddon.Name, adc.Name)
		Eventually(func(g Gomega) {
			got := &addonv1alpha1.ManagedClusterAddOn{}
			g.Expect(admin.Get(ctx, client.ObjectKey{Namespace: cluster, Name: helloAddon.Name}, got)).To(Succeed())
			g.Expect(got.Status.ConfigReferences).To(ConsistOf(And(
				HaveField("DesiredConfig.SpecHash", Not(BeEmpty())),
				HaveField("LastAppliedConfig", Not(BeNil())),
			)))
			g.Expect(got.Status.ConfigReferences[0].LastAppliedConfig.SpecHash).To(Equal(got.Status.ConfigReferences[0].DesiredConfig.SpecHash))
			g.Expect(got.Status.Conditions).To(ContainElement(And(
				HaveField("Type", addonv1alpha1.ManagedClusterAddOnConditionProgressing),
				HaveField("Status", metav1.ConditionFalse), HaveField("Reason", addonv1alpha1.ProgressingReasonCompleted))))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	})
})

// newAddonWithDefaultConfig creates an addon (a ClusterManagementAddOn, its
// name prefix and a random suffix) installed by hand, whose default config
// is the AddOnDeploymentConfig ns/default; it is deleted when the spec ends.
func newAddonWithDefaultConfig(ctx context.Context, prefix, ns string) string {
	GinkgoHelper()
	cma := &addonv1alpha1.ClusterManagementAddOn{ObjectMeta: metav1.ObjectMeta{Name: prefix + utilrand.String(4)}, Spec: addonv1alpha1.ClusterManagementAddOnSpec{
		SupportedConfigs: []addonv1alpha1.ConfigMeta{{ConfigGroupResource: adcResource, DefaultConfig: &addonv1alpha1.ConfigReferent{Namespace: ns, Name: "default"}}},
		InstallStrategy:  addonv1alpha1.InstallStrategy{Type: addonv1alpha1.AddonInstallStrategyManual},
	}}
	Expect(admin.Create(ctx, cma)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { _ = admin.Delete(ctx, cma) })
	return cma.Name
}

// expectDesiredConfig waits until the addon on cluster has one desired
// AddOnDeploymentConfig, named name, and is Configured.
func expectDesiredConfig(ctx context.Context, cluster, addon, name string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		mca := &addonv1alpha1.ManagedClusterAddOn{}
		g.Expect(admin.Get(ctx, client.ObjectKey{Namespace: cluster, Name: addon}, mca)).To(Succeed())
		g.Expect(mca.Status.ConfigReferences).To(ConsistOf(And(
			HaveField("ConfigGroupResource", adcResource),
			HaveField("DesiredConfig.ConfigReferent.Name", name),
		)))
		g.Expect(mca.Status.Conditions).To(ContainElement(And(
			HaveField("Type", addonv1alpha1.ManagedClusterAddOnConditionConfigured), HaveField("Status", metav1.ConditionTrue))))
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}
