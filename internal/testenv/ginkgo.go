package testenv

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/dev/localcluster"
	corralhub "github.com/corral-dev/corral/hub"
)

// The suites' Ginkgo forms of the functions above: each fails the running
// node on an error, and what it starts is stopped by that node's cleanup.

// HubCluster is StartHubCluster in a temporary directory of the node.
func HubCluster(ctx context.Context) *localcluster.Cluster {
	GinkgoHelper()
	c, err := StartHubCluster(ctx, GinkgoT().TempDir(), GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(c.Stop)
	return c
}

// HubAndManaged is StartHubAndManaged in temporary directories of the
// node.
func HubAndManaged(ctx context.Context) (hub, managed *localcluster.Cluster) {
	GinkgoHelper()
	hub, managed, err := StartHubAndManaged(ctx, GinkgoT().TempDir(), GinkgoT().TempDir(), GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(hub.Stop)
	DeferCleanup(managed.Stop)
	return hub, managed
}

// MustClient is Client.
func MustClient(cfg *rest.Config) client.Client {
	GinkgoHelper()
	c, err := Client(cfg)
	Expect(err).NotTo(HaveOccurred())
	return c
}

// RunHub is StartHub on a context of its own, stopped within
// HubStartTimeout by the node's cleanup. It returns stop, for a spec that
// stops the hub itself; a second call of it does nothing.
func RunHub(o *corralhub.Options) (stop func()) {
	GinkgoHelper()
	stopHub, err := StartHub(context.Background(), o)
	Expect(err).NotTo(HaveOccurred())
	var stopped bool
	stop = func() {
		if !stopped {
			stopped = true
			Expect(stopHub(HubStartTimeout)).To(Succeed())
		}
	}
	DeferCleanup(stop)
	return stop
}
