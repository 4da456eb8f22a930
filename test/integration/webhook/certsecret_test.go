package webhook_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	corralhub "github.com/corral-dev/corral/hub"
	"github.com/corral-dev/corral/internal/testenv"
	"github.com/corral-dev/corral/internal/testing/builder"
	"github.com/corral-dev/corral/registration/bootstrap"
	"github.com/corral-dev/corral/registration/hub/clusterset"
	"github.com/corral-dev/corral/registration/webhook"
)

// served is the certificate the webhook server on port presents.
func served(port int) (*x509.Certificate, error) {
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", fmt.Sprintf("127.0.0.1:%d", port),
		&tls.Config{InsecureSkipVerify: true}) // the spec checks the certificate itself
	if err != nil {
		return nil, err
	}
	defer func() { _ = conn.Close() }()
	return conn.ConnectionState().PeerCertificates[0], nil
}

// trustedBundles are the caBundles the hub's API server verifies the
// webhooks with: the three configurations' and the addon CRDs'
// conversion's, by name.
func trustedBundles(ctx context.Context) map[string][]byte {
	GinkgoHelper()
	out := map[string][]byte{}
	m := &admissionregistrationv1.MutatingWebhookConfiguration{}
	Expect(admin.Get(ctx, client.ObjectKey{Name: webhook.ClusterMutatingName}, m)).To(Succeed())
	out[m.Name] = m.Webhooks[0].ClientConfig.CABundle
	for _, name := range []string{webhook.ClusterValidatingName, webhook.BindingValidatingName} {
		v := &admissionregistrationv1.ValidatingWebhookConfiguration{}
		Expect(admin.Get(ctx, client.ObjectKey{Name: name}, v)).To(Succeed())
		out[name] = v.Webhooks[0].ClientConfig.CABundle
	}
	for _, name := range webhook.ConvertedCRDs {
		crd := &unstructured.Unstructured{}
		crd.SetAPIVersion("apiextensions.k8s.io/v1")
		crd.SetKind("CustomResourceDefinition")
		Expect(admin.Get(ctx, client.ObjectKey{Name: name}, crd)).To(Succeed())
		b64, _, err := unstructured.NestedString(crd.Object, "spec", "conversion", "webhook", "clientConfig", "caBundle")
		Expect(err).NotTo(HaveOccurred())
		pem, err := base64.StdEncoding.DecodeString(b64)
		Expect(err).NotTo(HaveOccurred())
		out[name] = pem
	}
	return out
}

var _ = Describe("The webhook certificate kept in a Secret", func() {
	It("is made by the hub holding the lease, served by every hub process, trusted by the API server, and kept when another takes over", func(ctx context.Context) {
		ref := client.ObjectKey{Namespace: bootstrap.Namespace, Name: testenv.UniqueName("webhook-cert")}
		keepIn := func(o *corralhub.Options) { o.Webhook.CertSecret = ref.Namespace + "/" + ref.Name }
		DeferCleanup(func(ctx context.Context) {
			Expect(client.IgnoreNotFound(admin.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name}}))).To(Succeed())
		})

		By("the suite's hub stops; a hub keeping its certificate in the Secret takes the lease and makes it")
		stopHub()
		first, second := freePort(), freePort()
		stopHub = startHub(true, first, keepIn)
		// After the spec, the suite's hub (a CA of its own) serves again.
		DeferCleanup(func() { stopHub(); stopHub = startHub(true, 0) })
		secret := &corev1.Secret{}
		Expect(admin.Get(ctx, ref, secret)).To(Succeed())
		Expect(secret.Type).To(Equal(corev1.SecretTypeTLS))
		Expect(secret.Data).To(HaveKey(webhook.CAKeyFile))
		pair, err := tls.X509KeyPair(secret.Data[corev1.TLSCertKey], secret.Data[corev1.TLSPrivateKeyKey])
		Expect(err).NotTo(HaveOccurred())
		kept := pair.Leaf
		Expect(kept.IPAddresses).To(HaveLen(1))
		Expect(kept.IPAddresses[0].String()).To(Equal("127.0.0.1"))

		By("a second hub process, which does not hold the lease, serves the same certificate")
		stopSecond := startHub(false, second, keepIn)
		DeferCleanup(func() { stopSecond() })
		for _, port := range []int{first, second} {
			Eventually(func() (*x509.Certificate, error) { return served(port) }).WithContext(ctx).WithTimeout(timeout).
				Should(Satisfy(kept.Equal), "the hub on port %d serves the Secret's certificate", port)
		}

		By("the API server trusts it: every caBundle verifies it, and writes go through the webhooks")
		expectTrusted := func() {
			GinkgoHelper()
			for name, bundle := range trustedBundles(ctx) {
				Expect(bundle).To(Equal(secret.Data[webhook.CAFile]), "%s trusts the Secret's ca.crt", name)
				roots := x509.NewCertPool()
				Expect(roots.AppendCertsFromPEM(bundle)).To(BeTrue())
				_, err := kept.Verify(x509.VerifyOptions{Roots: roots, DNSName: "127.0.0.1"})
				Expect(err).NotTo(HaveOccurred(), "%s's caBundle verifies the served certificate", name)
			}
			name := testenv.UniqueName("c")
			createByAdmin(ctx, builder.Cluster(name).LeaseDurationSeconds(60).Obj())
			Expect(clusterSetOf(ctx, name)).To(Equal(clusterset.DefaultSetName))
			expectRefused(admin.Create(ctx, builder.Cluster(name+".invalid").LeaseDurationSeconds(60).Obj()), http.StatusBadRequest, "the name must be a DNS-1123 label")
		}
		expectTrusted()

		By("the first stops: the second takes over, pointing the configurations at itself, with the same certificate")
		urlOf := func() string {
			m := &admissionregistrationv1.MutatingWebhookConfiguration{}
			Expect(admin.Get(ctx, client.ObjectKey{Name: webhook.ClusterMutatingName}, m)).To(Succeed())
			return *m.Webhooks[0].ClientConfig.URL
		}
		stopHub()
		Eventually(urlOf).WithContext(ctx).WithTimeout(timeout).Should(HavePrefix(fmt.Sprintf("https://127.0.0.1:%d/", second)))
		Expect(webhook.WaitServing(ctx, admin, timeout)).To(Succeed())
		after := &corev1.Secret{}
		Expect(admin.Get(ctx, ref, after)).To(Succeed())
		Expect(after.Data).To(Equal(secret.Data), "the new holder renews nothing that is not due")
		Expect(served(second)).To(Satisfy(kept.Equal))
		expectTrusted()
	})
})
