package addonhost_test

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"open-cluster-management.io/addon-framework/pkg/agent"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	addonclient "open-cluster-management.io/api/client/addon/clientset/versioned"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/addons/host"
	"github.com/corral-dev/corral/internal/testing/builder"
	"github.com/corral-dev/corral/registration/common"
)

// agentRuns records what the test addons' agents did, per cluster.
type agentRuns struct {
	mu       sync.Mutex
	user     map[string]string // the hub username the agent ran as
	running  map[string]int    // agents running now
	started  map[string]int    // runs started
	stopped  map[string]int    // runs that ended because they were stopped
	panicked atomic.Int32
}

func newAgentRuns() *agentRuns {
	return &agentRuns{user: map[string]string{}, running: map[string]int{}, started: map[string]int{}, stopped: map[string]int{}}
}

func (r *agentRuns) get(m map[string]int, key string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return m[key]
}

func (r *agentRuns) username(key string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.user[key]
}

// leaseAgent is an agent half as a built-in addon writes one: it says who
// it is on the hub, then renews its lease on the managed cluster until
// stopped. crashes is how many runs panic before one works.
func leaseAgent(name string, runs *agentRuns, crashes int32) addons.Addon {
	return addons.Addon{Name: name, RunAgent: func(ctx context.Context, env addons.AgentEnv) error {
		key := env.ClusterName + "/" + name
		runs.mu.Lock()
		runs.started[key]++
		runs.running[key]++
		runs.mu.Unlock()
		defer func() {
			runs.mu.Lock()
			runs.running[key]--
			if ctx.Err() != nil {
				runs.stopped[key]++
			}
			runs.mu.Unlock()
		}()
		if runs.panicked.Load() < crashes {
			runs.panicked.Add(1)
			panic("the test agent falls over")
		}
		review, err := kubernetes.NewForConfigOrDie(env.Hub).AuthenticationV1().SelfSubjectReviews().
			Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("asking the hub who I am: %w", err)
		}
		runs.mu.Lock()
		runs.user[key] = review.Status.UserInfo.Username
		runs.mu.Unlock()
		managed := kubernetes.NewForConfigOrDie(env.Managed)
		wait.UntilWithContext(ctx, func(ctx context.Context) { renewLease(ctx, managed, env.InstallNamespace, name) }, 300*time.Millisecond)
		return nil
	}}
}

// renewLease renews (or creates) the addon's lease.
func renewLease(ctx context.Context, kube kubernetes.Interface, ns, name string) {
	now := metav1.NowMicro()
	lease, err := kube.CoordinationV1().Leases(ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, _ = kube.CoordinationV1().Leases(ns).Create(ctx, builder.Lease(ns, name).RenewedAt(now.Time).Obj(), metav1.CreateOptions{})
		return
	}
	if err != nil {
		return
	}
	lease.Spec.RenewTime = &now
	_, _ = kube.CoordinationV1().Leases(ns).Update(ctx, lease, metav1.UpdateOptions{})
}

// newCluster creates an accepted ManagedCluster and waits until the hub
// has given it its namespace; it is deleted when the spec ends.
func newCluster(ctx context.Context) string {
	name := "c-" + utilrand.String(6)
	mc := builder.Cluster(name).Accepted().Obj()
	Expect(admin.Create(ctx, mc)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { _ = admin.Delete(ctx, mc) })
	registrationAgent, err := addonclient.NewForConfig(asRegistrationAgent(name))
	Expect(err).NotTo(HaveOccurred())
	Eventually(func() error {
		_, err := registrationAgent.AddonV1beta1().ManagedClusterAddOns(name).List(ctx, metav1.ListOptions{})
		return err
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed(), "the hub grants the cluster's registration agent its addons")
	return name
}

// enable creates the addon's ClusterManagementAddOn (once) and its
// ManagedClusterAddOn in cluster's namespace, owned by it, as the hub's
// addon manager does.
func enable(ctx context.Context, cluster, addon string) *addonv1beta1.ManagedClusterAddOn {
	cma := &addonv1beta1.ClusterManagementAddOn{
		ObjectMeta: metav1.ObjectMeta{Name: addon},
		Spec:       addonv1beta1.ClusterManagementAddOnSpec{InstallStrategy: addonv1beta1.InstallStrategy{Type: addonv1beta1.AddonInstallStrategyManual}},
	}
	if err := admin.Create(ctx, cma); err != nil {
		Expect(apierrors.IsAlreadyExists(err)).To(BeTrue(), "creating the ClusterManagementAddOn: %v", err)
		Expect(admin.Get(ctx, client.ObjectKey{Name: addon}, cma)).To(Succeed())
	}
	mca := &addonv1beta1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{
		Namespace: cluster, Name: addon,
		OwnerReferences: []metav1.OwnerReference{{
			APIVersion: addonv1beta1.GroupVersion.String(), Kind: "ClusterManagementAddOn", Name: addon, UID: cma.UID,
		}},
	}}
	Expect(admin.Create(ctx, mca)).To(Succeed())
	return mca
}

