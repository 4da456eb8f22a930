package addonhost_test

import (
	"context"
	"io"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"

	registrationcli "github.com/corral-dev/corral/registration/cli"
)

var _ = Describe("corral agent --no-registration", func() {
	It("runs only the named addon's agent half, with the given hub kubeconfig, until stopped", func(ctx context.Context) {
		cluster := "c-" + utilrand.String(6)
		ns := "hosted-" + cluster
		hello, other := newAgentRuns(), newAgentRuns()
		cmd := registrationcli.NewCmdAgent(io.Discard, leaseAgent(helloAddon, hello, 0), leaseAgent(crashyAddon, other, 0))
		cmd.SetArgs([]string{
			"--addons", helloAddon, "--no-registration", "--cluster-name", cluster, "--addon-namespace", ns,
			"--hub-kubeconfig", hubCluster.Kubeconfig, "--kubeconfig", managedCluster.Kubeconfig,
		})
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		runCtx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- cmd.ExecuteContext(runCtx) }()
		DeferCleanup(cancel)
		Expect(managedKube.CoreV1().Namespaces().Create(ctx, namespace(ns), metav1.CreateOptions{})).Error().NotTo(HaveOccurred())

		By("running hello as the hub kubeconfig's user, and renewing its lease in the given namespace")
		key := cluster + "/" + helloAddon
		self, err := hubKube.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() string { return hello.username(key) }).WithContext(ctx).WithTimeout(timeout).
			Should(Equal(self.Status.UserInfo.Username))
		Eventually(func() error {
			_, err := managedKube.CoordinationV1().Leases(ns).Get(ctx, helloAddon, metav1.GetOptions{})
			return err
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		Expect(other.get(other.started, cluster+"/"+crashyAddon)).To(BeZero(), "an addon not named does not run")

		By("stopping it when the command is stopped")
		cancel()
		Eventually(done).WithTimeout(timeout).Should(Receive(BeNil()))
		Expect(hello.get(hello.running, key)).To(BeZero())
		Expect(hello.get(hello.stopped, key)).To(Equal(1))
		lease, err := managedKube.CoordinationV1().Leases(ns).Get(ctx, helloAddon, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(lease.Spec.RenewTime).NotTo(BeNil())
	})
})
