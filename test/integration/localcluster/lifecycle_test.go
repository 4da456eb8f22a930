package localcluster_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/url"
	"strconv"
	"strings"
	"syscall"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/corral-dev/corral/dev/localcluster"
)

// startHub starts a cluster of its own for one spec, stopped afterwards.
func startHub(ctx context.Context, dir string, reuse bool, progress *bytes.Buffer) *localcluster.Cluster {
	c, err := localcluster.Start(ctx, localcluster.Options{
		Name: "own", Profile: localcluster.ProfileHub, Dir: dir, Reuse: reuse, Progress: progress,
	})
	Expect(err).NotTo(HaveOccurred())
	return c
}

// gone reports whether pid no longer exists.
func gone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

var _ = Describe("lifecycle", func() {
	It("reports a killed kube-apiserver and still stops cleanly, leaving no process", func(ctx context.Context) {
		c := startHub(ctx, GinkgoT().TempDir(), false, &bytes.Buffer{})
		DeferCleanup(func() { _ = c.Stop() })
		Expect(c.Err()).To(BeNil())

		var apiserver int
		for _, comp := range c.Components() {
			if comp.Name == "kube-apiserver" {
				apiserver = comp.PID
			}
		}
		Expect(apiserver).NotTo(BeZero())
		Expect(syscall.Kill(apiserver, syscall.SIGKILL)).To(Succeed())

		Eventually(c.Done()).WithContext(ctx).Should(BeClosed())
		// Others may die of it, and be reaped first; the apiserver is named
		// once it has been reaped too.
		Eventually(c.Err).WithContext(ctx).Should(MatchError(And(
			ContainSubstring("kube-apiserver stopped unexpectedly (signal: killed)"),
			ContainSubstring("kube-apiserver.log"))))

		Expect(c.Stop()).To(Succeed())
		for _, comp := range c.Components() {
			Expect(comp.Running).To(BeFalse(), comp.Name)
			Expect(gone(comp.PID)).To(BeTrue(), "%s (pid %d) should be gone", comp.Name, comp.PID)
		}
	})

	It("refuses a data directory that a running cluster holds", func(ctx context.Context) {
		_, err := localcluster.Start(ctx, localcluster.Options{Name: "intruder", Dir: hub.Dir})
		Expect(err).To(MatchError(localcluster.ErrDirBusy))
		Expect(err.Error()).To(ContainSubstring(strconv.Itoa(syscall.Getpid())))
		Expect(hub.Err()).To(BeNil(), "the running cluster is untouched")
	})

	It("keeps an earlier run's data when asked to reuse it and removes it otherwise, saying which", func(ctx context.Context) {
		dir := GinkgoT().TempDir()
		first := startHub(ctx, dir, false, &bytes.Buffer{})
		client := kubernetes.NewForConfigOrDie(first.Config)
		_, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kept"}}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(first.Stop()).To(Succeed())

		var progress bytes.Buffer
		second := startHub(ctx, dir, true, &progress)
		Expect(progress.String()).To(ContainSubstring("reusing the data"))
		Expect(second.Server).To(Equal(first.Server), "a reused cluster comes back at its address")
		_, err = kubernetes.NewForConfigOrDie(second.Config).CoreV1().Namespaces().Get(ctx, "kept", metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred(), "etcd data should survive a reuse")
		Expect(second.Stop()).To(Succeed())

		progress.Reset()
		third := startHub(ctx, dir, false, &progress)
		DeferCleanup(func() { _ = third.Stop() })
		Expect(progress.String()).To(ContainSubstring("removing the data"))
		_, err = kubernetes.NewForConfigOrDie(third.Config).CoreV1().Namespaces().Get(ctx, "kept", metav1.GetOptions{})
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "a clean start should not see the old namespace: %v", err)
	})

	It("refuses in one line to reuse a cluster whose address another process took, starting nothing", func(ctx context.Context) {
		dir := GinkgoT().TempDir()
		first := startHub(ctx, dir, false, &bytes.Buffer{})
		Expect(first.Stop()).To(Succeed())
		u, err := url.Parse(first.Server)
		Expect(err).NotTo(HaveOccurred())
		squatter, err := net.Listen("tcp", u.Host)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { _ = squatter.Close() })

		c, err := localcluster.Start(ctx, localcluster.Options{Name: "own", Profile: localcluster.ProfileHub, Dir: dir, Reuse: true})
		Expect(c).To(BeNil())
		Expect(err).To(MatchError(ContainSubstring("its address of the last run, " + first.Server + ", is taken by another process")))
		Expect(err.Error()).To(ContainSubstring("start afresh without --reuse"))
		Expect(strings.Count(err.Error(), "\n")).To(BeZero())

		By("starting once the address is free again, at it")
		Expect(squatter.Close()).To(Succeed())
		again := startHub(ctx, dir, true, &bytes.Buffer{})
		DeferCleanup(func() { _ = again.Stop() })
		Expect(again.Server).To(Equal(first.Server))
	})

	It("says to run make tools when the binaries are missing", func(ctx context.Context) {
		_, err := localcluster.Start(ctx, localcluster.Options{Name: "c", Dir: GinkgoT().TempDir(), BinDir: GinkgoT().TempDir()})
		Expect(err).To(MatchError(localcluster.ErrToolsMissing))
		Expect(err.Error()).To(ContainSubstring("run make tools"))
	})
})
