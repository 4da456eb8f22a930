// Package addonapi_test runs, against a real hub control plane with the
// hub's controllers and webhooks wired as `corral hub` wires them, the
// addon API as users and addon-framework see it: ManagedClusterAddOn and
// ClusterManagementAddOn read and written in both served versions through
// the hub's conversion webhook, and `corral addon enable` and `disable`.
package addonapi_test

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/dev/localcluster"
	"github.com/corral-dev/corral/internal/testenv"
	"github.com/corral-dev/corral/registration/webhook"
)

func TestAddonAPI(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "addon API")
}

// timeout bounds every wait: the registrar, the hub's controllers; generous
// for a busy 2-core machine.
const timeout = 60 * time.Second

var (
	admin     client.Client
	hubConfig *rest.Config
	// hubKubeconfig is the hub's admin kubeconfig file, for the CLI.
	hubKubeconfig string
)

var _ = BeforeSuite(func(ctx context.Context) {
	By("starting a hub control plane with what corral init installs")
	hubCluster := testenv.HubCluster(ctx)

	admin = testenv.MustClient(hubCluster.Config)
	hubConfig, hubKubeconfig = hubCluster.Config, hubCluster.Kubeconfig

	By("running the hub's controllers and webhooks as corral hub does")
	testenv.RunHub(testenv.HubOptions(hubCluster.Config))
	for _, name := range webhook.ConvertedCRDs {
		expectConversionWebhook(ctx, name)
	}
	expectConverting(ctx)
}, NodeTimeout(localcluster.DefaultStartTimeout+4*time.Minute))

// expectConversionWebhook waits until the CRD name converts through a
// webhook.
func expectConversionWebhook(ctx context.Context, name string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		g.Expect(admin.Get(ctx, client.ObjectKey{Name: name}, crd)).To(Succeed())
		g.Expect(crd.Spec.Conversion).NotTo(BeNil())
		g.Expect(crd.Spec.Conversion.Strategy).To(Equal(apiextensionsv1.WebhookConverter))
		g.Expect(crd.Spec.Conversion.Webhook.ClientConfig.CABundle).NotTo(BeEmpty())
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}

// expectConverting waits until the API server converts both addon kinds
// through the webhook: it switches a CRD's handler a moment after the CRD
// names the webhook, and the specs read each object once.
func expectConverting(ctx context.Context) {
	GinkgoHelper()
	ns := newNamespace(ctx)
	mca := &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: ns},
		Spec: addonv1alpha1.ManagedClusterAddOnSpec{InstallNamespace: "probe-agent"}}
	Expect(admin.Create(ctx, mca)).To(Succeed())
	cma := &addonv1alpha1.ClusterManagementAddOn{ObjectMeta: metav1.ObjectMeta{Name: testenv.UniqueName("probe")},
		Spec: addonv1alpha1.ClusterManagementAddOnSpec{SupportedConfigs: []addonv1alpha1.ConfigMeta{
			{ConfigGroupResource: addonv1alpha1.ConfigGroupResource{Group: "example.com", Resource: "probes"}}},
			InstallStrategy: addonv1alpha1.InstallStrategy{Type: addonv1alpha1.AddonInstallStrategyManual}}}
	Expect(admin.Create(ctx, cma)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { Expect(client.IgnoreNotFound(admin.Delete(ctx, cma))).To(Succeed()) })
	Eventually(func(g Gomega) {
		beta := &addonv1beta1.ManagedClusterAddOn{}
		g.Expect(admin.Get(ctx, client.ObjectKeyFromObject(mca), beta)).To(Succeed())
		g.Expect(beta.Annotations).To(HaveKeyWithValue(addonv1beta1.InstallNamespaceAnnotation, "probe-agent"))
		betaCMA := &addonv1beta1.ClusterManagementAddOn{}
		g.Expect(admin.Get(ctx, client.ObjectKeyFromObject(cma), betaCMA)).To(Succeed())
		g.Expect(betaCMA.Spec.DefaultConfigs).To(HaveLen(1))
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed(), "the API server converts the addon kinds through the webhook")
}

// newNamespace is a namespace for one spec, deleted after it.
func newNamespace(ctx context.Context) string {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: testenv.UniqueName("addon-spec")}}
	Expect(admin.Create(ctx, ns)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { Expect(client.IgnoreNotFound(admin.Delete(ctx, ns))).To(Succeed()) })
	return ns.Name
}
