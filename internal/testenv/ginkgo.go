package testenv

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/dev/localcluster"
	corralhub "github.com/corral-dev/corral/hub"
)

// The suites' Ginkgo forms of the functions above: each fails the running
// node on an error, and what it starts is stopped by that node's cleanup.

// HubCluster is StartHubCluster in a temporary directory of the node.
func HubCluster(ctx context.Context) *localcluster.Cluster {
	ginkgo.GinkgoHelper()
	c, err := StartHubCluster(ctx, ginkgo.GinkgoT().TempDir(), ginkgo.GinkgoWriter)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(c.Stop)
	return c
}

// HubAndManaged is StartHubAndManaged in temporary directories of the
// node.
func HubAndManaged(ctx context.Context) (hub, managed *localcluster.Cluster) {
	ginkgo.GinkgoHelper()
	hub, managed, err := StartHubAndManaged(ctx, ginkgo.GinkgoT().TempDir(), ginkgo.GinkgoT().TempDir(), ginkgo.GinkgoWriter)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(hub.Stop)
	ginkgo.DeferCleanup(managed.Stop)
	return hub, managed
}

// MustClient is Client.
func MustClient(cfg *rest.Config) client.Client {
	ginkgo.GinkgoHelper()
	c, err := Client(cfg)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return c
}

// RunHub is StartHub on a context of its own, stopped within
// HubStartTimeout by the node's cleanup. It returns stop, for a spec that
// stops the hub itself; a second call of it does nothing.
func RunHub(o *corralhub.Options) (stop func()) {
	ginkgo.GinkgoHelper()
	stopHub, err := StartHub(context.Background(), o)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	var stopped bool
	stop = func() {
		if !stopped {
			stopped = true
			gomega.Expect(stopHub(HubStartTimeout)).To(gomega.Succeed())
		}
	}
	ginkgo.DeferCleanup(stop)
	return stop
}
