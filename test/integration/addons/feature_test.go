package addons_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/util/retry"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/addons/manager/addonfeature"
	"github.com/corral-dev/corral/registration/hub/lease"
)

// The spec plays the cluster's agent, which reports the cluster and its
// addon available, and the lease controller, which makes the cluster
// Unknown when the agent stops.
var _ = Describe("A cluster's addon labels", func() {
	It("say how each enabled addon is, and go with the addon", func(ctx context.Context) {
		cluster := newCluster(ctx, true)
		name := "feature-" + utilrand.String(6)
		key := addonfeature.LabelKey(name)
		Expect(admin.Patch(ctx, &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: cluster}},
			client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"labels":{"team":"a"}}}`)))).To(Succeed())
		setClusterAvailable(ctx, cluster, metav1.ConditionTrue, "ManagedClusterAvailable", "")

		By("enabling the addon, which its agent reports available")
		mca := enable(ctx, cluster, name)
		updateAddonStatus(ctx, cluster, name, func(st *addonv1alpha1.ManagedClusterAddOnStatus) {
			meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: addonv1alpha1.ManagedClusterAddOnConditionAvailable,
				Status: metav1.ConditionTrue, Reason: "ManagedClusterAddOnLeaseUpdated", Message: "available"})
		})
		expectClusterLabel(ctx, cluster, key, addonfeature.Available)

		By("the addon turning unavailable")
		updateAddonStatus(ctx, cluster, name, func(st *addonv1alpha1.ManagedClusterAddOnStatus) {
			meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: addonv1alpha1.ManagedClusterAddOnConditionAvailable,
				Status: metav1.ConditionFalse, Reason: "ManagedClusterAddOnLeaseUpdateStopped", Message: "not available"})
		})
		expectClusterLabel(ctx, cluster, key, addonfeature.Unhealthy)

		By("the cluster's agent stopping: its addons become Unknown, and unreachable")
		setClusterAvailable(ctx, cluster, metav1.ConditionUnknown, lease.ReasonLeaseUpdateStopped, "Registration agent stopped updating its lease.")
		Eventually(func(g Gomega) {
			c := meta.FindStatusCondition(getAddon(ctx, cluster, name).Status.Conditions, addonv1alpha1.ManagedClusterAddOnConditionAvailable)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Status).To(Equal(metav1.ConditionUnknown))
			g.Expect(c.Reason).To(Equal(lease.ReasonLeaseUpdateStopped))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		expectClusterLabel(ctx, cluster, key, addonfeature.Unreachable)

		By("disabling the addon: its label goes, the others stay")
		Expect(admin.Delete(ctx, mca)).To(Succeed())
		Eventually(func(g Gomega) {
			mc := &clusterv1.ManagedCluster{}
			g.Expect(admin.Get(ctx, client.ObjectKey{Name: cluster}, mc)).To(Succeed())
			g.Expect(mc.Labels).NotTo(HaveKey(key))
			g.Expect(mc.Labels).To(HaveKeyWithValue("team", "a"))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	})
})

// setClusterAvailable sets the cluster's Available condition, as its
// agent (or the lease controller) does, retrying on conflicts with the
// hub's own writes.
func setClusterAvailable(ctx context.Context, cluster string, status metav1.ConditionStatus, reason, message string) {
	GinkgoHelper()
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		mc := &clusterv1.ManagedCluster{}
		if err := admin.Get(ctx, client.ObjectKey{Name: cluster}, mc); err != nil {
			return err
		}
		meta.SetStatusCondition(&mc.Status.Conditions, metav1.Condition{Type: clusterv1.ManagedClusterConditionAvailable,
			Status: status, Reason: reason, Message: message})
		return admin.Status().Update(ctx, mc)
	})).To(Succeed())
}

// expectClusterLabel waits until the cluster has the label key=value.
func expectClusterLabel(ctx context.Context, cluster, key, value string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		mc := &clusterv1.ManagedCluster{}
		g.Expect(admin.Get(ctx, client.ObjectKey{Name: cluster}, mc)).To(Succeed())
		g.Expect(mc.Labels).To(HaveKeyWithValue(key, value))
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}
