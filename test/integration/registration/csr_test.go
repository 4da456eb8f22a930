package registration_test

import (
	"context"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/testing/builder"
	"github.com/corral-dev/corral/registration/bootstrap"
	"github.com/corral-dev/corral/registration/clientcsr"
)

// bootstrapConfig authenticates with a fresh bootstrap token, as a joining
// agent does.
func bootstrapConfig(ctx context.Context) *rest.Config {
	GinkgoHelper()
	return bootstrapConfigFor(ctx, hubCluster.Config)
}

// bootstrapConfigFor is the bootstrap identity of the hub at hub, with a
// fresh token.
func bootstrapConfigFor(ctx context.Context, hub *rest.Config) *rest.Config {
	GinkgoHelper()
	token, err := bootstrap.Token(ctx, kubernetes.NewForConfigOrDie(hub), 600)
	Expect(err).NotTo(HaveOccurred())
	return withToken(hub, token)
}

// withToken is an anonymous client of the hub at hub bearing token.
func withToken(hub *rest.Config, token string) *rest.Config {
	cfg := rest.AnonymousClientConfig(hub)
	cfg.BearerToken = token
	return cfg
}

// bootstrapClient is a client of bootstrapConfig.
func bootstrapClient(ctx context.Context) client.Client {
	GinkgoHelper()
	c, err := client.New(bootstrapConfig(ctx), client.Options{Scheme: admin.Scheme()})
	Expect(err).NotTo(HaveOccurred())
	return c
}

// submitCSR creates, as requester, a CSR labelled for cluster whose
// certificate request has the given subject (see csrFor).
func submitCSR(ctx context.Context, requester client.Client, label string, request []byte, usages ...certificatesv1.KeyUsage) string {
	if len(usages) == 0 {
		usages = []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment, certificatesv1.UsageClientAuth}
	}
	csr := builder.CSR("").GenerateName(label+"-").Label(clusterv1.ClusterNameLabelKey, label).Request(request).Usages(usages...).Obj()
	Expect(requester.Create(ctx, csr)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { _ = admin.Delete(ctx, csr) })
	return csr.Name
}

func getCSR(ctx context.Context, name string) *certificatesv1.CertificateSigningRequest {
	csr := &certificatesv1.CertificateSigningRequest{}
	Expect(admin.Get(ctx, client.ObjectKey{Name: name}, csr)).To(Succeed())
	return csr
}

// expectLeftPending waits for the approver's NotApproved event on the CSR,
// which says why, and then checks that the CSR is still pending.
func expectLeftPending(ctx context.Context, name, why string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		events, err := kube.EventsV1().Events("").List(ctx, metav1.ListOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		var notes []string
		for _, e := range events.Items {
			if e.Regarding.Name == name && e.Reason == "NotApproved" {
				notes = append(notes, e.Note)
			}
		}
		g.Expect(strings.Join(notes, "\n")).To(ContainSubstring(why))
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	Expect(clientcsr.Pending(getCSR(ctx, name))).To(BeTrue(), "%s should still be pending", name)
}

var _ = Describe("CSR approval", func() {
	var accepted string
	var agent client.Client

	BeforeEach(func(ctx context.Context) {
		accepted = newCluster(ctx, true)
		expectAccepted(ctx, accepted)
		agent = asCluster(accepted)
		expectAccess(ctx, agent, accepted)
	})

	It("approves a renewal by an accepted cluster's current identity, and the hub signs it", func(ctx context.Context) {
		// asCluster's user is the common name an agent1 certificate carries.
		name := submitCSR(ctx, agent, accepted, csrPEM(accepted))
		Eventually(func(g Gomega) {
			csr := getCSR(ctx, name)
			g.Expect(csr.Status.Conditions).To(ContainElement(And(
				HaveField("Type", certificatesv1.CertificateApproved),
				HaveField("Reason", "AutoApprovedByHubCSRApprovingController"))))
			g.Expect(csr.Status.Certificate).NotTo(BeEmpty())
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	})

	DescribeTable("leaves a request it may not approve pending, saying why",
		func(ctx context.Context, build func(ctx context.Context) (string, string)) {
			name, why := build(ctx)
			expectLeftPending(ctx, name, why)
		},
		Entry("a join request, which waits for corral accept", func(ctx context.Context) (string, string) {
			return submitCSR(ctx, bootstrapClient(ctx), accepted, csrPEM(accepted)), "corral accept " + accepted
		}),
		Entry("a request for a cluster that is not accepted", func(ctx context.Context) (string, string) {
			pending := newCluster(ctx, false)
			return submitCSR(ctx, bootstrapClient(ctx), pending, csrPEM(pending)), "is not accepted"
		}),
		Entry("a request naming another cluster in its common name", func(ctx context.Context) (string, string) {
			return submitCSR(ctx, agent, accepted, csrWithSubject("system:open-cluster-management:other:agent1", "system:open-cluster-management:"+accepted)), "common name"
		}),
		Entry("a request for server auth", func(ctx context.Context) (string, string) {
			return submitCSR(ctx, agent, accepted, csrPEM(accepted), certificatesv1.UsageClientAuth, certificatesv1.UsageServerAuth), "server auth"
		}),
		Entry("a cluster's identity asking for another accepted cluster's certificate", func(ctx context.Context) (string, string) {
			other := newCluster(ctx, true)
			expectAccepted(ctx, other)
			return submitCSR(ctx, agent, other, csrPEM(other)), "join request from system:open-cluster-management:" + accepted
		}),
		Entry("a request for a cluster that does not exist", func(ctx context.Context) (string, string) {
			ghost := "ghost-" + rand.String(5)
			return submitCSR(ctx, bootstrapClient(ctx), ghost, csrPEM(ghost)), "does not exist"
		}),
	)
})
