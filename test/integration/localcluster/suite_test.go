// Package localcluster_test runs dev/localcluster against the real
// binaries: one hub and one managed cluster shared by the suite, and
// short-lived clusters for the specs that stop or break one.
package localcluster_test

import (
	"context"
	"sync"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/kubernetes"

	"github.com/corral-dev/corral/dev/localcluster"
)

func TestLocalcluster(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "localcluster")
}

var (
	hub, managed             *localcluster.Cluster
	hubClient, managedClient kubernetes.Interface
)

var _ = BeforeSuite(func(ctx context.Context) {
	var wg sync.WaitGroup
	var hubErr, managedErr error
	wg.Go(func() {
		hub, hubErr = localcluster.Start(ctx, localcluster.Options{
			Name: "hub", Profile: localcluster.ProfileHub, Dir: GinkgoT().TempDir(), Progress: GinkgoWriter,
		})
	})
	wg.Go(func() {
		managed, managedErr = localcluster.Start(ctx, localcluster.Options{
			Name: "managed", Profile: localcluster.ProfileManaged, Dir: GinkgoT().TempDir(), Nodes: 2, Progress: GinkgoWriter,
		})
	})
	wg.Wait()
	Expect(hubErr).NotTo(HaveOccurred())
	Expect(managedErr).NotTo(HaveOccurred())
	DeferCleanup(func() {
		Expect(hub.Stop()).To(Succeed())
		Expect(managed.Stop()).To(Succeed())
	})
	AddReportEntry("hub startup", hub.StartupTime.String())
	AddReportEntry("managed startup", managed.StartupTime.String())
	hubClient = kubernetes.NewForConfigOrDie(hub.Config)
	managedClient = kubernetes.NewForConfigOrDie(managed.Config)
}, NodeTimeout(localcluster.DefaultStartTimeout+30e9))
