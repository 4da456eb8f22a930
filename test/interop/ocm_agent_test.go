package interop_test

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clusterclient "open-cluster-management.io/api/client/cluster/clientset/versioned"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/corral-dev/corral/internal/testenv"
	"github.com/corral-dev/corral/propagation"
	"github.com/corral-dev/corral/registration/agent"
	"github.com/corral-dev/corral/registration/bootstrap"
	registrationcli "github.com/corral-dev/corral/registration/cli"
	"github.com/corral-dev/corral/registration/hub/clusterset"
	"github.com/corral-dev/corral/work"
)

// Where OCM's agent keeps its hub identity on the managed cluster: its
// defaults, which the agent is run with.
const (
	ocmAgentNamespace = "open-cluster-management-agent"
	ocmHubSecret      = "hub-kubeconfig-secret"
	// ocmAddonNamespace is where addon agents run: the klusterlet makes it.
	ocmAddonNamespace = "open-cluster-management-agent-addon"
)

var _ = Describe("an unmodified OCM registration agent joining a corral hub", Ordered, func() {
	const cluster = "joined-by-ocm-agent"
	// hubKubeconfigDir is where the agent mirrors its hub-kubeconfig-secret,
	// as the klusterlet mounts it for OCM's work agent.
	var hubKubeconfigDir string

	BeforeAll(func(ctx context.Context) {
		By("installing on the hub what corral init does")
		Expect(registrationcli.InstallHub(ctx, corralHub.Config, GinkgoWriter)).To(Succeed())

		By("corral hub: the registration controllers and admission webhooks, wired as the binary wires them")
		startCorralHub(corralHub.Config)

		By("a bootstrap kubeconfig with a token of corral's bootstrap identity")
		token, err := bootstrap.Token(ctx, kubernetes.NewForConfigOrDie(corralHub.Config), 3600)
		Expect(err).NotTo(HaveOccurred())
		Expect(corralHub.Config.CAData).NotTo(BeEmpty(), "the hub's kubeconfig carries its CA")
		kubeconfig, err := agent.BootstrapKubeconfig(corralHub.Config.Host, corralHub.Config.CAData, token)
		Expect(err).NotTo(HaveOccurred())
		bootstrapKubeconfig := filepath.Join(GinkgoT().TempDir(), "bootstrap-kubeconfig")
		Expect(os.WriteFile(bootstrapKubeconfig, kubeconfig, 0o600)).To(Succeed())

		By("preparing the managed cluster as OCM's klusterlet does: its CRDs, the agent and the addon namespaces")
		installManagedCRDs(ctx, managedByOCMAgent.Config)
		for _, ns := range []string{ocmAgentNamespace, ocmAddonNamespace} {
			_, err = kubernetes.NewForConfigOrDie(managedByOCMAgent.Config).CoreV1().Namespaces().Create(ctx,
				&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
			Expect(err).NotTo(HaveOccurred())
		}

		By("running OCM's registration agent with its defaults, as the klusterlet deploys it")
		hubKubeconfigDir = filepath.Join(GinkgoT().TempDir(), "hub-kubeconfig")
		startUpstream(ocmRegistration, "ocm-registration-agent", "agent",
			"--spoke-cluster-name="+cluster,
			"--bootstrap-kubeconfig="+bootstrapKubeconfig,
			"--kubeconfig="+managedByOCMAgent.Kubeconfig,
			// Outside a pod: where the secret is mirrored to files, and no
			// leader election (there is no pod namespace to hold it in).
			"--hub-kubeconfig-dir="+hubKubeconfigDir,
			"--namespace="+ocmAgentNamespace,
			"--disable-leader-election",
			listenFlag(),
			"-v=4",
		)

		By("corral accept, once the agent asked to join")
		acceptWhenAsked(ctx, corralHub, cluster, func() { setLeaseDuration(ctx, corralHub, cluster, leaseSeconds) })

		By("running OCM's work agent as the klusterlet does, with the registration agent's hub kubeconfig")
		// It reads the kubeconfig once, at start, and exits without it.
		storedKubeconfig(ctx, filepath.Join(hubKubeconfigDir, "kubeconfig"))
		startUpstream(ocmWork, "ocm-work-agent", "agent",
			"--spoke-cluster-name="+cluster,
			"--hub-kubeconfig-dir="+hubKubeconfigDir,
			"--workload-source-config="+filepath.Join(hubKubeconfigDir, "kubeconfig"),
			"--kubeconfig="+managedByOCMAgent.Kubeconfig,
			"--namespace="+ocmAgentNamespace,
			"--disable-leader-election",
			listenFlag(),
			"-v=4",
		)
	}, NodeTimeout(3*timeout))

	It("is accepted by the hub and reports itself joined and available", func(ctx context.Context) {
		expectJoined(ctx, corralHub, cluster)
	}, NodeTimeout(2*timeout))

	It("was put in the default cluster set by corral hub's webhook", func(ctx context.Context) {
		mc, err := clusterclient.NewForConfigOrDie(corralHub.Config).ClusterV1().ManagedClusters().Get(ctx, cluster, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(mc.Labels).To(HaveKeyWithValue(clusterv1beta2.ClusterSetLabel, clusterset.DefaultSetName))
	})

	It("renews its lease on the hub", func(ctx context.Context) {
		expectLeaseRenewed(ctx, corralHub, cluster)
	}, NodeTimeout(3*timeout))

	It("stored the identity the hub issued in its hub-kubeconfig-secret", func(ctx context.Context) {
		secret := ocmAgentSecret(ctx)
		Expect(secret.Data).To(HaveKey("kubeconfig"))
		Expect(string(secret.Data["cluster-name"])).To(Equal(cluster))
		agentName := string(secret.Data["agent-name"])
		Expect(agentName).NotTo(BeEmpty())
		cert := parseCert(secret.Data["tls.crt"])
		Expect(cert.Subject.CommonName).To(Equal("system:open-cluster-management:" + cluster + ":" + agentName))
		Expect(cert.Subject.Organization).To(ConsistOf(
			"system:open-cluster-management:"+cluster, "system:open-cluster-management:managed-clusters"))

		kc, err := clientcmd.Load(secret.Data["kubeconfig"])
		Expect(err).NotTo(HaveOccurred())
		current := kc.Contexts[kc.CurrentContext]
		Expect(current).NotTo(BeNil(), "the stored kubeconfig has a current context")
		Expect(kc.Clusters[current.Cluster].Server).To(Equal(corralHub.Config.Host))
	})

	It("has OCM's work agent apply the hub's ManifestWorks with the identity the hub issued", func(ctx context.Context) {
		expectWorkDelivered(ctx, corralHub.Config, managedByOCMAgent.Config, cluster, "delivered-to-ocm-agent")
	}, NodeTimeout(3*timeout))

	It("delivers a Propagation through OCM's work agent, whose status says the agent ignores the adoption policy", func(ctx context.Context) {
		expectPropagatedThroughOCMAgent(ctx, corralHub.Config, managedByOCMAgent.Config, cluster)
	}, NodeTimeout(3*timeout))

	It("runs an unmodified OCM addon (the addon framework's helloworld): enabled with corral's CLI, delivered and registered by OCM's agents, Available, its agent working with its own credentials until it is disabled", func(ctx context.Context) {
		expectHelloworldAddon(ctx, corralHub, managedByOCMAgent, cluster)
	}, NodeTimeout(6*timeout))

	It("was granted an identity that sees only its own cluster", func(ctx context.Context) {
		secret := ocmAgentSecret(ctx)
		cfg := rest.AnonymousClientConfig(corralHub.Config)
		cfg.CertData, cfg.KeyData = secret.Data["tls.crt"], secret.Data["tls.key"]
		asAgent := clusterclient.NewForConfigOrDie(cfg).ClusterV1().ManagedClusters()

		other := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "someone-else"}}
		_, err := clusterclient.NewForConfigOrDie(corralHub.Config).ClusterV1().ManagedClusters().Create(ctx, other, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())

		_, err = asAgent.Get(ctx, cluster, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred(), "the agent reads its own ManagedCluster")
		_, err = asAgent.Get(ctx, other.Name, metav1.GetOptions{})
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "reading another cluster is forbidden, got %v", err)
		_, err = asAgent.List(ctx, metav1.ListOptions{})
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "listing every cluster is forbidden, got %v", err)
	})
})

