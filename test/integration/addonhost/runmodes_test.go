package addonhost_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"os"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"open-cluster-management.io/addon-framework/pkg/agent"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	corralagent "github.com/corral-dev/corral/agent"
	regagent "github.com/corral-dev/corral/registration/agent"
)

var _ = Describe("corral agent --no-registration", func() {
	It("runs only the named addon's agent half, with the given hub kubeconfig, until stopped", func(ctx context.Context) {
		cluster := "c-" + utilrand.String(6)
		ns := "hosted-" + cluster
		hello, other := newAgentRuns(), newAgentRuns()
		cmd := corralagent.NewCommand(io.Discard, leaseAgent(helloAddon, hello, 0), leaseAgent(crashyAddon, other, 0))
		cmd.SetArgs([]string{
			"--addons", helloAddon, "--no-registration", "--cluster-name", cluster, "--addon-namespace", ns,
			"--hub-kubeconfig", hubCluster.Kubeconfig, "--kubeconfig", managedCluster.Kubeconfig,
		})
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		runCtx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- cmd.ExecuteContext(runCtx) }()
		DeferCleanup(cancel)
		Expect(managedKube.CoreV1().Namespaces().Create(ctx, namespace(ns), metav1.CreateOptions{})).Error().NotTo(HaveOccurred())

		By("running hello as the hub kubeconfig's user, and renewing its lease in the given namespace")
		key := cluster + "/" + helloAddon
		self, err := hubKube.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() string { return hello.username(key) }).WithContext(ctx).WithTimeout(timeout).
			Should(Equal(self.Status.UserInfo.Username))
		Eventually(func() error {
			_, err := managedKube.CoordinationV1().Leases(ns).Get(ctx, helloAddon, metav1.GetOptions{})
			return err
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		Expect(other.get(other.started, cluster+"/"+crashyAddon)).To(BeZero(), "an addon not named does not run")

		By("stopping it when the command is stopped")
		cancel()
		Eventually(done).WithTimeout(timeout).Should(Receive(BeNil()))
		Expect(hello.get(hello.running, key)).To(BeZero())
		Expect(hello.get(hello.stopped, key)).To(Equal(1))
		lease, err := managedKube.CoordinationV1().Leases(ns).Get(ctx, helloAddon, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(lease.Spec.RenewTime).NotTo(BeNil())
	})
})

var _ = Describe("corral agent", func() {
	It("hosts the cluster's addons with the registration agent's stored hub identity", func(ctx context.Context) {
		cluster := newCluster(ctx)
		agentUser := "system:open-cluster-management:" + cluster + ":agent1"

		By("storing an identity for the cluster's registration agent, as a join would have")
		certPEM, keyPEM := signedClientCert(ctx, cluster, agentUser,
			"system:open-cluster-management:"+cluster, "system:open-cluster-management:managed-clusters")
		kubeconfig := hubKubeconfig(certPEM, keyPEM)
		storeRegistrationIdentity(ctx, cluster, kubeconfig, certPEM, keyPEM)

		hello := newAgentRuns()
		cmd := corralagent.NewCommand(io.Discard, leaseAgent(helloAddon, hello, 0))
		cmd.SetArgs([]string{"--cluster-name", cluster, "--kubeconfig", managedCluster.Kubeconfig,
			"--bootstrap-kubeconfig", hubCluster.Kubeconfig, "--addons", helloAddon})
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		runCtx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- cmd.ExecuteContext(runCtx) }()
		DeferCleanup(cancel)
		enable(ctx, cluster, helloAddon)

		By("asking for the addon's certificate as the registration agent")
		Eventually(func(g Gomega) {
			csrs := addonCSRs(ctx, cluster, helloAddon)
			g.Expect(csrs).NotTo(BeEmpty())
			g.Expect(csrs[0].Spec.Username).To(Equal(agentUser))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		By("running the built-in agent as the addon, and reporting it Available")
		key := cluster + "/" + helloAddon
		Eventually(func() string { return hello.username(key) }).WithContext(ctx).WithTimeout(timeout).
			Should(Equal(agent.DefaultUser(cluster, helloAddon, helloAddon)))
		Eventually(func(g Gomega) {
			c := condition(ctx, cluster, helloAddon, addonv1beta1.ManagedClusterAddOnConditionAvailable)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Status).To(Equal(metav1.ConditionTrue))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		By("stopping the addon's agent with the command")
		cancel()
		Eventually(done).WithTimeout(timeout).Should(Receive(BeNil()))
		Expect(hello.get(hello.running, key)).To(BeZero())
	})
})

// signedClientCert has the hub sign a client certificate for user in
// groups, approved by the hub admin.
func signedClientCert(ctx context.Context, cluster, user string, groups ...string) (certPEM, keyPEM []byte) {
	GinkgoHelper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	Expect(err).NotTo(HaveOccurred())
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: user, Organization: groups}}, key)
	Expect(err).NotTo(HaveOccurred())
	csr, err := hubKube.CertificatesV1().CertificateSigningRequests().Create(ctx, &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{GenerateName: cluster + "-", Labels: map[string]string{clusterv1.ClusterNameLabelKey: cluster}},
		Spec: certificatesv1.CertificateSigningRequestSpec{
			Request:    pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}),
			SignerName: certificatesv1.KubeAPIServerClientSignerName,
			Usages:     []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageClientAuth},
		},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	csr.Status.Conditions = append(csr.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
		Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: "TestApproved",
	})
	_, err = hubKube.CertificatesV1().CertificateSigningRequests().UpdateApproval(ctx, csr.Name, csr, metav1.UpdateOptions{})
	Expect(err).NotTo(HaveOccurred())
	Eventually(func() []byte {
		got, err := hubKube.CertificatesV1().CertificateSigningRequests().Get(ctx, csr.Name, metav1.GetOptions{})
		if err != nil {
			return nil
		}
		return got.Status.Certificate
	}).WithContext(ctx).WithTimeout(timeout).ShouldNot(BeEmpty())
	got, err := hubKube.CertificatesV1().CertificateSigningRequests().Get(ctx, csr.Name, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	keyDER, err := x509.MarshalECPrivateKey(key)
	Expect(err).NotTo(HaveOccurred())
	return got.Status.Certificate, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
}

