// Package addonhost_test runs the agent's addon host against a real hub
// (etcd, kube-apiserver, the controller-manager that signs CSRs, the
// registration hub's controllers and the upstream addon-framework manager
// with test addons, which fills the ManagedClusterAddOns' registrations and
// approves and signs their CSRs) and a managed cluster that is a second
// API server.
package addonhost_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/klog/v2"
	"open-cluster-management.io/addon-framework/pkg/addonmanager"
	"open-cluster-management.io/addon-framework/pkg/agent"
	"open-cluster-management.io/addon-framework/pkg/utils"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/dev/localcluster"
	"github.com/corral-dev/corral/internal/testenv"
	"github.com/corral-dev/corral/registration/webhook"
)

func TestAddonHost(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "addon host")
}

const (
	timeout = 60 * time.Second
	// The test addons the hub's addon-framework manager knows.
	helloAddon  = "hello"  // built-in, kube-client registration, lease health
	crashyAddon = "crashy" // built-in whose agent panics at first
	signedAddon = "signed" // third-party, custom signer, short-lived certificates
	// customSigner signs signedAddon's certificates, for certLifetime.
	customSigner = "example.com/test-signer"
	certLifetime = 20 * time.Second
)

var (
	hubCluster     *localcluster.Cluster
	managedCluster *localcluster.Cluster
	admin          client.Client
	hubKube        kubernetes.Interface
	managedKube    kubernetes.Interface
)

var _ = BeforeSuite(func(ctx context.Context) {
	// The hub, and a separate API server an agent runs for.
	hubCluster, managedCluster = testenv.HubAndManaged(ctx)

	klog.SetLogger(GinkgoLogr)
	ctrl.SetLogger(GinkgoLogr)

	admin = testenv.MustClient(hubCluster.Config)
	hubKube = kubernetes.NewForConfigOrDie(hubCluster.Config)
	managedKube = kubernetes.NewForConfigOrDie(managedCluster.Config)

	By("storing the addon CRDs as v1beta1, the version addon-framework and the host speak")
	By("running the hub as corral hub does, without built-in addons: the registration core gives an accepted cluster its namespace and RBAC")
	// The hub's webhooks, among them the addon CRDs' conversion: the
	// agent reads and writes ManagedClusterAddOns as v1beta1.
	testenv.RunHub(testenv.HubOptions(hubCluster.Config))
	Expect(webhook.WaitConverting(ctx, admin, timeout)).To(Succeed())

	By("running the upstream addon-framework manager with the test addons")
	startAddonManager()
}, NodeTimeout(localcluster.DefaultStartTimeout+2*time.Minute))

// startAddonManager runs addon-framework's manager on the hub: it fills
// each test addon's registrations and install namespace and approves and
// signs its CSRs, as a third-party addon's hub half would.
func startAddonManager() {
	caCert, caKey := newSignerCA()
	approveAll := func(context.Context, *clusterv1.ManagedCluster, *addonv1beta1.ManagedClusterAddOn, *certificatesv1.CertificateSigningRequest) bool {
		return true
	}
	mgr, err := addonmanager.New(hubCluster.Config)
	Expect(err).NotTo(HaveOccurred())
	for _, name := range []string{helloAddon, crashyAddon} {
		Expect(mgr.AddAgent(&testAddon{opts: agent.AgentAddonOptions{
			AddonName: name,
			Registration: &agent.RegistrationOption{
				Configurations:  agent.KubeClientSignerConfigurations(name, name),
				CSRApproveCheck: approveAll,
			},
			HealthProber:          &agent.HealthProber{Type: agent.HealthProberTypeLease},
			AgentInstallNamespace: installNamespace,
		}})).To(Succeed())
	}
	Expect(mgr.AddAgent(&testAddon{opts: agent.AgentAddonOptions{
		AddonName: signedAddon,
		Registration: &agent.RegistrationOption{
			Configurations: func(context.Context, *clusterv1.ManagedCluster, *addonv1beta1.ManagedClusterAddOn) ([]agent.RegistrationConfig, error) {
				return []agent.RegistrationConfig{&agent.CustomSignerRegistration{SignerName: customSigner, User: "signed-agent", Groups: []string{"signed-group"}}}, nil
			},
			CSRApproveCheck: approveAll,
			CSRSign:         utils.DefaultSignerWithExpiry(caKey, caCert, certLifetime),
		},
		HealthProber:          &agent.HealthProber{Type: agent.HealthProberTypeLease},
		AgentInstallNamespace: installNamespace,
	}})).To(Succeed())
	ctx, cancel := context.WithCancel(context.Background())
	DeferCleanup(cancel)
	Expect(mgr.Start(ctx)).To(Succeed())
}

// installNamespace gives every test cluster's addons their own namespace
// on the (shared) managed cluster.
func installNamespace(_ context.Context, mca *addonv1beta1.ManagedClusterAddOn) (string, error) {
	return "addons-" + mca.Namespace, nil
}

// testAddon is an addon-framework addon with no manifests: its agent is
// run by the addon host, not delivered as a ManifestWork.
type testAddon struct{ opts agent.AgentAddonOptions }

func (a *testAddon) Manifests(context.Context, *clusterv1.ManagedCluster, *addonv1beta1.ManagedClusterAddOn) ([]runtime.Object, error) {
	return nil, nil
}

func (a *testAddon) GetAgentAddonOptions() agent.AgentAddonOptions { return a.opts }

// newSignerCA is a CA for the custom signer: PEM certificate and PKCS#1
// key, as addon-framework's signer takes them.
func newSignerCA() (certPEM, keyPEM []byte) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	Expect(err).NotTo(HaveOccurred())
	cert, err := certutil.NewSelfSignedCACert(certutil.Config{CommonName: "test-signer"}, key)
	Expect(err).NotTo(HaveOccurred())
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}),
		pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
}

// asRegistrationAgent reaches the hub as cluster's registration agent
// does: the user and groups of its client certificate.
func asRegistrationAgent(cluster string) *rest.Config {
	cfg := rest.CopyConfig(hubCluster.Config)
	cfg.Impersonate = rest.ImpersonationConfig{
		UserName: "system:open-cluster-management:" + cluster + ":agent1",
		Groups:   []string{"system:open-cluster-management:" + cluster, "system:open-cluster-management:managed-clusters", "system:authenticated"},
	}
	return cfg
}
