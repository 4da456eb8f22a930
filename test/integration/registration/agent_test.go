package registration_test

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/url"
	"path/filepath"
	"time"

	"github.com/corral-dev/corral/registration/common"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/registration/agent"
)

// agentRun is a running agent: finished is closed when Run returns, err
// then holds what it returned.
type agentRun struct {
	cancel   context.CancelFunc
	finished chan struct{}
	err      error
}

// stop ends the agent and waits for it.
func (r *agentRun) stop() {
	r.cancel()
	Eventually(r.finished).WithTimeout(timeout).Should(BeClosed())
}

// startAgent runs an agent for cluster on the managed API server, storing
// its identity in its own secret; it is stopped when the spec ends.
func startAgent(ctx context.Context, cluster, secretName, file string) *agentRun {
	return startAgentWithClock(ctx, cluster, secretName, file, nil)
}

// startAgentWithClock is startAgent with an injected clock (nil: the real one).
func startAgentWithClock(ctx context.Context, cluster, secretName, file string, clk clock.WithTicker) *agentRun {
	opts := agentOptions(cluster, secretName, bootstrapConfig(ctx))
	opts.KubeconfigFile, opts.Clock = file, clk
	return runAgent(opts)
}

// agentOptions are those of an agent for cluster on the managed API
// server that joins with boot and stores its identity in secret, with a
// 1 s lease and a quick poll.
func agentOptions(cluster, secret string, boot *rest.Config) agent.Options {
	return agent.Options{ClusterName: cluster, Bootstrap: boot, Managed: managedCluster.Config,
		SecretName: secret, LeaseDurationSeconds: 1, PollInterval: 200 * time.Millisecond}
}

// runAgent runs an agent of opts until the spec ends.
func runAgent(opts agent.Options) *agentRun {
	GinkgoHelper()
	a, err := agent.New(opts)
	Expect(err).NotTo(HaveOccurred())
	runCtx, cancel := context.WithCancel(context.Background())
	run := &agentRun{cancel: cancel, finished: make(chan struct{})}
	go func() {
		defer close(run.finished)
		run.err = a.Run(runCtx)
	}()
	DeferCleanup(run.stop)
	return run
}

func csrsOf(ctx context.Context, cluster string) []certificatesv1.CertificateSigningRequest {
	list := &certificatesv1.CertificateSigningRequestList{}
	Expect(admin.List(ctx, list, client.MatchingLabels{clusterv1.ClusterNameLabelKey: cluster})).To(Succeed())
	return list.Items
}

// expectCSRs waits until cluster has n CSRs on the hub.
func expectCSRs(ctx context.Context, cluster string, n int) {
	GinkgoHelper()
	Eventually(func() []certificatesv1.CertificateSigningRequest { return csrsOf(ctx, cluster) }).
		WithContext(ctx).WithTimeout(timeout).Should(HaveLen(n))
}

