package registration_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/dev/localcluster"
	"github.com/corral-dev/corral/registration/agent"
	registrationcli "github.com/corral-dev/corral/registration/cli"
	"github.com/corral-dev/corral/registration/common"
)

// signingDuration is how long after issue every certificate the
// short-signer hub issues expires. The signer backdates its certificates
// by 5 minutes, so the agent's 80% of NotBefore..NotAfter falls 12 s after
// issue: often enough to see, after the moment the agent joined with.
const signingDuration = 90 * time.Second

// A hub of its own whose signer issues certificates that expire within
// the spec, so that real rotation (not a moved clock) is what is tested.
var _ = Describe("certificate rotation with a short-lived signer", Ordered, func() {
	var short *localcluster.Cluster

	BeforeAll(func(ctx context.Context) {
		var err error
		short, err = localcluster.Start(ctx, localcluster.Options{
			Name: "short-signer-hub", Profile: localcluster.ProfileHub, Dir: GinkgoT().TempDir(),
			SigningDuration: signingDuration, Progress: GinkgoWriter,
		})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(short.Stop)
		Expect(registrationcli.InstallHub(ctx, short.Config, GinkgoWriter)).To(Succeed())
		// The suite's hub runs the same controllers in this process.
		runHubControllers(short.Config)
	}, NodeTimeout(localcluster.DefaultStartTimeout+time.Minute))

	It("renews the certificate before it expires, through the hub's approval, and keeps heartbeating past the old one's expiry", func(ctx context.Context) {
		name := "c-" + rand.String(6)
		secret := "hub-kubeconfig-" + name
		runAgent(agentOptions(name, secret, bootstrapConfigFor(ctx, short.Config)))

		By("a hub admin accepting the cluster on the short-signer hub, once it asked")
		Expect(acceptWith(ctx, GinkgoWriter, short.Kubeconfig, timeout, name)).To(Succeed())

		managedKube := kubernetes.NewForConfigOrDie(managedCluster.Config)
		storedCert := func(g Gomega) []byte {
			s, err := managedKube.CoreV1().Secrets(agent.DefaultSecretNamespace).Get(ctx, secret, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(s.Data["tls.crt"]).NotTo(BeEmpty())
			return s.Data["tls.crt"]
		}
		var firstPEM []byte
		Eventually(func(g Gomega) { firstPEM = storedCert(g) }).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		first, err := tlsCert(firstPEM)
		Expect(err).NotTo(HaveOccurred())
		Expect(first.NotAfter).To(BeTemporally("<", time.Now().Add(signingDuration)), "the signer issues short-lived certificates")

		By("a new certificate stored before the first expires")
		Eventually(func(g Gomega) {
			next, err := tlsCert(storedCert(g))
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(next.NotAfter).To(BeTemporally(">", first.NotAfter))
		}).WithContext(ctx).WithTimeout(signingDuration + timeout).Should(Succeed())
		Expect(time.Now()).To(BeTemporally("<", first.NotAfter), "rotated before the first certificate expired")

		By("the lease renewed after the first certificate expired: the agent switched identities without losing the hub")
		lease := &coordinationv1.Lease{}
		shortAdmin, err := client.New(short.Config, client.Options{})
		Expect(err).NotTo(HaveOccurred())
		Eventually(func(g Gomega) time.Time {
			g.Expect(shortAdmin.Get(ctx, client.ObjectKey{Namespace: name, Name: common.LeaseName}, lease)).To(Succeed())
			g.Expect(lease.Spec.RenewTime).NotTo(BeNil())
			return lease.Spec.RenewTime.Time
		}).WithContext(ctx).WithTimeout(signingDuration + timeout).Should(BeTemporally(">", first.NotAfter.Add(2*time.Second)))
	})
})