// startHost runs an addon host for cluster, as its registration agent,
// until the spec ends.
func startHost(cluster string, builtins ...addons.Addon) {
	startHostResyncing(cluster, 500*time.Millisecond, builtins...)
}

// startHostResyncing is startHost with the host looking at every addon
// again every resync.
func startHostResyncing(cluster string, resync time.Duration, builtins ...addons.Addon) {
	h, err := host.New(host.Options{
		ClusterName: cluster, AgentName: "agent1", Hub: asRegistrationAgent(cluster), Managed: managedCluster.Config,
		Addons: builtins, ResyncInterval: resync, LeaseDurationSeconds: 1, PollInterval: 200 * time.Millisecond,
		Restart:     wait.Backoff{Duration: 200 * time.Millisecond, Factor: 2, Steps: 1 << 30, Cap: 2 * time.Second},
		StableAfter: 3 * time.Second,
	})
	Expect(err).NotTo(HaveOccurred())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx) }()
	DeferCleanup(func() {
		cancel()
		Eventually(done).WithTimeout(timeout).Should(Receive(BeNil()))
	})
}

func getAddon(ctx context.Context, cluster, addon string) *addonv1beta1.ManagedClusterAddOn {
	GinkgoHelper()
	mca := &addonv1beta1.ManagedClusterAddOn{}
	Expect(admin.Get(ctx, client.ObjectKey{Namespace: cluster, Name: addon}, mca)).To(Succeed())
	return mca
}

func addonCSRs(ctx context.Context, cluster, addon string) []certificatesv1.CertificateSigningRequest {
	GinkgoHelper()
	list := &certificatesv1.CertificateSigningRequestList{}
	Expect(admin.List(ctx, list, client.MatchingLabels{
		clusterv1.ClusterNameLabelKey: cluster, addonv1beta1.AddonLabelKey: addon,
	})).To(Succeed())
	return list.Items
}

func secret(ctx context.Context, ns, name string) (*corev1.Secret, error) {
	return managedKube.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
}

func certOf(s *corev1.Secret) *x509.Certificate {
	GinkgoHelper()
	block, _ := pem.Decode(s.Data["tls.crt"])
	Expect(block).NotTo(BeNil())
	cert, err := x509.ParseCertificate(block.Bytes)
	Expect(err).NotTo(HaveOccurred())
	return cert
}

func condition(ctx context.Context, cluster, addon, typ string) *metav1.Condition {
	return meta.FindStatusCondition(getAddon(ctx, cluster, addon).Status.Conditions, typ)
}

// conditionIs is an Eventually body: the addon's condition typ has this status
// and reason, and its message each of messageContains.
func conditionIs(ctx context.Context, cluster, addon, typ string, status metav1.ConditionStatus, reason string, messageContains ...string) func(Gomega) {
	return func(g Gomega) {
		c := condition(ctx, cluster, addon, typ)
		g.Expect(c).NotTo(BeNil())
		g.Expect(c.Status).To(Equal(status))
		g.Expect(c.Reason).To(Equal(reason))
		for _, m := range messageContains {
			g.Expect(c.Message).To(ContainSubstring(m))
		}
	}
}

