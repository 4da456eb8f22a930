package interop_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	addonclient "open-cluster-management.io/api/client/addon/clientset/versioned"
	clusterclient "open-cluster-management.io/api/client/cluster/clientset/versioned"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/addons/host"
	corralagent "github.com/corral-dev/corral/agent"
	"github.com/corral-dev/corral/deploy/charts/corral-hub/crds"
	"github.com/corral-dev/corral/internal/testenv"
	"github.com/corral-dev/corral/registration/agent"
	"github.com/corral-dev/corral/registration/webhook"
	"github.com/corral-dev/corral/work"
)

// OCM's bootstrap identity, as `clusteradm init` creates it on a hub
// (clusteradm pkg/cmd/init/scenario/init/bootstrap_*.yaml): what a joining
// agent may do before it is accepted.
const (
	ocmBootstrapNamespace = "open-cluster-management"
	ocmBootstrapSA        = "cluster-bootstrap"
	ocmBootstrapRole      = "system:open-cluster-management:bootstrap"
	ocmBootstrapBinding   = "cluster-bootstrap-sa"
)

// ocmBootstrapToken is a bootstrap token of the OCM hub.
var ocmBootstrapToken string

var _ = Describe("a corral agent joining an OCM hub", Ordered, func() {
	const cluster = "joined-by-corral-agent"
	var kubeconfigFile string

	BeforeAll(func(ctx context.Context) {
		By("making the API server an OCM hub: the api module's CRDs and clusteradm's bootstrap identity")
		Expect(crds.Install(ctx, ocmHub.Config)).To(Succeed())
		ocmBootstrapToken = installOCMBootstrapIdentity(ctx, kubernetes.NewForConfigOrDie(ocmHub.Config))

		By("running OCM's registration controller and addon manager on it")
		startUpstream(ocmRegistration, "ocm-registration-controller", "controller",
			"--kubeconfig="+ocmHub.Kubeconfig,
			"--disable-leader-election",
			listenFlag(),
			"-v=4",
		)
		startUpstream(ocmAddon, "ocm-addon-manager", "manager",
			"--kubeconfig="+ocmHub.Kubeconfig,
			"--disable-leader-election",
			listenFlag(),
			"-v=4",
		)
		serveOCMAddonConversion(ctx)

		By("running a corral agent, as `corral agent --addons none` does (the registration agent and the addon host), with a bootstrap token of that identity")
		kubeconfigFile = filepath.Join(GinkgoT().TempDir(), "hub-kubeconfig")
		o := corralagent.NewOptions(io.Discard)
		o.ClusterName, o.ManagedConfig, o.Bootstrap = cluster, managedByCorral.Config, ocmBootstrap()
		o.HubKubeconfigFile, o.LeaseSeconds = kubeconfigFile, leaseSeconds
		runInBackground("corral-agent-"+cluster, o.Run)

		By("corral accept on the OCM hub, once the agent asked to join")
		acceptWhenAsked(ctx, ocmHub, cluster, nil)

		By("running corral's work agent, as `corral agent --addons work --no-registration` does, with the stored hub kubeconfig")
		storedKubeconfig(ctx, kubeconfigFile)
		_, err := kubernetes.NewForConfigOrDie(managedByCorral.Config).CoreV1().Namespaces().Create(ctx,
			&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: host.DefaultInstallNamespace}}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		w := corralagent.NewOptions(io.Discard, work.Addon())
		w.ClusterName, w.ManagedConfig = cluster, managedByCorral.Config
		w.NoRegistration, w.HubKubeconfig = true, kubeconfigFile
		runInBackground("corral-work-agent", w.Run)
	}, NodeTimeout(3*timeout))

	It("is accepted by OCM's controller and reports itself joined and available", func(ctx context.Context) {
		mc := expectJoined(ctx, ocmHub, cluster)
		accepted := meta.FindStatusCondition(mc.Status.Conditions, clusterv1.ManagedClusterConditionHubAccepted)
		Expect(accepted.Reason).To(Equal("HubClusterAdminAccepted"), "OCM's controller accepted it")
	}, NodeTimeout(2*timeout))

	It("renews the lease OCM's controller created", func(ctx context.Context) {
		expectLeaseRenewed(ctx, ocmHub, cluster)
	}, NodeTimeout(3*timeout))

	It("stored a hub kubeconfig that works on the OCM hub, for its own cluster only", func(ctx context.Context) {
		cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfigFile)
		Expect(err).NotTo(HaveOccurred())
		asAgent := clusterclient.NewForConfigOrDie(cfg).ClusterV1().ManagedClusters()

		other := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "someone-else"}}
		_, err = clusterclient.NewForConfigOrDie(ocmHub.Config).ClusterV1().ManagedClusters().Create(ctx, other, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())

		_, err = asAgent.Get(ctx, cluster, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred(), "the stored identity reads its own ManagedCluster")
		_, err = asAgent.Get(ctx, other.Name, metav1.GetOptions{})
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "reading another cluster is forbidden, got %v", err)

		stored, err := kubernetes.NewForConfigOrDie(managedByCorral.Config).CoreV1().Secrets(agent.DefaultSecretNamespace).
			Get(ctx, agent.DefaultSecretName, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred(), "the agent keeps its identity where OCM's agent does")
		Expect(string(stored.Data["cluster-name"])).To(Equal(cluster))
	})

	It("has corral's work agent apply the OCM hub's ManifestWorks with the identity OCM's controller issued", func(ctx context.Context) {
		expectWorkDelivered(ctx, ocmHub.Config, managedByCorral.Config, cluster, "delivered-by-ocm-hub")
	}, NodeTimeout(3*timeout))

	It("runs an unmodified OCM addon (the addon framework's helloworld) on the OCM hub: delivered and registered by corral's agents, Available, its agent working with its own credentials until it is disabled", func(ctx context.Context) {
		expectHelloworldAddon(ctx, ocmHub, managedByCorral, cluster)
	}, NodeTimeout(6*timeout))

	It("rotates its client certificate through OCM's renewal approval", func(ctx context.Context) {
		const rotating, secretName = "rotated-by-corral-agent", "hub-kubeconfig-rotated"
		clk := clocktesting.NewFakeClock(time.Now())
		startRegistrationAgent(rotating, secretName, clk)
		acceptWhenAsked(ctx, ocmHub, rotating, nil)

		managed := kubernetes.NewForConfigOrDie(managedByCorral.Config).CoreV1().Secrets(agent.DefaultSecretNamespace)
		var first []byte
		Eventually(func(g Gomega) {
			s, err := managed.Get(ctx, secretName, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			first = s.Data["tls.crt"]
			g.Expect(first).NotTo(BeEmpty(), "the agent records its id before the certificate arrives")
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		Eventually(func(g Gomega) {
			mc, err := clusterclient.NewForConfigOrDie(ocmHub.Config).ClusterV1().ManagedClusters().Get(ctx, rotating, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(meta.IsStatusConditionTrue(mc.Status.Conditions, clusterv1.ManagedClusterConditionHubAccepted)).To(BeTrue())
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		By("the agent's clock passing 80% of the certificate's life")
		cert := parseCert(first)
		clk.SetTime(cert.NotBefore.Add(time.Duration(float64(cert.NotAfter.Sub(cert.NotBefore)) * 0.81)))
		Eventually(func(g Gomega) {
			clk.Step(leaseSeconds * time.Second) // another period, should the first attempt have failed
			s, err := managed.Get(ctx, secretName, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(s.Data["tls.crt"]).NotTo(Equal(first))
		}).WithContext(ctx).WithTimeout(timeout).WithPolling(time.Second).Should(Succeed())

		By("OCM's controller having approved the renewal")
		csrs, err := kubernetes.NewForConfigOrDie(ocmHub.Config).CertificatesV1().CertificateSigningRequests().List(ctx,
			metav1.ListOptions{LabelSelector: clusterv1.ClusterNameLabelKey + "=" + rotating})
		Expect(err).NotTo(HaveOccurred())
		Expect(csrs.Items).To(ContainElement(HaveField("Status.Conditions", ContainElement(And(
			HaveField("Type", certificatesv1.CertificateApproved),
			HaveField("Reason", "AutoApprovedByHubCSRApprovingController"))))))
	}, NodeTimeout(3*timeout))
})

// startRegistrationAgent runs corral's registration agent alone for
// cluster on managedByCorral, on clk, storing its identity in secretName,
// joining the OCM hub with a bootstrap token of clusteradm's identity,
// until the spec (or container) ends.
func startRegistrationAgent(cluster, secretName string, clk clock.WithTicker) {
	a, err := agent.New(agent.Options{
		ClusterName: cluster, Bootstrap: ocmBootstrap(), Managed: managedByCorral.Config,
		SecretName: secretName, Clock: clk, LeaseDurationSeconds: leaseSeconds, PollInterval: 500 * time.Millisecond,
	})
	Expect(err).NotTo(HaveOccurred())
	runInBackground("corral-agent-"+cluster, a.Run)
}

// ocmBootstrap reaches the OCM hub with a bootstrap token of clusteradm's
// identity.
func ocmBootstrap() *rest.Config {
	boot := rest.AnonymousClientConfig(ocmHub.Config)
	boot.BearerToken = ocmBootstrapToken
	return boot
}

// runInBackground runs run until the spec (or container) ends, logging to
// a file named after name; its error then fails the spec.
func runInBackground(name string, run func(context.Context) error) {
	stop := testenv.Go(klog.NewContext(context.Background(), fileLogger(name)), run)
	DeferCleanup(func() { Expect(stop(timeout)).To(Succeed()) })
}

// installOCMBootstrapIdentity creates clusteradm's bootstrap service
// account, role and binding by hand and returns a token for it, as
// `clusteradm get token` issues one.
func installOCMBootstrapIdentity(ctx context.Context, kube kubernetes.Interface) string {
	GinkgoHelper()
	_, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ocmBootstrapNamespace}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	_, err = kube.CoreV1().ServiceAccounts(ocmBootstrapNamespace).Create(ctx,
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: ocmBootstrapSA}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	_, err = kube.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: ocmBootstrapRole},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"certificates.k8s.io"}, Resources: []string{"certificatesigningrequests"}, Verbs: []string{"create", "get", "list", "watch"}},
			{APIGroups: []string{"cluster.open-cluster-management.io"}, Resources: []string{"managedclusters"}, Verbs: []string{"get", "create"}},
			{APIGroups: []string{"cluster.open-cluster-management.io"}, Resources: []string{"managedclustersets/join"}, Verbs: []string{"create"}},
		},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	_, err = kube.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: ocmBootstrapBinding},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: ocmBootstrapRole},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: ocmBootstrapSA, Namespace: ocmBootstrapNamespace}},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	ttl := int64(3600)
	tr, err := kube.CoreV1().ServiceAccounts(ocmBootstrapNamespace).CreateToken(ctx, ocmBootstrapSA,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &ttl}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	return tr.Status.Token
}

