package registration_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/registration/agent"
	"github.com/corral-dev/corral/registration/bootstrap"
	registrationcli "github.com/corral-dev/corral/registration/cli"
)

// joinRun is a running corral join.
type joinRun struct {
	cancel   context.CancelFunc
	finished chan struct{}
	err      error
}

// newJoin is `corral join` for cluster against the suite's hub and
// managed API server, with a fresh bootstrap token.
func newJoin(ctx context.Context, cluster string, out *bytes.Buffer) *registrationcli.JoinOptions {
	token, err := bootstrap.Token(ctx, kube, 600)
	Expect(err).NotTo(HaveOccurred())
	o := registrationcli.NewJoinOptions(out)
	o.Managed.Kubeconfig = managedCluster.Kubeconfig
	o.HubAPIServer, o.HubToken, o.ClusterName = hubCluster.Config.Host, token, cluster
	o.Deploy = false // the suite has no nodes: run the agent here
	return o
}

// hubCAFile writes the hub's CA to a file, for --ca-file.
func hubCAFile() string {
	ca := hubCluster.Config.CAData
	if len(ca) == 0 {
		var err error
		ca, err = os.ReadFile(hubCluster.Config.CAFile)
		Expect(err).NotTo(HaveOccurred())
	}
	path := filepath.Join(GinkgoT().TempDir(), "hub-ca.crt")
	Expect(os.WriteFile(path, ca, 0o600)).To(Succeed())
	return path
}

func runJoin(ctx context.Context, o *registrationcli.JoinOptions) error {
	if err := o.Validate(); err != nil {
		return err
	}
	if err := o.Complete(ctx); err != nil {
		return err
	}
	return o.Run(ctx)
}

func unjoin(ctx context.Context, cluster string) (string, error) {
	var out bytes.Buffer
	o := registrationcli.NewUnjoinOptions(&out)
	o.Managed.Kubeconfig = managedCluster.Kubeconfig
	o.ClusterName = cluster
	o.Confirm.Yes = true // off a terminal, unjoin is refused without --yes
	Expect(o.Validate()).To(Succeed())
	Expect(o.Complete()).To(Succeed())
	err := o.Run(ctx)
	return out.String(), err
}

// expectNoAgentState checks that the managed cluster holds neither the
// hub nor the bootstrap kubeconfig.
func expectNoAgentState(ctx context.Context) {
	GinkgoHelper()
	managedKube := kubernetes.NewForConfigOrDie(managedCluster.Config)
	for _, name := range []string{agent.DefaultSecretName, agent.DefaultBootstrapSecretName} {
		_, err := managedKube.CoreV1().Secrets(agent.DefaultSecretNamespace).Get(ctx, name, metav1.GetOptions{})
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "secret %s: %v", name, err)
	}
}