var _ = Describe("the addon host", func() {
	It("gives a built-in addon its own certificate, runs its agent as the addon, reports its lease, and stops it when the addon goes", func(ctx context.Context) {
		cluster := newCluster(ctx)
		runs := newAgentRuns()
		startHost(cluster, leaseAgent(helloAddon, runs, 0))
		enable(ctx, cluster, helloAddon)
		ns, key := "addons-"+cluster, cluster+"/"+helloAddon
		user := agent.DefaultUser(cluster, helloAddon, helloAddon)

		By("asking for a certificate with the registration's subject and OCM's labels")
		var csrs []certificatesv1.CertificateSigningRequest
		Eventually(func() []certificatesv1.CertificateSigningRequest {
			csrs = addonCSRs(ctx, cluster, helloAddon)
			return csrs
		}).WithContext(ctx).WithTimeout(timeout).ShouldNot(BeEmpty())
		csr := csrs[0]
		Expect(csr.Spec.SignerName).To(Equal(certificatesv1.KubeAPIServerClientSignerName))
		Expect(csr.Spec.Username).To(Equal("system:open-cluster-management:"+cluster+":agent1"), "asked by the registration agent")
		block, _ := pem.Decode(csr.Spec.Request)
		request, err := x509.ParseCertificateRequest(block.Bytes)
		Expect(err).NotTo(HaveOccurred())
		Expect(request.Subject.CommonName).To(Equal(user))
		Expect(request.Subject.Organization).To(ConsistOf(agent.DefaultGroups(cluster, helloAddon)))

		By("declaring on the registration that it uses a CSR, as OCM's agent does")
		Eventually(func(g Gomega) {
			mca := &addonv1beta1.ManagedClusterAddOn{}
			g.Expect(admin.Get(ctx, client.ObjectKey{Namespace: cluster, Name: helloAddon}, mca)).To(Succeed())
			g.Expect(mca.Status.Registrations).To(ContainElement(HaveField("KubeClient.Driver", host.KubeClientDriver)))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		By("writing the approved certificate as <addon>-hub-kubeconfig in the install namespace it created")
		var s *corev1.Secret
		Eventually(func() (err error) {
			s, err = secret(ctx, ns, helloAddon+"-hub-kubeconfig")
			return err
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		Expect(s.Data).To(HaveKey("kubeconfig"))
		Expect(s.Data).To(HaveKey("tls.key"))
		Expect(string(s.Data["cluster-name"])).To(Equal(cluster))
		Expect(certOf(s).Subject.CommonName).To(Equal(user))
		kubeconfig, err := clientcmd.Load(s.Data["kubeconfig"])
		Expect(err).NotTo(HaveOccurred())
		Expect(kubeconfig.AuthInfos).To(HaveEach(HaveField("ClientCertificate", "tls.crt")))

		By("running the agent with the addon's own hub identity, never the registration agent's")
		Eventually(func() string { return runs.username(key) }).WithContext(ctx).WithTimeout(timeout).Should(Equal(user))
		Expect(runs.get(runs.started, key)).To(Equal(1))

		By("turning the agent's lease renewals into Available=True on the hub")
		Eventually(conditionIs(ctx, cluster, helloAddon, addonv1beta1.ManagedClusterAddOnConditionAvailable, metav1.ConditionTrue, host.ReasonLeaseUpdated)).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		By("stopping the agent and removing its credentials when the addon is deleted")
		Expect(admin.Delete(ctx, &addonv1beta1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: helloAddon}})).To(Succeed())
		Eventually(func() int { return runs.get(runs.running, key) }).WithContext(ctx).WithTimeout(timeout).Should(BeZero())
		Expect(runs.get(runs.stopped, key)).To(Equal(1), "stopped through its context, not crashed")
		Eventually(func() error {
			_, err := secret(ctx, ns, helloAddon+"-hub-kubeconfig")
			return err
		}).WithContext(ctx).WithTimeout(timeout).Should(Satisfy(apierrors.IsNotFound))
	})

	It("reports a third-party addon with no lease as Available=Unknown, and a stale lease as Available=False", func(ctx context.Context) {
		cluster := newCluster(ctx)
		startHost(cluster)
		signedNS := "addons-" + cluster
		enable(ctx, cluster, signedAddon)
		Eventually(func() error {
			_, err := managedKube.CoreV1().Namespaces().Get(ctx, signedNS, metav1.GetOptions{})
			return err
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		Eventually(conditionIs(ctx, cluster, signedAddon, addonv1beta1.ManagedClusterAddOnConditionAvailable, metav1.ConditionUnknown, host.ReasonLeaseNotFound)).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		stale := builder.Lease(signedNS, signedAddon).RenewedAt(time.Now().Add(-time.Hour)).Obj()
		_, err := managedKube.CoordinationV1().Leases(signedNS).Create(ctx, stale, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		Eventually(conditionIs(ctx, cluster, signedAddon, addonv1beta1.ManagedClusterAddOnConditionAvailable, metav1.ConditionFalse, host.ReasonLeaseStopped)).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	})

	It("reports an addon Available soon after its agent starts renewing its lease, not at the next resync", func(ctx context.Context) {
		// An addon nobody on the hub serves: nothing but its lease brings
		// the host back to it before the hourly resync.
		cluster, addon := newCluster(ctx), "quiet-"+utilrand.String(4)
		startHostResyncing(cluster, time.Hour)
		enable(ctx, cluster, addon)
		Eventually(conditionIs(ctx, cluster, addon, addonv1beta1.ManagedClusterAddOnConditionAvailable, metav1.ConditionUnknown, host.ReasonLeaseNotFound)).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		ns := "open-cluster-management-agent-addon" // OCM's default install namespace
		if _, err := managedKube.CoreV1().Namespaces().Create(ctx, namespace(ns), metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
			Expect(err).NotTo(HaveOccurred())
		}
		agentCtx, stopAgent := context.WithCancel(ctx)
		DeferCleanup(stopAgent)
		go wait.UntilWithContext(agentCtx, func(ctx context.Context) { renewLease(ctx, managedKube, ns, addon) }, 300*time.Millisecond)
		Eventually(conditionIs(ctx, cluster, addon, addonv1beta1.ManagedClusterAddOnConditionAvailable, metav1.ConditionTrue, host.ReasonLeaseUpdated)).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	})

	It("survives an addon agent that panics: restarts it with backoff, reports it, and keeps the others running", func(ctx context.Context) {
		cluster := newCluster(ctx)
		steady, crashy := newAgentRuns(), newAgentRuns()
		startHost(cluster, leaseAgent(helloAddon, steady, 0), leaseAgent(crashyAddon, crashy, 2))
		enable(ctx, cluster, helloAddon)
		Eventually(func() string { return steady.username(cluster + "/" + helloAddon) }).WithContext(ctx).WithTimeout(timeout).ShouldNot(BeEmpty())
		enable(ctx, cluster, crashyAddon)

		By("reporting the crash as Degraded/AgentCrashed, with an event")
		Eventually(conditionIs(ctx, cluster, crashyAddon, host.ConditionDegraded, metav1.ConditionTrue, host.ReasonAgentCrashed, "the test agent falls over")).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		Eventually(func(g Gomega) {
			events, err := hubKube.CoreV1().Events(cluster).List(ctx, metav1.ListOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(events.Items).To(ContainElement(And(
				HaveField("Reason", host.ReasonAgentCrashed), HaveField("InvolvedObject.Name", crashyAddon))))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		By("restarting it until it runs, as its own identity, and then reporting it running")
		crashyKey := cluster + "/" + crashyAddon
		Eventually(func() string { return crashy.username(crashyKey) }).WithContext(ctx).WithTimeout(timeout).
			Should(Equal(agent.DefaultUser(cluster, crashyAddon, crashyAddon)))
		Expect(crashy.get(crashy.started, crashyKey)).To(Equal(3), "two runs panicked, the third runs")
		Eventually(conditionIs(ctx, cluster, crashyAddon, host.ConditionDegraded, metav1.ConditionFalse, host.ReasonAgentRunning)).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		By("the other addon's agent ran on, never restarted, and is Available")
		helloKey := cluster + "/" + helloAddon
		Expect(steady.get(steady.started, helloKey)).To(Equal(1))
		Expect(steady.get(steady.running, helloKey)).To(Equal(1))
		c := condition(ctx, cluster, helloAddon, addonv1beta1.ManagedClusterAddOnConditionAvailable)
		Expect(c).NotTo(BeNil())
		Expect(c.Status).To(Equal(metav1.ConditionTrue))
	})

	It("writes a custom signer's certificate as <addon>-<signer>-client-cert and rotates it before it expires", func(ctx context.Context) {
		cluster := newCluster(ctx)
		startHost(cluster)
		enable(ctx, cluster, signedAddon)
		ns, name := "addons-"+cluster, signedAddon+"-example.com-test-signer-client-cert"

		var first *x509.Certificate
		Eventually(func(g Gomega) {
			s, err := secret(ctx, ns, name)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(s.Data).To(HaveKey("tls.key"))
			g.Expect(s.Data).NotTo(HaveKey("kubeconfig"), "only a kube-client registration gets a kubeconfig")
			first = certOf(s)
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		Expect(first.Subject.CommonName).To(Equal("signed-agent"))
		Expect(first.Subject.Organization).To(ConsistOf("signed-group"))
		csrs := addonCSRs(ctx, cluster, signedAddon)
		Expect(csrs).To(HaveLen(1))
		Expect(csrs[0].Spec.SignerName).To(Equal(customSigner))

		By("asking for a new certificate at 80% of the first one's " + certLifetime.String() + " life")
		Eventually(func(g Gomega) {
			s, err := secret(ctx, ns, name)
			g.Expect(err).NotTo(HaveOccurred())
			next := certOf(s)
			g.Expect(next.SerialNumber).NotTo(Equal(first.SerialNumber))
			g.Expect(next.NotBefore).To(BeTemporally("<", first.NotAfter), "rotated before the first expired")
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		Expect(len(addonCSRs(ctx, cluster, signedAddon))).To(BeNumerically(">=", 2))
		c := condition(ctx, cluster, signedAddon, common.ConditionCertificateRotated)
		Expect(c).NotTo(BeNil())
		Expect(c.Reason).To(Equal(common.ReasonCertificateUpdated))
	})
})

func namespace(name string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
}
