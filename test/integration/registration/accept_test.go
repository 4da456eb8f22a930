package registration_test

import (
	"bytes"
	"context"
	"io"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	"github.com/spf13/cobra"
	certificatesv1 "k8s.io/api/certificates/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/testing/builder"
	registrationcli "github.com/corral-dev/corral/registration/cli"
	"github.com/corral-dev/corral/registration/clientcsr"
)

// join does what a joining agent does with its bootstrap token: create its
// ManagedCluster and a CSR. It returns the CSR's name.
func join(ctx context.Context, name string) string {
	joiner := bootstrapClient(ctx)
	mc := builder.Cluster(name).LeaseDurationSeconds(60).Obj()
	Expect(joiner.Create(ctx, mc)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { _ = admin.Delete(ctx, mc) })
	return submitCSR(ctx, joiner, name, csrPEM(name))
}

// accept runs corral accept on the suite's hub and returns its output.
func accept(ctx context.Context, clusters ...string) (string, error) {
	return acceptOn(ctx, hubCluster.Kubeconfig, clusters...)
}

// acceptOn runs corral accept on the hub of kubeconfig.
func acceptOn(ctx context.Context, kubeconfig string, clusters ...string) (string, error) {
	var out bytes.Buffer
	err := acceptWith(ctx, &out, kubeconfig, 0, clusters...)
	return out.String(), err
}

// acceptWith runs corral accept on the hub of kubeconfig, printing to out;
// with wait other than zero, as --wait --timeout wait.
func acceptWith(ctx context.Context, out io.Writer, kubeconfig string, wait time.Duration, clusters ...string) error {
	o := registrationcli.NewAcceptOptions(out)
	o.Hub.Kubeconfig = kubeconfig
	o.Clusters = clusters
	o.Wait, o.Timeout = wait != 0, wait
	if err := o.Validate(); err != nil {
		return err
	}
	Expect(o.Complete()).To(Succeed())
	return o.Run(ctx)
}

