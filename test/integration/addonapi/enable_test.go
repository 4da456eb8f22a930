package addonapi_test

import (
	"context"
	"io"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	addoncli "github.com/corral-dev/corral/addons/cli"
	"github.com/corral-dev/corral/internal/testenv"
	"github.com/corral-dev/corral/internal/testing/builder"
)

// corralAddon runs `corral addon ARGS... --kubeconfig <hub>` as a user
// would, returning what it printed and its error.
func corralAddon(ctx context.Context, args ...string) (string, error) {
	addon := func(out io.Writer) *cobra.Command { return addoncli.NewCmdAddon(out) }
	return testenv.RunCommand(ctx, addon, append(args, "--kubeconfig", hubKubeconfig)...)
}

// newCluster creates a ManagedCluster, accepted or not, removed after the
// spec; an accepted one is returned once the hub has set it up.
func newCluster(ctx context.Context, accepted bool) string {
	GinkgoHelper()
	b := builder.Cluster(testenv.UniqueName("addon-cluster"))
	if accepted {
		b.Accepted()
	}
	mc := b.Obj()
	Expect(admin.Create(ctx, mc)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { Expect(client.IgnoreNotFound(admin.Delete(ctx, mc))).To(Succeed()) })
	if accepted {
		Eventually(func(g Gomega) {
			g.Expect(admin.Get(ctx, client.ObjectKeyFromObject(mc), mc)).To(Succeed())
			g.Expect(meta.IsStatusConditionTrue(mc.Status.Conditions, clusterv1.ManagedClusterConditionHubAccepted)).To(BeTrue())
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	}
	return mc.Name
}

// newAddon creates a ClusterManagementAddOn, removed after the spec.
func newAddon(ctx context.Context) string {
	GinkgoHelper()
	cma := &addonv1alpha1.ClusterManagementAddOn{ObjectMeta: metav1.ObjectMeta{Name: testenv.UniqueName("hello")},
		Spec: addonv1alpha1.ClusterManagementAddOnSpec{InstallStrategy: addonv1alpha1.InstallStrategy{Type: addonv1alpha1.AddonInstallStrategyManual}}}
	Expect(admin.Create(ctx, cma)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { Expect(client.IgnoreNotFound(admin.Delete(ctx, cma))).To(Succeed()) })
	return cma.Name
}

// enabledAddons lists the ManagedClusterAddOns in the clusters' namespaces.
func enabledAddons(ctx context.Context, clusters ...string) []string {
	GinkgoHelper()
	var out []string
	for _, c := range clusters {
		list := &addonv1alpha1.ManagedClusterAddOnList{}
		Expect(admin.List(ctx, list, client.InNamespace(c))).To(Succeed())
		for _, a := range list.Items {
			out = append(out, a.Namespace+"/"+a.Name)
		}
	}
	return out
}

var _ = Describe("corral addon enable", func() {
	It("refuses an addon the hub does not know, creating nothing", func(ctx context.Context) {
		addon, c1 := newAddon(ctx), newCluster(ctx, true)
		out, err := corralAddon(ctx, "enable", addon, "no-such-addon", "--clusters", c1)
		Expect(err).To(MatchError(ContainSubstring("the hub has no addon no-such-addon (no ClusterManagementAddOn; see corral addon list); nothing was enabled")))
		Expect(out).To(BeEmpty())
		Expect(enabledAddons(ctx, c1)).To(BeEmpty())
	})

	It("refuses a cluster that is not accepted, creating nothing on the accepted one either", func(ctx context.Context) {
		addon, c1, c2 := newAddon(ctx), newCluster(ctx, true), newCluster(ctx, false)
		_, err := corralAddon(ctx, "enable", addon, "--clusters", c1+","+c2)
		Expect(err).To(MatchError(ContainSubstring("cluster " + c2 + " is not accepted: accept it first (corral accept " + c2 + ")")))
		Expect(enabledAddons(ctx, c1)).To(BeEmpty())
	})

	It("enables on accepted clusters, idempotently, readable in both versions, and disables", func(ctx context.Context) {
		addon, c1, c2 := newAddon(ctx), newCluster(ctx, true), newCluster(ctx, true)
		out, err := corralAddon(ctx, "enable", addon, "--clusters", c1+","+c2, "--namespace", "hello-agent",
			"--config", "addon.open-cluster-management.io/addondeploymentconfigs/"+c1+"/hello-config")
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(Equal("addon " + addon + " enabled on cluster " + c1 + "\naddon " + addon + " enabled on cluster " + c2 + "\n" +
			"note: AddOnDeploymentConfig " + c1 + "/hello-config does not exist yet; the addon waits for it (Progressing) until it does\n"))
		Expect(enabledAddons(ctx, c1, c2)).To(ConsistOf(c1+"/"+addon, c2+"/"+addon))

		By("reading it as addon-framework does, in v1beta1")
		beta := &addonv1beta1.ManagedClusterAddOn{}
		Expect(admin.Get(ctx, client.ObjectKey{Namespace: c1, Name: addon}, beta)).To(Succeed())
		Expect(beta.Annotations).To(HaveKeyWithValue(addonv1beta1.InstallNamespaceAnnotation, "hello-agent"))
		Expect(beta.Spec.Configs).To(HaveLen(1))
		Expect(beta.Spec.Configs[0].Name).To(Equal("hello-config"))

		By("enabling again")
		out, err = corralAddon(ctx, "enable", addon, "--clusters", c1)
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(Equal("addon " + addon + " already enabled on cluster " + c1 + "\n"))

		By("listing it")
		out, err = corralAddon(ctx, "list")
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(MatchRegexp(addon + `\s+Manual\s+2\s+0/2\s+`))
		Expect(out).To(And(ContainSubstring(c1), ContainSubstring(c2)))

		By("disabling it everywhere")
		out, err = corralAddon(ctx, "disable", addon, "--all-clusters", "--yes")
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring("addon " + addon + " disabled on cluster " + c2))
		Eventually(func() []string { return enabledAddons(ctx, c1, c2) }).WithContext(ctx).WithTimeout(timeout).Should(BeEmpty())
	})
})
