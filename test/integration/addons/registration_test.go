package addons_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"open-cluster-management.io/addon-framework/pkg/agent"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/addons/manager"
)

var _ = Describe("Addon registration", func() {
	It("creates the ClusterManagementAddOn of each built-in addon it runs", func(ctx context.Context) {
		cma := &addonv1alpha1.ClusterManagementAddOn{}
		Eventually(func() error {
			return admin.Get(ctx, client.ObjectKey{Name: helloAddon.Name}, cma)
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		Expect(cma.Spec.AddOnMeta.Description).To(Equal(helloAddon.Description))
		Expect(cma.Spec.InstallStrategy.Type).To(Equal(addonv1alpha1.AddonInstallStrategyManual))
	})

	It("gives an enabled addon its owner, health mode, an approved CSR, and its hub RBAC in the cluster namespace only until disabled", func(ctx context.Context) {
		cluster, other := newCluster(ctx, true), newCluster(ctx, true)
		enable(ctx, cluster, helloAddon.Name)

		By("owning the ManagedClusterAddOn by its ClusterManagementAddOn")
		Eventually(func(g Gomega) {
			mca := &addonv1alpha1.ManagedClusterAddOn{}
			g.Expect(admin.Get(ctx, client.ObjectKey{Namespace: cluster, Name: helloAddon.Name}, mca)).To(Succeed())
			g.Expect(mca.OwnerReferences).To(ContainElement(And(
				HaveField("Kind", "ClusterManagementAddOn"), HaveField("Name", helloAddon.Name), HaveField("Controller", HaveValue(BeTrue())))))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		By("setting the lease health check")
		Eventually(func(g Gomega) {
			mca := &addonv1alpha1.ManagedClusterAddOn{}
			g.Expect(admin.Get(ctx, client.ObjectKey{Namespace: cluster, Name: helloAddon.Name}, mca)).To(Succeed())
			g.Expect(mca.Status.HealthCheck.Mode).To(Equal(addonv1alpha1.HealthCheckModeLease))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		By("approving the CSR the cluster makes for it")
		registered(ctx, cluster, helloAddon.Name)
		expectApproved(ctx, defaultCSR(cluster, helloAddon.Name).submit(ctx, asCluster(cluster)))

		By("letting the addon's agent do its HubRules in its cluster namespace, and nowhere else")
		addonAgent := asAddonAgent(cluster, helloAddon.Name)
		Eventually(func() error {
			return addonAgent.List(ctx, &corev1.ConfigMapList{}, client.InNamespace(cluster))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		Expect(apierrors.IsForbidden(addonAgent.List(ctx, &corev1.ConfigMapList{}, client.InNamespace(other)))).To(BeTrue())
		Expect(apierrors.IsForbidden(addonAgent.List(ctx, &corev1.SecretList{}, client.InNamespace(cluster)))).To(BeTrue())
		roles := &rbacv1.RoleList{}
		Expect(admin.List(ctx, roles, client.MatchingLabels{addonv1alpha1.AddonLabelKey: helloAddon.Name})).To(Succeed())
		Expect(namespacesOf(roles.Items)).To(ContainElement(cluster))
		Expect(namespacesOf(roles.Items)).NotTo(ContainElement(other))

		By("removing the RBAC when the addon is disabled")
		Expect(admin.Delete(ctx, &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: helloAddon.Name}})).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(apierrors.IsNotFound(admin.Get(ctx, client.ObjectKey{Namespace: cluster, Name: manager.RBACName(helloAddon.Name)}, &rbacv1.Role{}))).To(BeTrue())
			g.Expect(apierrors.IsNotFound(admin.Get(ctx, client.ObjectKey{Namespace: cluster, Name: manager.RBACName(helloAddon.Name)}, &rbacv1.RoleBinding{}))).To(BeTrue())
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		Eventually(func() bool {
			return apierrors.IsForbidden(addonAgent.List(ctx, &corev1.ConfigMapList{}, client.InNamespace(cluster)))
		}).WithContext(ctx).WithTimeout(timeout).Should(BeTrue())
	})

	It("declares the agent's kube-client registration with the framework's default subject", func(ctx context.Context) {
		cluster := newCluster(ctx, true)
		enable(ctx, cluster, helloAddon.Name)
		Eventually(func(g Gomega) {
			mca := &addonv1beta1.ManagedClusterAddOn{}
			g.Expect(admin.Get(ctx, client.ObjectKey{Namespace: cluster, Name: helloAddon.Name}, mca)).To(Succeed())
			g.Expect(mca.Status.Registrations).To(ConsistOf(And(
				HaveField("Type", addonv1beta1.KubeClient),
				HaveField("KubeClient.Subject.User", agent.DefaultUser(cluster, helloAddon.Name, helloAddon.Name)),
				HaveField("KubeClient.Subject.Groups", ConsistOf(agent.DefaultGroups(cluster, helloAddon.Name))),
			)))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		By("and reading it as v1alpha1 too")
		mca := &addonv1alpha1.ManagedClusterAddOn{}
		Expect(admin.Get(ctx, client.ObjectKey{Namespace: cluster, Name: helloAddon.Name}, mca)).To(Succeed())
		Expect(mca.Status.Registrations).To(ConsistOf(And(
			HaveField("SignerName", certificatesv1.KubeAPIServerClientSignerName),
			HaveField("Subject.User", agent.DefaultUser(cluster, helloAddon.Name, helloAddon.Name)),
		)))
	})

	Describe("never approves", func() {
		It("a CSR for an addon that is not enabled", func(ctx context.Context) {
			cluster := newCluster(ctx, true)
			expectNeverApproved(ctx, defaultCSR(cluster, helloAddon.Name).submit(ctx, asCluster(cluster)))
		})

		It("a CSR for another cluster's addon", func(ctx context.Context) {
			cluster, other := newCluster(ctx, true), newCluster(ctx, true)
			enable(ctx, cluster, helloAddon.Name)
			enable(ctx, other, helloAddon.Name)
			registered(ctx, cluster, helloAddon.Name)
			registered(ctx, other, helloAddon.Name)
			forOther := defaultCSR(other, helloAddon.Name)
			forOther.labelCluster = cluster // labelled as cluster's, subject of other's
			expectNeverApproved(ctx, forOther.submit(ctx, asCluster(cluster)))
		})

		It("a CSR made by another cluster's identity", func(ctx context.Context) {
			cluster, other := newCluster(ctx, true), newCluster(ctx, true)
			enable(ctx, cluster, helloAddon.Name)
			registered(ctx, cluster, helloAddon.Name)
			expectNeverApproved(ctx, defaultCSR(cluster, helloAddon.Name).submit(ctx, asCluster(other)))
		})

		It("a CSR that asks for server authentication", func(ctx context.Context) {
			cluster := newCluster(ctx, true)
			enable(ctx, cluster, helloAddon.Name)
			registered(ctx, cluster, helloAddon.Name)
			serving := defaultCSR(cluster, helloAddon.Name)
			serving.usages = append(serving.usages, certificatesv1.UsageServerAuth)
			expectNeverApproved(ctx, serving.submit(ctx, asCluster(cluster)))
		})

		It("a CSR for a cluster that is not accepted", func(ctx context.Context) {
			cluster := newCluster(ctx, false)
			// The namespace and the right to make CSRs an unaccepted
			// cluster does not have, so that only acceptance is missing.
			Expect(admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: cluster}})).To(Succeed())
			DeferCleanup(func(ctx context.Context) {
				_ = admin.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: cluster}})
			})
			allowCSRs(ctx, cluster)
			enable(ctx, cluster, helloAddon.Name)
			// The framework has the addon (it gives registrations whether
			// or not the cluster is accepted), so the CSR is judged, and
			// refused for the cluster alone.
			registered(ctx, cluster, helloAddon.Name)
			expectNeverApproved(ctx, defaultCSR(cluster, helloAddon.Name).submit(ctx, asCluster(cluster)))
		})
	})
})

// allowCSRs lets cluster's identity create CSRs until the spec ends.
func allowCSRs(ctx context.Context, cluster string) {
	GinkgoHelper()
	name := "test-csr-creator-" + cluster
	Expect(admin.Create(ctx, &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"certificates.k8s.io"}, Resources: []string{"certificatesigningrequests"}, Verbs: []string{"create", "get"}}},
	})).To(Succeed())
	Expect(admin.Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: "system:open-cluster-management:" + cluster}},
	})).To(Succeed())
	DeferCleanup(func(ctx context.Context) {
		_ = admin.Delete(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name}})
		_ = admin.Delete(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}})
	})
}

func namespacesOf(roles []rbacv1.Role) []string {
	var ns []string
	for _, r := range roles {
		ns = append(ns, r.Namespace)
	}
	return ns
}