// ocmAgentSecret is the hub kubeconfig Secret OCM's agent keeps on its
// managed cluster.
func ocmAgentSecret(ctx context.Context) *corev1.Secret {
	GinkgoHelper()
	secret, err := kubernetes.NewForConfigOrDie(managedByOCMAgent.Config).CoreV1().Secrets(ocmAgentNamespace).
		Get(ctx, ocmHubSecret, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	return secret
}

func parseCert(b []byte) *x509.Certificate {
	GinkgoHelper()
	block, _ := pem.Decode(b)
	Expect(block).NotTo(BeNil(), "a PEM certificate")
	cert, err := x509.ParseCertificate(block.Bytes)
	Expect(err).NotTo(HaveOccurred())
	return cert
}

// startCorralHub runs corral's hub as `corral hub --addons work` does
// (registration controllers, addon lifecycle, the admission webhooks with
// the work addon's ManifestWork validation, the work hub half, and the
// built-in propagation addon's hub half), with
// its webhooks on a free port on cfg, until the container ends; it
// returns once the webhooks answer.
func startCorralHub(cfg *rest.Config) {
	ctx := ctrl.LoggerInto(context.Background(), fileLogger("corral-hub"))
	stop, err := testenv.StartHub(ctx, testenv.HubOptions(cfg, work.Addon(), propagation.Addon()))
	Expect(err).NotTo(HaveOccurred(), "corral hub's webhooks answer")
	DeferCleanup(func() { Expect(stop(timeout)).To(Succeed()) })
}