// serveOCMAddonConversion runs OCM's addon conversion webhook server for
// the OCM hub and points the addon CRDs' conversion at it, as OCM's
// cluster manager does: the api module's CRDs serve v1beta1 beside the
// stored v1alpha1, and only the webhook converts between them (corral's
// addon host reads v1beta1).
func serveOCMAddonConversion(ctx context.Context) {
	GinkgoHelper()
	certDir := GinkgoT().TempDir()
	cert, key, err := certutil.GenerateSelfSignedCertKey("127.0.0.1", []net.IP{net.ParseIP("127.0.0.1")}, nil)
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(filepath.Join(certDir, corev1.TLSCertKey), cert, 0o600)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(certDir, corev1.TLSPrivateKeyKey), key, 0o600)).To(Succeed())
	port := freePort()
	// Its health and metrics endpoints have no flags.
	expectPortsFree("OCM's addon webhook server", ":8000", ":8080")
	startUpstream(ocmAddon, "ocm-addon-webhook", "webhook-server",
		"--kubeconfig="+ocmHub.Kubeconfig,
		fmt.Sprintf("--port=%d", port),
		"--certdir="+certDir,
	)

	url := fmt.Sprintf("https://127.0.0.1:%d/convert", port)
	crds := apiextensionsclient.NewForConfigOrDie(ocmHub.Config).ApiextensionsV1().CustomResourceDefinitions()
	for _, name := range webhook.ConvertedCRDs {
		crd, err := crds.Get(ctx, name, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{
			Strategy: apiextensionsv1.WebhookConverter,
			Webhook: &apiextensionsv1.WebhookConversion{
				ClientConfig:             &apiextensionsv1.WebhookClientConfig{URL: &url, CABundle: cert},
				ConversionReviewVersions: []string{"v1"},
			},
		}
		_, err = crds.Update(ctx, crd, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())
	}
	expectAddonsConverted(ctx, addonclient.NewForConfigOrDie(ocmHub.Config))
}