// hubKubeconfig reaches the hub with the given client certificate.
func hubKubeconfig(certPEM, keyPEM []byte) []byte {
	GinkgoHelper()
	ca := hubCluster.Config.CAData
	if len(ca) == 0 {
		var err error
		ca, err = os.ReadFile(hubCluster.Config.CAFile)
		Expect(err).NotTo(HaveOccurred())
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["hub"] = &clientcmdapi.Cluster{Server: hubCluster.Config.Host, CertificateAuthorityData: ca}
	cfg.AuthInfos["agent"] = &clientcmdapi.AuthInfo{ClientCertificateData: certPEM, ClientKeyData: keyPEM}
	cfg.Contexts["hub"] = &clientcmdapi.Context{Cluster: "hub", AuthInfo: "agent"}
	cfg.CurrentContext = "hub"
	out, err := clientcmd.Write(*cfg)
	Expect(err).NotTo(HaveOccurred())
	return out
}

// storeRegistrationIdentity writes the registration agent's hub
// kubeconfig Secret on the managed cluster, and removes it after the spec.
func storeRegistrationIdentity(ctx context.Context, cluster string, kubeconfig, certPEM, keyPEM []byte) {
	GinkgoHelper()
	_, err := managedKube.CoreV1().Namespaces().Create(ctx, namespace(regagent.DefaultSecretNamespace), metav1.CreateOptions{})
	if err != nil {
		Expect(apierrors.IsAlreadyExists(err)).To(BeTrue(), "creating the agent namespace: %v", err)
	}
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: regagent.DefaultSecretNamespace, Name: regagent.DefaultSecretName},
		Data: map[string][]byte{
			regagent.KeyKubeconfig: kubeconfig, regagent.KeyCert: certPEM, regagent.KeyKey: keyPEM,
			regagent.KeyClusterName: []byte(cluster), regagent.KeyAgentName: []byte("agent1"),
		},
	}
	_, err = managedKube.CoreV1().Secrets(s.Namespace).Create(ctx, s, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func(ctx context.Context) {
		_ = managedKube.CoreV1().Secrets(s.Namespace).Delete(ctx, s.Name, metav1.DeleteOptions{})
	})
}
