package registration_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/registration/agent"
	"github.com/corral-dev/corral/registration/bootstrap"
	"github.com/corral-dev/corral/registration/clientcsr"
	"github.com/corral-dev/corral/registration/common"
)

// startJoinedAgent runs an agent for a new cluster, accepts it and waits
// until it is joined and available. It returns the cluster's name.
func startJoinedAgent(ctx context.Context, secret string) (string, *agentRun) {
	GinkgoHelper()
	name := "c-" + rand.String(6)
	run := startAgent(ctx, name, secret, "")
	deleteClusterAfter(name)
	acceptOnceAsked(ctx, name)
	expectAvailable(ctx, name)
	return name, run
}

// acceptOnceAsked waits for the cluster's join request and accepts it.
func acceptOnceAsked(ctx context.Context, name string) {
	GinkgoHelper()
	expectCSRs(ctx, name, 1)
	_, err := accept(ctx, name)
	Expect(err).NotTo(HaveOccurred())
}

func expectAvailable(ctx context.Context, name string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		mc := getCluster(ctx, name)
		g.Expect(meta.IsStatusConditionTrue(mc.Status.Conditions, clusterv1.ManagedClusterConditionJoined)).To(BeTrue())
		g.Expect(meta.IsStatusConditionTrue(mc.Status.Conditions, clusterv1.ManagedClusterConditionAvailable)).To(BeTrue())
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}

// pendingCSRs are cluster's CSRs that are neither approved nor denied.
func pendingCSRs(ctx context.Context, cluster string) []certificatesv1.CertificateSigningRequest {
	var pending []certificatesv1.CertificateSigningRequest
	for _, csr := range csrsOf(ctx, cluster) {
		if clientcsr.Pending(&csr) {
			pending = append(pending, csr)
		}
	}
	return pending
}

var _ = Describe("the agent's identity", func() {
	It("falls back to the bootstrap kubeconfig when the hub denies it, says so in an event, and rejoins once accepted again", func(ctx context.Context) {
		secret := "hub-kubeconfig-" + rand.String(6)
		name, run := startJoinedAgent(ctx, secret)
		managedKube := kubernetes.NewForConfigOrDie(managedCluster.Config)
		stored, err := managedKube.CoreV1().Secrets(agent.DefaultSecretNamespace).Get(ctx, secret, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		agentName := string(stored.Data["agent-name"])

		By("a hub admin denying the cluster")
		Expect(newDenyCommand(name).ExecuteContext(ctx)).To(Succeed())

		By("recording a warning event about the hub kubeconfig on the managed cluster")
		Eventually(func(g Gomega) {
			events, err := managedKube.CoreV1().Events(agent.DefaultSecretNamespace).List(ctx, metav1.ListOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			var reasons []string
			for _, e := range events.Items {
				if e.InvolvedObject.Name == secret {
					reasons = append(reasons, e.Reason)
				}
			}
			g.Expect(reasons).To(ContainElement(agent.ReasonHubKubeconfigRejected))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		By("asking to join again through bootstrap, under the same agent name")
		var pending []certificatesv1.CertificateSigningRequest
		Eventually(func() []certificatesv1.CertificateSigningRequest {
			pending = pendingCSRs(ctx, name)
			return pending
		}).WithContext(ctx).WithTimeout(timeout).Should(HaveLen(1))
		Expect(pending[0].Spec.Username).To(Equal(bootstrap.User))
		req, err := clientcsr.Validate(&pending[0])
		Expect(err).NotTo(HaveOccurred())
		Expect(req.CommonName).To(HaveSuffix(":" + agentName))
		Expect(run.finished).NotTo(BeClosed(), "the agent keeps waiting for an admin")

		By("heartbeating again once a hub admin accepts it again")
		_, err = accept(ctx, name)
		Expect(err).NotTo(HaveOccurred())
		lease := leaseOf(ctx, name)
		Eventually(func() time.Time { return leaseOf(ctx, name).Spec.RenewTime.Time }).
			WithContext(ctx).WithTimeout(timeout).Should(BeTemporally(">", lease.Spec.RenewTime.Time))
		expectAvailable(ctx, name)
	})

	It("refuses a cluster name that another live agent holds, and creates nothing", func(ctx context.Context) {
		name, _ := startJoinedAgent(ctx, "hub-kubeconfig-"+rand.String(6))

		By("a second agent, with no identity of its own, asking for the same name")
		second, err := agent.New(agent.Options{ClusterName: name, Bootstrap: bootstrapConfig(ctx), Managed: managedCluster.Config, SecretName: "hub-kubeconfig-" + rand.String(6)})
		Expect(err).NotTo(HaveOccurred())
		refusing, cancel := context.WithTimeout(ctx, timeout) // a miss fails, not hangs
		defer cancel()
		err = second.Run(refusing)
		Expect(err).To(MatchError(agent.ErrNameTaken))
		Expect(err.Error()).To(ContainSubstring("--cluster-name"))
		Expect(csrsOf(ctx, name)).To(HaveLen(1), "no new join request")

		By("corral accept leaving a join request for the held name pending")
		rogue := submitCSR(ctx, bootstrapClient(ctx), name, csrWithSubject(
			clientcsr.ClusterGroup(name)+":rogue", clientcsr.ClusterGroup(name), clientcsr.ManagedClustersGroup))
		out, err := accept(ctx, name)
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring(rogue + " pending: " + name + " is joined and its agent is heartbeating"))
		Expect(clientcsr.Pending(getCSR(ctx, rogue))).To(BeTrue())
		Expect(out).NotTo(ContainSubstring("approved join request"))
	})
})

func leaseOf(ctx context.Context, cluster string) *coordinationv1.Lease {
	GinkgoHelper()
	lease := &coordinationv1.Lease{}
	Expect(admin.Get(ctx, client.ObjectKey{Namespace: cluster, Name: common.LeaseName}, lease)).To(Succeed())
	return lease
}