// expectAddonsConverted waits until addons written as v1alpha1 read as
// v1beta1 with what only a conversion makes of them: a ManagedClusterAddOn's
// registration gets its type, a ClusterManagementAddOn's supported config
// with a default becomes a default config. Unconverted, both read empty.
func expectAddonsConverted(ctx context.Context, addons addonclient.Interface) {
	GinkgoHelper()
	const probe, ns = "conversion-probe", ocmBootstrapNamespace
	cma, err := addons.AddonV1alpha1().ClusterManagementAddOns().Create(ctx, &addonv1alpha1.ClusterManagementAddOn{
		ObjectMeta: metav1.ObjectMeta{Name: probe},
		Spec: addonv1alpha1.ClusterManagementAddOnSpec{
			InstallStrategy: addonv1alpha1.InstallStrategy{Type: addonv1alpha1.AddonInstallStrategyManual},
			SupportedConfigs: []addonv1alpha1.ConfigMeta{{
				ConfigGroupResource: addonv1alpha1.ConfigGroupResource{Group: addonv1alpha1.GroupName, Resource: "addondeploymentconfigs"},
				DefaultConfig:       &addonv1alpha1.ConfigReferent{Namespace: ns, Name: probe},
			}},
		},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func(ctx context.Context) {
		Expect(addons.AddonV1alpha1().ClusterManagementAddOns().Delete(ctx, cma.Name, metav1.DeleteOptions{})).To(Succeed())
	})
	mca, err := addons.AddonV1alpha1().ManagedClusterAddOns(ns).Create(ctx, &addonv1alpha1.ManagedClusterAddOn{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: probe},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func(ctx context.Context) {
		Expect(addons.AddonV1alpha1().ManagedClusterAddOns(ns).Delete(ctx, mca.Name, metav1.DeleteOptions{})).To(Succeed())
	})
	mca.Status.Registrations = []addonv1alpha1.RegistrationConfig{{SignerName: certificatesv1.KubeAPIServerClientSignerName}}
	_, err = addons.AddonV1alpha1().ManagedClusterAddOns(ns).UpdateStatus(ctx, mca, metav1.UpdateOptions{})
	Expect(err).NotTo(HaveOccurred())

	Eventually(func(g Gomega) {
		cma, err := addons.AddonV1beta1().ClusterManagementAddOns().Get(ctx, probe, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(cma.Spec.DefaultConfigs).To(ContainElement(HaveField("ConfigReferent.Name", probe)))
		mca, err := addons.AddonV1beta1().ManagedClusterAddOns(ns).Get(ctx, probe, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(mca.Status.Registrations).To(ConsistOf(HaveField("Type", addonv1beta1.KubeClient)))
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}
