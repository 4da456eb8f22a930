package localcluster_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
)

// newNamespace creates a namespace for one spec and deletes it afterwards.
func newNamespace(ctx context.Context, client kubernetes.Interface) string {
	ns, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "spec-"},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func(ctx context.Context) {
		_ = client.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{})
	})
	return ns.Name
}

// whoami asks the API server who cfg authenticates as.
func whoami(ctx context.Context, cfg *rest.Config) string {
	review, err := kubernetes.NewForConfigOrDie(cfg).AuthenticationV1().SelfSubjectReviews().
		Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	return review.Status.UserInfo.Username
}

var _ = Describe("hub profile", func() {
	It("serves its API over TLS that the admin kubeconfig verifies with the cluster CA and a client certificate", func(ctx context.Context) {
		Expect(hub.Config.Insecure).To(BeFalse())
		Expect(hub.Config.CAData).NotTo(BeEmpty())
		Expect(hub.Config.CertData).NotTo(BeEmpty())
		Expect(whoami(ctx, hub.Config)).To(Equal("corral-admin"))

		By("refusing a client that does not trust the cluster CA")
		untrusting := rest.CopyConfig(hub.Config)
		untrusting.CAData = nil
		_, err := kubernetes.NewForConfigOrDie(untrusting).CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
		Expect(err).To(MatchError(ContainSubstring("certificate signed by unknown authority")))
	})

	It("signs an approved kube-apiserver-client CSR with the cluster CA, giving a working identity", func(ctx context.Context) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		Expect(err).NotTo(HaveOccurred())
		der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{
			Subject: pkix.Name{CommonName: "system:open-cluster-management:c1:agent1", Organization: []string{"system:open-cluster-management:c1"}},
		}, key)
		Expect(err).NotTo(HaveOccurred())
		csr, err := hubClient.CertificatesV1().CertificateSigningRequests().Create(ctx, &certificatesv1.CertificateSigningRequest{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "c1-"},
			Spec: certificatesv1.CertificateSigningRequestSpec{
				Request:           pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}),
				SignerName:        certificatesv1.KubeAPIServerClientSignerName,
				Usages:            []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth, certificatesv1.UsageDigitalSignature},
				ExpirationSeconds: ptr.To[int32](3600),
			},
		}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func(ctx context.Context) {
			_ = hubClient.CertificatesV1().CertificateSigningRequests().Delete(ctx, csr.Name, metav1.DeleteOptions{})
		})
		csr.Status.Conditions = append(csr.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
			Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: "Test", Message: "approved by the test",
		})
		_, err = hubClient.CertificatesV1().CertificateSigningRequests().UpdateApproval(ctx, csr.Name, csr, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())

		var certPEM []byte
		Eventually(func(g Gomega) {
			got, err := hubClient.CertificatesV1().CertificateSigningRequests().Get(ctx, csr.Name, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(got.Status.Certificate).NotTo(BeEmpty())
			certPEM = got.Status.Certificate
		}).WithContext(ctx).Should(Succeed())

		block, _ := pem.Decode(certPEM)
		Expect(block).NotTo(BeNil())
		cert, err := x509.ParseCertificate(block.Bytes)
		Expect(err).NotTo(HaveOccurred())
		roots := x509.NewCertPool()
		Expect(roots.AppendCertsFromPEM(hub.Config.CAData)).To(BeTrue())
		_, err = cert.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
		Expect(err).NotTo(HaveOccurred())

		keyDER, err := x509.MarshalECPrivateKey(key)
		Expect(err).NotTo(HaveOccurred())
		agent := rest.AnonymousClientConfig(hub.Config)
		agent.CertData = certPEM
		agent.KeyData = pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
		Expect(whoami(ctx, agent)).To(Equal("system:open-cluster-management:c1:agent1"))
	})

	It("deletes a namespace together with its content", func(ctx context.Context) {
		ns := newNamespace(ctx, hubClient)
		_, err := hubClient.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "content"}}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(hubClient.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})).To(Succeed())
		Eventually(func() bool {
			_, err := hubClient.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
			return apierrors.IsNotFound(err)
		}).WithContext(ctx).Should(BeTrue(), "namespace %s should be gone", ns)
	})

	It("collects the dependents of a deleted owner", func(ctx context.Context) {
		ns := newNamespace(ctx, hubClient)
		cms := hubClient.CoreV1().ConfigMaps(ns)
		owner, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Name:            "dependent",
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID}},
		}}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(cms.Delete(ctx, owner.Name, metav1.DeleteOptions{})).To(Succeed())
		Eventually(func() bool {
			_, err := cms.Get(ctx, "dependent", metav1.GetOptions{})
			return apierrors.IsNotFound(err)
		}).WithContext(ctx).Should(BeTrue())
	})

	It("issues tokens for service accounts", func(ctx context.Context) {
		ns := newNamespace(ctx, hubClient)
		// No pod runs on a hub: it makes no default service account, so
		// the spec makes its own.
		_, err := hubClient.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "robot"}}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())

		By("populating a legacy token secret")
		_, err = hubClient.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: "token", Annotations: map[string]string{corev1.ServiceAccountNameKey: "robot"}},
			Type:       corev1.SecretTypeServiceAccountToken,
		}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		var token []byte
		Eventually(func(g Gomega) {
			s, err := hubClient.CoreV1().Secrets(ns).Get(ctx, "token", metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(s.Data[corev1.ServiceAccountTokenKey]).NotTo(BeEmpty())
			token = s.Data[corev1.ServiceAccountTokenKey]
		}).WithContext(ctx).Should(Succeed())

		sa := rest.AnonymousClientConfig(hub.Config)
		sa.BearerToken = string(token)
		Expect(whoami(ctx, sa)).To(Equal("system:serviceaccount:" + ns + ":robot"))

		By("answering a TokenRequest")
		tr, err := hubClient.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "robot", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		sa.BearerToken = tr.Status.Token
		Expect(whoami(ctx, sa)).To(Equal("system:serviceaccount:" + ns + ":robot"))
	})
})