// The join specs use the managed cluster's default secrets, so they run
// one after the other.
var _ = Describe("corral join and corral unjoin", Serial, func() {
	It("joins with the hub's published CA, is accepted, and unjoins: the hub removes the cluster, its works, namespace and RBAC", func(ctx context.Context) {
		name := "c-" + rand.String(6)
		var out bytes.Buffer
		o := newJoin(ctx, name, &out)
		o.ClusterURL = "https://" + name + ".example:6443"
		runCtx, cancel := context.WithCancel(ctx)
		run := &joinRun{cancel: cancel, finished: make(chan struct{})}
		go func() {
			defer GinkgoRecover()
			defer close(run.finished)
			run.err = runJoin(runCtx, o)
		}()
		DeferCleanup(func(ctx context.Context) {
			run.cancel()
			Eventually(run.finished).WithTimeout(timeout).Should(BeClosed())
			_ = admin.Delete(ctx, &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: name}})
		})

		Eventually(func() int { return len(csrsOf(ctx, name)) }).WithContext(ctx).WithTimeout(timeout).Should(Equal(1))
		_, err := accept(ctx, name)
		Expect(err).NotTo(HaveOccurred())
		expectAvailable(ctx, name)
		Expect(getCluster(ctx, name).Spec.ManagedClusterClientConfigs).To(ConsistOf(HaveField("URL", o.ClusterURL)), "--cluster-url reaches the hub")

		By("stopping the agent and unjoining, with a work its agent would finalize")
		w := agentWork(ctx, name)
		run.cancel()
		Eventually(run.finished).WithTimeout(timeout).Should(BeClosed())
		Expect(run.err).NotTo(HaveOccurred())
		Expect(out.String()).To(ContainSubstring("trusting the CA the hub publishes"))
		msg, err := unjoin(ctx, name)
		Expect(err).NotTo(HaveOccurred(), msg)
		Expect(msg).To(ContainSubstring(name + ": deleted from the hub"))

		Eventually(func() bool {
			return apierrors.IsNotFound(admin.Get(ctx, client.ObjectKey{Name: name}, &clusterv1.ManagedCluster{}))
		}).WithContext(ctx).WithTimeout(timeout).Should(BeTrue(), "the ManagedCluster goes")
		Eventually(func() bool {
			return apierrors.IsNotFound(admin.Get(ctx, client.ObjectKey{Name: name}, &corev1.Namespace{}))
		}).WithContext(ctx).WithTimeout(timeout).Should(BeTrue(), "its namespace goes")
		Expect(apierrors.IsNotFound(admin.Get(ctx, client.ObjectKeyFromObject(w), w))).To(BeTrue(), "the hub lets go of the work of the agent unjoin reported gone")
		Expect(asCluster(name).Get(ctx, client.ObjectKey{Name: name}, &clusterv1.ManagedCluster{})).To(MatchError(forbidden, "forbidden"))
		expectNoAgentState(ctx)
	})

	DescribeTable("refuses, in one line and creating nothing,",
		func(ctx context.Context, mutate func(*registrationcli.JoinOptions), want string) {
			name := "c-" + rand.String(6)
			o := newJoin(ctx, name, &bytes.Buffer{})
			o.CAFile = hubCAFile()
			mutate(o)
			err := runJoin(ctx, o)
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(ContainSubstring(want))
			Expect(err.Error()).NotTo(ContainSubstring("\n"))
			Expect(apierrors.IsNotFound(admin.Get(ctx, client.ObjectKey{Name: name}, &clusterv1.ManagedCluster{}))).To(BeTrue())
			Expect(csrsOf(ctx, name)).To(BeEmpty())
			expectNoAgentState(ctx)
		},
		Entry("a hub it cannot reach", func(o *registrationcli.JoinOptions) { o.HubAPIServer = "https://127.0.0.1:1" }, "cannot reach the hub at https://127.0.0.1:1"),
		Entry("a token the hub does not know", func(o *registrationcli.JoinOptions) { o.HubToken = "not-a-token" }, "corral get token"),
		Entry("an http hub address", func(o *registrationcli.JoinOptions) { o.HubAPIServer = "http://127.0.0.1:1" }, "is not an https URL"),
		Entry("an http cluster address", func(o *registrationcli.JoinOptions) { o.ClusterURL = "http://managed:6443" }, `--cluster-url "http://managed:6443" is not an https URL`),
		Entry("a cluster name that is not a DNS label", func(o *registrationcli.JoinOptions) { o.ClusterName = "Not_A_Name" }, "--cluster-name"),
		Entry("a CA file that is not PEM", func(o *registrationcli.JoinOptions) {
			Expect(os.WriteFile(o.CAFile, []byte("nonsense"), 0o600)).To(Succeed())
		}, "holds no PEM certificate"),
	)

	It("refuses a name another live agent holds, creating nothing", func(ctx context.Context) {
		name, _ := startJoinedAgent(ctx, "hub-kubeconfig-"+rand.String(6))
		o := newJoin(ctx, name, &bytes.Buffer{})
		o.CAFile = hubCAFile()
		refusing, cancel := context.WithTimeout(ctx, timeout) // a miss fails, not hangs
		defer cancel()
		err := runJoin(refusing, o)
		Expect(err).To(MatchError(agent.ErrNameTaken))
		Expect(csrsOf(ctx, name)).To(HaveLen(1))
		expectNoAgentState(ctx)
	})

	It("unjoin of a cluster still waiting to be accepted removes the agent's state and leaves the request to the hub admin", func(ctx context.Context) {
		name := "c-" + rand.String(6)
		run := startAgent(ctx, name, agent.DefaultSecretName, "")
		deleteClusterAfter(name)
		expectCSRs(ctx, name, 1)
		Expect(storedAgentName(ctx, agent.DefaultSecretName)).NotTo(BeEmpty())
		run.stop()

		msg, err := unjoin(ctx, name)
		Expect(err).NotTo(HaveOccurred())
		Expect(msg).To(ContainSubstring("never accepted"))
		expectNoAgentState(ctx)
		Expect(csrsOf(ctx, name)).To(HaveLen(1), "the request stays for the hub admin to deny")
	})

	It("unjoin says so when the cluster never joined, and changes nothing", func(ctx context.Context) {
		msg, err := unjoin(ctx, "c-"+rand.String(6))
		Expect(err).To(MatchError(ContainSubstring("holds no hub identity")), msg)
	})
})