var _ = Describe("corral accept", func() {
	It("approves a joining cluster's request and accepts it; the hub signs the certificate", func(ctx context.Context) {
		name := "c-" + rand.String(6)
		csr := join(ctx, name)
		out, err := accept(ctx, name)
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring(name + ": approved join request " + csr))
		Expect(out).To(ContainSubstring(name + ": accepted"))
		expectAccepted(ctx, name)
		Eventually(func() []byte { return getCSR(ctx, csr).Status.Certificate }).WithContext(ctx).WithTimeout(timeout).ShouldNot(BeEmpty())

		By("being safe to run again")
		out, err = accept(ctx, name)
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring("already accepted"))
	})

	It("refuses a cluster that never asked to join, and changes nothing for the others named", func(ctx context.Context) {
		name, ghost := "c-"+rand.String(6), "ghost-"+rand.String(5)
		csr := join(ctx, name)
		_, err := accept(ctx, name, ghost)
		Expect(err).To(MatchError(And(ContainSubstring("nothing was changed"), ContainSubstring(ghost+" has not asked to join"))))
		Expect(getCluster(ctx, name).Spec.HubAcceptsClient).To(BeFalse())
		Expect(clientcsr.Pending(getCSR(ctx, csr))).To(BeTrue())
		Expect(apierrors.IsNotFound(admin.Get(ctx, client.ObjectKey{Name: ghost}, &clusterv1.ManagedCluster{}))).To(BeTrue())
	})

	It("leaves a request that is not its bootstrap join request pending, and says so", func(ctx context.Context) {
		name := "c-" + rand.String(6)
		join(ctx, name)
		rogue := submitCSR(ctx, bootstrapClient(ctx), name, csrPEM(name), certificatesv1.UsageClientAuth, certificatesv1.UsageServerAuth)
		out, err := accept(ctx, name)
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring("left request " + rogue + " pending"))
		Expect(clientcsr.Pending(getCSR(ctx, rogue))).To(BeTrue())
	})

	It("says, accepting again a denied cluster whose agent still heartbeats, that its identity is let in again", func(ctx context.Context) {
		name := newCluster(ctx, true)
		expectAccepted(ctx, name)
		agent := asCluster(name)
		expectAccess(ctx, agent, name)
		mc := getCluster(ctx, name)
		patch := client.MergeFrom(mc.DeepCopy())
		meta.SetStatusCondition(&mc.Status.Conditions, metav1.Condition{Type: clusterv1.ManagedClusterConditionJoined, Status: metav1.ConditionTrue, Reason: "ManagedClusterJoined"})
		Expect(agent.Status().Patch(ctx, mc, patch)).To(Succeed())
		agentReportsAvailable(ctx, agent, name)

		setAccepted(ctx, name, false)
		out, err := accept(ctx, name)
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring(name + ": its agent still heartbeats with the identity it had; the hub lets it in again"))
		Expect(out).NotTo(ContainSubstring("has not asked"))
	})

	Describe("--wait", func() {
		// asking creates, as a joining agent does first, the ManagedCluster
		// alone: a cluster that has not asked for a certificate yet.
		asking := func(ctx context.Context, name string) {
			mc := builder.Cluster(name).LeaseDurationSeconds(60).Obj()
			Expect(bootstrapClient(ctx).Create(ctx, mc)).To(Succeed())
			DeferCleanup(func(ctx context.Context) { _ = admin.Delete(ctx, mc) })
		}

		It("waits for a cluster whose agent has not asked for a certificate yet, then approves its request and accepts it", func(ctx context.Context) {
			name := "c-" + rand.String(6)
			asking(ctx, name)
			out := gbytes.NewBuffer()
			accepted := make(chan error, 1)
			go func() {
				defer GinkgoRecover()
				accepted <- acceptWith(ctx, out, hubCluster.Kubeconfig, timeout, name)
			}()
			Eventually(out).WithTimeout(timeout).Should(gbytes.Say("Waiting up to .* for 1 of 1 clusters to ask to join"))
			Expect(getCluster(ctx, name).Spec.HubAcceptsClient).To(BeFalse(), "nothing accepted while waiting")

			csr := submitCSR(ctx, bootstrapClient(ctx), name, csrPEM(name))
			Eventually(accepted).WithTimeout(timeout).Should(Receive(BeNil()))
			Expect(string(out.Contents())).To(ContainSubstring(name + ": approved join request " + csr))
			expectAccepted(ctx, name)
		})

		It("names the clusters that have not asked once the timeout passes, and changes nothing", func(ctx context.Context) {
			name, ghost, ready := "c-"+rand.String(6), "ghost-"+rand.String(5), "c-"+rand.String(6)
			asking(ctx, name)
			csr := join(ctx, ready)
			var out bytes.Buffer
			err := acceptWith(ctx, &out, hubCluster.Kubeconfig, 2*time.Second, name, ghost, ready)
			Expect(err).To(MatchError(And(
				ContainSubstring("nothing was changed: waited 2s"),
				ContainSubstring(name+" has not asked for a certificate"),
				ContainSubstring(ghost+" has not asked to join"),
				Not(ContainSubstring(ready)))))
			Expect(getCluster(ctx, name).Spec.HubAcceptsClient).To(BeFalse())
			Expect(getCluster(ctx, ready).Spec.HubAcceptsClient).To(BeFalse())
			Expect(clientcsr.Pending(getCSR(ctx, csr))).To(BeTrue())
		})

		It("refuses a timeout that is not positive", func(ctx context.Context) {
			err := acceptWith(ctx, io.Discard, hubCluster.Kubeconfig, -time.Second, "c1")
			Expect(err).To(MatchError(ContainSubstring("--timeout is -1s")))
		})
	})

	It("refuses a malformed cluster name before talking to the hub", func(ctx context.Context) {
		_, err := accept(ctx, "Not_A_Name")
		Expect(err).To(MatchError(ContainSubstring("is not a cluster name")))
	})
})

var _ = Describe("corral deny", func() {
	It("revokes an accepted cluster and denies its pending requests", func(ctx context.Context) {
		name := "c-" + rand.String(6)
		join(ctx, name)
		_, err := accept(ctx, name)
		Expect(err).NotTo(HaveOccurred())
		expectAccepted(ctx, name)
		pending := submitCSR(ctx, bootstrapClient(ctx), name, csrPEM(name))

		deny := newDenyCommand(name)
		Expect(deny.ExecuteContext(ctx)).To(Succeed())
		Expect(deny.OutOrStdout().(*bytes.Buffer).String()).To(ContainSubstring(name + ": denied"))
		Expect(getCluster(ctx, name).Spec.HubAcceptsClient).To(BeFalse())
		Expect(getCSR(ctx, pending).Status.Conditions).To(ContainElement(HaveField("Type", certificatesv1.CertificateDenied)))
	})
})

// newDenyCommand is `corral deny cluster` against the suite's hub, its
// output in a buffer.
func newDenyCommand(cluster string) *cobra.Command {
	var out bytes.Buffer
	deny := registrationcli.NewCmdDeny(&out)
	deny.SetOut(&out)
	deny.SetArgs([]string{"--kubeconfig", hubCluster.Kubeconfig, "--yes", cluster})
	return deny
}
