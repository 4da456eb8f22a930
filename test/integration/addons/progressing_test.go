package addons_test

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/addons/manager/addonprogressing"
)

// The spec plays the third-party addon's framework (it renders the
// manifests into a ManifestWork and hashes the config) and the cluster's
// work agent (it reports the work applied).
var _ = Describe("A third-party addon's Progressing condition", func() {
	It("follows its ManifestWorks, and once they run with the desired config marks it applied", func(ctx context.Context) {
		cluster, ns := newCluster(ctx, true), newNamespace(ctx)
		name := newAddonWithDefaultConfig(ctx, "thirdparty-", ns)
		enable(ctx, cluster, name)
		expectDesiredConfig(ctx, cluster, name, "default")
		expectProgressing(ctx, cluster, name, metav1.ConditionFalse, addonprogressing.ReasonWaitingForManifestApplied, "")

		By("the framework hashes the default config and renders the manifests")
		hashDefaultConfig(ctx, name, "h1")
		expectDesiredHash(ctx, cluster, name, "h1")
		updateAddonStatus(ctx, cluster, name, func(st *addonv1alpha1.ManagedClusterAddOnStatus) {
			st.SupportedConfigs = []addonv1alpha1.ConfigGroupResource{adcResource}
			meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: addonv1alpha1.ManagedClusterAddOnManifestApplied,
				Status: metav1.ConditionTrue, Reason: addonv1alpha1.AddonManifestAppliedReasonManifestsApplied, Message: "applied"})
		})
		expectProgressing(ctx, cluster, name, metav1.ConditionTrue, addonv1alpha1.ProgressingReasonProgressing, "no addon works")

		work := &workv1.ManifestWork{
			ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: fmt.Sprintf("addon-%s-deploy-0", name),
				Labels:      map[string]string{addonv1alpha1.AddonLabelKey: name},
				Annotations: map[string]string{workv1.ManifestConfigSpecHashAnnotationKey: fmt.Sprintf(`{"addondeploymentconfigs.addon.open-cluster-management.io/%s/default":"h1"}`, ns)},
			},
			Spec: workv1.ManifestWorkSpec{Workload: workv1.ManifestsTemplate{Manifests: []workv1.Manifest{{RawExtension: runtime.RawExtension{
				Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"agent","namespace":"default"}}`),
			}}}}},
		}
		Expect(admin.Create(ctx, work)).To(Succeed())
		expectProgressing(ctx, cluster, name, metav1.ConditionTrue, addonv1alpha1.ProgressingReasonProgressing, "work is not ready")

		By("the work agent applies the work")
		Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
			if err := admin.Get(ctx, client.ObjectKeyFromObject(work), work); err != nil {
				return err
			}
			for _, t := range []string{workv1.WorkApplied, workv1.WorkAvailable} {
				meta.SetStatusCondition(&work.Status.Conditions, metav1.Condition{Type: t, Status: metav1.ConditionTrue, Reason: "Test", ObservedGeneration: work.Generation})
			}
			return admin.Status().Update(ctx, work)
		})).To(Succeed())
		expectProgressing(ctx, cluster, name, metav1.ConditionFalse, addonv1alpha1.ProgressingReasonCompleted, "completed")
		got := getAddon(ctx, cluster, name)
		Expect(got.Status.ConfigReferences).To(ConsistOf(HaveField("LastAppliedConfig.SpecHash", "h1")))

		By("the config changes: the work is behind until the framework renders it again")
		hashDefaultConfig(ctx, name, "h2")
		expectProgressing(ctx, cluster, name, metav1.ConditionTrue, addonv1alpha1.ProgressingReasonProgressing, "configs mismatch")
		Expect(getAddon(ctx, cluster, name).Status.ConfigReferences).To(ConsistOf(HaveField("LastAppliedConfig.SpecHash", "h1")),
			"the last applied config stays the old one until the new one is applied")
	})
})

// expectProgressing waits until the addon on cluster is Progressing with
// this status and reason, and a message containing message.
func expectProgressing(ctx context.Context, cluster, addon string, status metav1.ConditionStatus, reason, message string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		c := meta.FindStatusCondition(getAddon(ctx, cluster, addon).Status.Conditions, addonv1alpha1.ManagedClusterAddOnConditionProgressing)
		g.Expect(c).NotTo(BeNil())
		g.Expect(c.Status).To(Equal(status))
		g.Expect(c.Reason).To(Equal(reason))
		g.Expect(c.Message).To(ContainSubstring(message))
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}

// hashDefaultConfig plays the addon framework, which writes the spec hash
// of the addon's default config in the ClusterManagementAddOn's status.
func hashDefaultConfig(ctx context.Context, addon, hash string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		cma := &addonv1alpha1.ClusterManagementAddOn{}
		g.Expect(admin.Get(ctx, client.ObjectKey{Name: addon}, cma)).To(Succeed())
		g.Expect(cma.Status.DefaultConfigReferences).To(HaveLen(1), "the addon manager lists the default config")
		cma.Status.DefaultConfigReferences[0].DesiredConfig.SpecHash = hash
		g.Expect(admin.Status().Update(ctx, cma)).To(Succeed())
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}

// expectDesiredHash waits until the addon on cluster desires its one
// config with this spec hash.
func expectDesiredHash(ctx context.Context, cluster, addon, hash string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		g.Expect(getAddon(ctx, cluster, addon).Status.ConfigReferences).To(ConsistOf(HaveField("DesiredConfig.SpecHash", hash)))
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}

func getAddon(ctx context.Context, cluster, addon string) *addonv1alpha1.ManagedClusterAddOn {
	GinkgoHelper()
	mca := &addonv1alpha1.ManagedClusterAddOn{}
	Expect(admin.Get(ctx, client.ObjectKey{Namespace: cluster, Name: addon}, mca)).To(Succeed())
	return mca
}

// updateAddonStatus changes the addon's status as change says, retrying on
// conflicts with the hub's own writes.
func updateAddonStatus(ctx context.Context, cluster, addon string, change func(*addonv1alpha1.ManagedClusterAddOnStatus)) {
	GinkgoHelper()
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		mca := &addonv1alpha1.ManagedClusterAddOn{}
		if err := admin.Get(ctx, client.ObjectKey{Namespace: cluster, Name: addon}, mca); err != nil {
			return err
		}
		change(&mca.Status)
		return admin.Status().Update(ctx, mca)
	})).To(Succeed())
}