var _ = Describe("the registration agent", func() {
	It("joins through the double handshake: asks, waits for accept, stores its identity, then heartbeats", func(ctx context.Context) {
		name := "c-" + rand.String(6)
		secret := "hub-kubeconfig-" + name
		file := filepath.Join(GinkgoT().TempDir(), "hub-kubeconfig")
		run := startAgent(ctx, name, secret, file)
		deleteClusterAfter(name)

		By("asking: a ManagedCluster that is not accepted and one pending CSR")
		expectCSRs(ctx, name, 1)
		Expect(getCluster(ctx, name).Spec.HubAcceptsClient).To(BeFalse())
		Consistently(run.finished).WithTimeout(time.Second).ShouldNot(BeClosed(), "the agent waits for an admin")

		By("a hub admin accepting it")
		_, err := accept(ctx, name)
		Expect(err).NotTo(HaveOccurred())

		By("storing the hub kubeconfig on the managed cluster, with OCM's keys, and in the file")
		managedKube := kubernetes.NewForConfigOrDie(managedCluster.Config)
		var stored *corev1.Secret
		Eventually(func(g Gomega) {
			stored, err = managedKube.CoreV1().Secrets(agent.DefaultSecretNamespace).Get(ctx, secret, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(stored.Data).To(HaveKey("kubeconfig"))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		Expect(stored.Data).To(HaveKey("tls.crt"))
		Expect(stored.Data).To(HaveKey("tls.key"))
		Expect(string(stored.Data["cluster-name"])).To(Equal(name))
		agentName := string(stored.Data["agent-name"])
		Expect(agentName).NotTo(BeEmpty())
		Expect(file).To(BeAnExistingFile())

		By("reporting Joined and Available and renewing the lease")
		Eventually(func(g Gomega) {
			mc := getCluster(ctx, name)
			g.Expect(meta.IsStatusConditionTrue(mc.Status.Conditions, clusterv1.ManagedClusterConditionJoined)).To(BeTrue())
			g.Expect(meta.IsStatusConditionTrue(mc.Status.Conditions, clusterv1.ManagedClusterConditionAvailable)).To(BeTrue())
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		lease := &coordinationv1.Lease{}
		Expect(admin.Get(ctx, client.ObjectKey{Namespace: name, Name: "managed-cluster-lease"}, lease)).To(Succeed())
		first := lease.Spec.RenewTime.Time
		Eventually(func(g Gomega) time.Time {
			g.Expect(admin.Get(ctx, client.ObjectKey{Namespace: name, Name: "managed-cluster-lease"}, lease)).To(Succeed())
			return lease.Spec.RenewTime.Time
		}).WithContext(ctx).WithTimeout(timeout).Should(BeTemporally(">", first))
		Expect(taintKeys(ctx, name)).NotTo(ContainElement(clusterv1.ManagedClusterTaintUnreachable))

		By("restarting and reusing the stored identity: no new CSR, the same agent name")
		run.stop()
		Expect(run.err).NotTo(HaveOccurred())
		startAgent(ctx, name, secret, file)
		renewed := lease.Spec.RenewTime.Time
		Eventually(func(g Gomega) time.Time {
			g.Expect(admin.Get(ctx, client.ObjectKey{Namespace: name, Name: "managed-cluster-lease"}, lease)).To(Succeed())
			return lease.Spec.RenewTime.Time
		}).WithContext(ctx).WithTimeout(timeout).Should(BeTemporally(">", renewed))
		Expect(csrsOf(ctx, name)).To(HaveLen(1))
		stored, err = managedKube.CoreV1().Secrets(agent.DefaultSecretNamespace).Get(ctx, secret, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(string(stored.Data["agent-name"])).To(Equal(agentName))
	})

	It("joins afresh the hub its bootstrap kubeconfig names when its stored identity names another address, as after the hub moved", func(ctx context.Context) {
		name := "c-" + rand.String(6)
		secret := "hub-kubeconfig-" + name
		run := startAgent(ctx, name, secret, "")
		deleteClusterAfter(name)
		expectCSRs(ctx, name, 1)
		_, err := accept(ctx, name)
		Expect(err).NotTo(HaveOccurred())
		storedServer := func(g Gomega) string {
			s, err := kubernetes.NewForConfigOrDie(managedCluster.Config).CoreV1().Secrets(agent.DefaultSecretNamespace).Get(ctx, secret, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			cfg, err := clientcmd.RESTConfigFromKubeConfig(s.Data["kubeconfig"])
			g.Expect(err).NotTo(HaveOccurred())
			return cfg.Host
		}
		Eventually(storedServer).WithContext(ctx).WithTimeout(timeout).Should(Equal(hubCluster.Config.Host))
		boot := bootstrapConfig(ctx)
		u, err := url.Parse(boot.Host)
		Expect(err).NotTo(HaveOccurred())
		boot.Host = "https://localhost:" + u.Port()

		By("refusing, while its agent heartbeats, a join of the cluster to another hub")
		// (Once the old hub lets the identity read the lease: just after
		// the accept it may not yet.)
		moving, err := agent.New(agentOptions(name, secret, boot))
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() error { return moving.Preflight(ctx) }).WithContext(ctx).WithTimeout(timeout).
			Should(And(MatchError(agent.ErrAgentRunning), MatchError(ContainSubstring("stop that agent first"))))
		// The managed cluster's own API server stands in for a hub that
		// has never heard of the cluster.
		moving, err = agent.New(agentOptions(name, secret, rest.CopyConfig(managedCluster.Config)))
		Expect(err).NotTo(HaveOccurred())
		Expect(moving.Preflight(ctx)).To(MatchError(agent.ErrAgentRunning), "to a hub that has never heard of the cluster")
		run.stop()
		later := agentOptions(name, secret, boot)
		later.Clock = clocktesting.NewFakeClock(time.Now().Add(time.Minute)) // past the 1 s lease and the slack
		moving, err = agent.New(later)
		Expect(err).NotTo(HaveOccurred())
		Expect(moving.Preflight(ctx)).To(Succeed(), "once that agent stopped renewing the lease")

		By("starting it with a bootstrap kubeconfig that names the hub at another address")
		runAgent(agentOptions(name, secret, boot))
		Eventually(func(g Gomega) map[string][]byte {
			s, err := kubernetes.NewForConfigOrDie(managedCluster.Config).CoreV1().Secrets(agent.DefaultSecretNamespace).Get(ctx, secret, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			return s.Data
		}).WithContext(ctx).WithTimeout(timeout).ShouldNot(HaveKey("kubeconfig"), "the identity for the old address is forgotten, so nothing acts with it")
		expectCSRs(ctx, name, 2)
		// Accepted already: accept leaves the new request while the old
		// identity heartbeats, and approves it once its lease is stale.
		Eventually(func() (string, error) { return accept(ctx, name) }).WithContext(ctx).WithTimeout(timeout).
			Should(ContainSubstring("approved join request"))
		Eventually(storedServer).WithContext(ctx).WithTimeout(timeout).Should(Equal(boot.Host))
		lease := &coordinationv1.Lease{}
		since := time.Now().Add(-time.Second)
		Eventually(func(g Gomega) time.Time {
			g.Expect(admin.Get(ctx, client.ObjectKey{Namespace: name, Name: "managed-cluster-lease"}, lease)).To(Succeed())
			return lease.Spec.RenewTime.Time
		}).WithContext(ctx).WithTimeout(timeout).Should(BeTemporally(">", since), "the agent heartbeats with its new identity")
	})

	It("creates its ManagedCluster with the labels and agent annotations it is given, which it leaves alone afterwards", func(ctx context.Context) {
		name := "c-" + rand.String(6)
		opts := agentOptions(name, "hub-kubeconfig-"+name, bootstrapConfig(ctx))
		opts.ClusterLabels = map[string]string{"env": "prod"}
		opts.ClusterAnnotations = map[string]string{agent.ClusterAnnotationPrefix + "owner": "team-a"}
		runAgent(opts)
		deleteClusterAfter(name)
		expectCSRs(ctx, name, 1)
		mc := getCluster(ctx, name)
		Expect(mc.Labels).To(HaveKeyWithValue("env", "prod"))
		Expect(mc.Annotations).To(HaveKeyWithValue(agent.ClusterAnnotationPrefix+"owner", "team-a"))

		By("a hub admin relabelling it, and the agent joining and heartbeating")
		mc.Labels["env"] = "staging"
		Expect(admin.Update(ctx, mc)).To(Succeed())
		acceptOnceAsked(ctx, name)
		expectAvailable(ctx, name)
		Expect(getCluster(ctx, name).Labels).To(HaveKeyWithValue("env", "staging"), "the labels are the agent's at creation only")
	})

	It("gives up with a clear error when the hub denies its request", func(ctx context.Context) {
		name := "c-" + rand.String(6)
		run := startAgent(ctx, name, "hub-kubeconfig-"+name, "")
		deleteClusterAfter(name)
		expectCSRs(ctx, name, 1)

		deny := newDenyCommand(name)
		Expect(deny.ExecuteContext(ctx)).To(Succeed())
		Eventually(run.finished).WithTimeout(timeout).Should(BeClosed())
		Expect(run.err).To(MatchError(agent.ErrDenied))
	})

	It("stops with a clear error and creates nothing when its bootstrap token is not the hub's", func(ctx context.Context) {
		name := "c-" + rand.String(6)
		boot := rest.AnonymousClientConfig(hubCluster.Config)
		boot.BearerToken = "not-a-token"
		a, err := agent.New(agent.Options{ClusterName: name, Bootstrap: boot, Managed: managedCluster.Config, SecretName: "hub-kubeconfig-" + name})
		Expect(err).NotTo(HaveOccurred())
		err = a.Run(ctx)
		Expect(err).To(MatchError(agent.ErrBootstrapRefused))
		Expect(err.Error()).To(ContainSubstring("corral get token"))
		Expect(apierrors.IsNotFound(admin.Get(ctx, client.ObjectKey{Name: name}, &clusterv1.ManagedCluster{}))).To(BeTrue())
		Expect(csrsOf(ctx, name)).To(BeEmpty())
	})

	It("rotates its client certificate at 80% of its life, through the hub's renewal approval", func(ctx context.Context) {
		name := "c-" + rand.String(6)
		secret := "hub-kubeconfig-" + name
		clk := clocktesting.NewFakeClock(time.Now())
		startAgentWithClock(ctx, name, secret, "", clk)
		deleteClusterAfter(name)
		acceptOnceAsked(ctx, name)

		managedKube := kubernetes.NewForConfigOrDie(managedCluster.Config)
		var first []byte
		Eventually(func(g Gomega) {
			s, err := managedKube.CoreV1().Secrets(agent.DefaultSecretNamespace).Get(ctx, secret, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			first = s.Data["tls.crt"]
			g.Expect(first).NotTo(BeEmpty())
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		cert, err := tlsCert(first)
		Expect(err).NotTo(HaveOccurred())

		By("the clock passing 80% of the certificate's life, once the hub has granted the identity its permissions")
		// Before the grant the agent's attempts are refused; it tries again
		// every lease period, so the clock keeps moving a period at a time.
		expectAccess(ctx, asCluster(name), name)
		clk.SetTime(cert.NotBefore.Add(time.Duration(float64(cert.NotAfter.Sub(cert.NotBefore)) * 0.81)))
		Eventually(func(g Gomega) {
			clk.Step(time.Second)
			s, err := managedKube.CoreV1().Secrets(agent.DefaultSecretNamespace).Get(ctx, secret, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(s.Data["tls.crt"]).NotTo(Equal(first))
		}).WithContext(ctx).WithTimeout(timeout).WithPolling(time.Second).Should(Succeed())

		By("the hub having approved the renewal itself, and the agent reporting it")
		Expect(csrsOf(ctx, name)).To(ContainElement(HaveField("Status.Conditions", ContainElement(And(
			HaveField("Type", certificatesv1.CertificateApproved),
			HaveField("Reason", "AutoApprovedByHubCSRApprovingController"))))))
		Eventually(func() bool {
			return meta.IsStatusConditionTrue(getCluster(ctx, name).Status.Conditions, common.ConditionCertificateRotated)
		}).WithContext(ctx).WithTimeout(timeout).Should(BeTrue())
	})
})

// tlsCert parses a PEM certificate.
func tlsCert(certPEM []byte) (*x509.Certificate, error) {
	block, _ := pem.Decode(certPEM)
	if block == nil {
		return nil, fmt.Errorf("no PEM certificate")
	}
	return x509.ParseCertificate(block.Bytes)
}
