// Package placement_test runs the placement scheduler, as `corral hub
// --addons placement` runs the addon's hub half, beside the registration
// core's cluster-set-binding controller, which marks bindings Bound, against a
// real hub control plane; with a fake clock for tolerationSeconds and
// scoreRateLimit.
package placement_test

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	testingclock "k8s.io/utils/clock/testing"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/dev/localcluster"
	"github.com/corral-dev/corral/internal/testenv"
	"github.com/corral-dev/corral/placement"
	reghub "github.com/corral-dev/corral/registration/hub"
)

func TestPlacement(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "placement scheduler")
}

const timeout = 60 * time.Second

var (
	hubCluster *localcluster.Cluster
	admin      client.Client
	kube       kubernetes.Interface
	fakeClock  *testingclock.FakeClock
)

var _ = BeforeSuite(func(ctx context.Context) {
	ctrl.SetLogger(GinkgoLogr)
	By("starting a hub control plane with what corral init installs")
	hubCluster = testenv.HubCluster(ctx)

	// The specs create hundreds of clusters: client-go's default limits
	// (5 per second) would be most of their time.
	adminConfig := rest.CopyConfig(hubCluster.Config)
	adminConfig.QPS, adminConfig.Burst = 1000, 2000
	admin = testenv.MustClient(adminConfig)
	kube = kubernetes.NewForConfigOrDie(hubCluster.Config)

	fakeClock = testingclock.NewFakeClock(time.Now().Truncate(time.Second))
	// The placement addon's hub half as corral hub runs it, and of the
	// registration core only the controller that marks bindings Bound.
	o := testenv.AddonHubOptions(hubCluster.Config, placement.Addon())
	o.Clock, o.RegistrationControllers = fakeClock, []string{reghub.ControllerClusterSetBinding}
	testenv.RunHub(o)
}, NodeTimeout(localcluster.DefaultStartTimeout+60e9))
