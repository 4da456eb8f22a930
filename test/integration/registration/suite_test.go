// Package registration_test runs the hub as `corral hub` does, with the
// registration core's controllers and no built-in addons (not the
// admission webhooks, which test/integration/webhook covers), against a real hub control plane (etcd,
// kube-apiserver and the controller-manager that deletes namespaces), and
// agents against a second API server.
package registration_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/dev/localcluster"
	"github.com/corral-dev/corral/internal/testenv"
)

func TestRegistration(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "registration hub")
}

// leaseGraceMultiplier is OCM's default: a cluster with a 1 s lease goes
// stale in 5 s, soon enough for the specs, while a heartbeat the busy
// machine delays by a second or two does not make a live agent look gone
// (and its name free to take).
const leaseGraceMultiplier = 5

var (
	hubCluster     *localcluster.Cluster
	managedCluster *localcluster.Cluster
	admin          client.Client
	kube           kubernetes.Interface
)

var _ = BeforeSuite(func(ctx context.Context) {
	// The hub, and a separate API server an agent runs for.
	hubCluster, managedCluster = testenv.HubAndManaged(ctx)

	admin = testenv.MustClient(hubCluster.Config)
	kube = kubernetes.NewForConfigOrDie(hubCluster.Config)

	runHubControllers(hubCluster.Config)
}, NodeTimeout(localcluster.DefaultStartTimeout+60e9))

// runHubControllers runs the hub on cfg as corral hub does, without
// webhooks or built-in addons, until the node that calls it is cleaned up.
func runHubControllers(cfg *rest.Config) {
	GinkgoHelper()
	o := testenv.HubOptions(cfg)
	o.LeaseGraceMultiplier, o.Webhook.Port = leaseGraceMultiplier, 0
	testenv.RunHub(o)
}

// asCluster is a client that authenticates as cluster's agent would: the
// user and groups of its signed client certificate.
func asCluster(cluster string) client.Client {
	cfg := rest.CopyConfig(hubCluster.Config)
	cfg.Impersonate = rest.ImpersonationConfig{
		UserName: "system:open-cluster-management:" + cluster + ":agent1",
		Groups:   []string{"system:open-cluster-management:" + cluster, "system:open-cluster-management:managed-clusters", "system:authenticated"},
	}
	c, err := client.New(cfg, client.Options{Scheme: admin.Scheme()})
	Expect(err).NotTo(HaveOccurred())
	return c
}

// csrPEM is a PEM certificate request with the subject agent1 of cluster
// asks for.
func csrPEM(cluster string) []byte {
	return csrWithSubject("system:open-cluster-management:"+cluster+":agent1",
		"system:open-cluster-management:"+cluster, "system:open-cluster-management:managed-clusters")
}

// csrWithSubject is a PEM certificate request for any subject.
func csrWithSubject(cn string, orgs ...string) []byte {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	Expect(err).NotTo(HaveOccurred())
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{
		Subject: pkix.Name{CommonName: cn, Organization: orgs},
	}, key)
	Expect(err).NotTo(HaveOccurred())
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

// expectAccess waits until the cluster identity c may read cluster's
// ManagedCluster: the hub has granted it.
func expectAccess(ctx context.Context, c client.Client, cluster string) {
	GinkgoHelper()
	Eventually(func() error {
		return c.Get(ctx, client.ObjectKey{Name: cluster}, &clusterv1.ManagedCluster{})
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}
