package registration_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/registration/agent"
	"github.com/corral-dev/corral/registration/bootstrap"
	"github.com/corral-dev/corral/registration/common"
)

// storedAgentName is the agent id the agent recorded in secret on the
// managed cluster ("" while there is none).
func storedAgentName(ctx context.Context, secret string) string {
	s, err := kubernetes.NewForConfigOrDie(managedCluster.Config).CoreV1().Secrets(agent.DefaultSecretNamespace).Get(ctx, secret, metav1.GetOptions{})
	if err != nil {
		return ""
	}
	return string(s.Data[agent.KeyAgentName])
}

// revocableBootstrapConfig is a bootstrap identity whose token is bound to
// a Secret: deleting the Secret revokes the token, as its expiry would.
func revocableBootstrapConfig(ctx context.Context) (*rest.Config, *corev1.Secret) {
	GinkgoHelper()
	binding := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: bootstrap.Namespace, Name: "token-binding-" + rand.String(6)}}
	Expect(admin.Create(ctx, binding)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { _ = client.IgnoreNotFound(admin.Delete(ctx, binding)) })
	tr, err := kube.CoreV1().ServiceAccounts(bootstrap.Namespace).CreateToken(ctx, bootstrap.ServiceAccount, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{BoundObjectRef: &authenticationv1.BoundObjectReference{
			Kind: "Secret", APIVersion: "v1", Name: binding.Name, UID: binding.UID,
		}},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	return withToken(hubCluster.Config, tr.Status.Token), binding
}

var _ = Describe("an agent whose join waits for an admin", func() {
	It("keeps its agent id across a restart, and asks again when its request is deleted", func(ctx context.Context) {
		name := "c-" + rand.String(6)
		secret := "hub-kubeconfig-" + name
		run := startAgent(ctx, name, secret, "")
		deleteClusterAfter(name)
		expectCSRs(ctx, name, 1)
		agentName := storedAgentName(ctx, secret)
		Expect(agentName).NotTo(BeEmpty(), "the agent id is recorded before the hub accepts")

		By("restarting while the request waits: the same agent id")
		run.stop()
		startAgent(ctx, name, secret, "")
		expectCSRs(ctx, name, 2)
		Expect(storedAgentName(ctx, secret)).To(Equal(agentName))

		By("the hub's cleanup deleting the pending requests: the agent asks again")
		for _, csr := range csrsOf(ctx, name) {
			Expect(admin.Delete(ctx, &csr)).To(Succeed())
		}
		expectCSRs(ctx, name, 1)

		By("joining with the identity it recorded once accepted")
		_, err := accept(ctx, name)
		Expect(err).NotTo(HaveOccurred())
		expectAvailable(ctx, name)
		Expect(storedAgentName(ctx, secret)).To(Equal(agentName))
	})

	It("stops with a clear error when its bootstrap token stops working while it waits", func(ctx context.Context) {
		name := "c-" + rand.String(6)
		boot, binding := revocableBootstrapConfig(ctx)
		run := runAgent(agentOptions(name, "hub-kubeconfig-"+name, boot))
		deleteClusterAfter(name)
		expectCSRs(ctx, name, 1)

		Expect(admin.Delete(ctx, binding)).To(Succeed())
		Eventually(run.finished).WithTimeout(timeout).Should(BeClosed())
		Expect(run.err).To(MatchError(agent.ErrBootstrapRefused))
		Expect(run.err.Error()).To(ContainSubstring("corral get token"))
	})
})

var _ = Describe("the agent's heartbeat", func() {
	It("declares the cluster's API server address on its ManagedCluster, also when it changes after the join", func(ctx context.Context) {
		name := "c-" + rand.String(6)
		secret := "hub-kubeconfig-" + name
		withURL := func(url string) agent.Options {
			opts := agentOptions(name, secret, bootstrapConfig(ctx))
			opts.ClientConfigs = []clusterv1.ClientConfig{{URL: url}}
			return opts
		}
		run := runAgent(withURL("https://old.example:6443"))
		deleteClusterAfter(name)
		acceptOnceAsked(ctx, name)
		expectAvailable(ctx, name)
		Expect(getCluster(ctx, name).Spec.ManagedClusterClientConfigs).To(ConsistOf(HaveField("URL", "https://old.example:6443")))

		run.stop()
		runAgent(withURL("https://new.example:6443"))
		Eventually(func() []clusterv1.ClientConfig { return getCluster(ctx, name).Spec.ManagedClusterClientConfigs }).
			WithContext(ctx).WithTimeout(timeout).Should(ConsistOf(HaveField("URL", "https://new.example:6443")))
	})

	It("renews the lease as often as the hub's ManagedCluster says, not as it was started with", func(ctx context.Context) {
		name := "c-" + rand.String(6)
		opts := agentOptions(name, "hub-kubeconfig-"+name, bootstrapConfig(ctx))
		opts.LeaseDurationSeconds = 600
		runAgent(opts)
		deleteClusterAfter(name)
		expectCSRs(ctx, name, 1)
		Expect(getCluster(ctx, name).Spec.LeaseDurationSeconds).To(BeEquivalentTo(600), "the agent asks for its own period")

		By("a hub admin shortening the lease to 1s and accepting")
		mc := getCluster(ctx, name)
		patch := client.MergeFrom(mc.DeepCopy()) // the hub adds its finalizer meanwhile
		mc.Spec.LeaseDurationSeconds = 1
		Expect(admin.Patch(ctx, mc, patch)).To(Succeed())
		_, err := accept(ctx, name)
		Expect(err).NotTo(HaveOccurred())
		expectAvailable(ctx, name)

		By("renewing about every second: twice within 10s, where the agent's own 600s would renew once")
		renewed := func(g Gomega) time.Time {
			lease := &coordinationv1.Lease{}
			g.Expect(admin.Get(ctx, client.ObjectKey{Namespace: name, Name: common.LeaseName}, lease)).To(Succeed())
			g.Expect(lease.Spec.RenewTime).NotTo(BeNil())
			return lease.Spec.RenewTime.Time
		}
		first := renewed(Default)
		var second time.Time
		Eventually(func(g Gomega) time.Time { second = renewed(g); return second }).
			WithContext(ctx).WithTimeout(10 * time.Second).Should(BeTemporally(">", first))
		Eventually(renewed).WithContext(ctx).WithTimeout(10 * time.Second).Should(BeTemporally(">", second))
	})
})
