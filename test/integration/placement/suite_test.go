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
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	testingclock "k8s.io/utils/clock/testing"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/dev/localcluster"
	"github.com/corral-dev/corral/internal/testenv"
	"github.com/corral-dev/corral/placement"
	registrationcli "github.com/corral-dev/corral/registration/cli"
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
	var err error
	hubCluster, err = localcluster.Start(ctx, localcluster.Options{
		Name: "hub", Profile: localcluster.ProfileHub, Dir: GinkgoT().TempDir(), Progress: GinkgoWriter,
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(hubCluster.Stop)

	By("installing on the hub what corral init does")
	Expect(registrationcli.InstallHub(ctx, hubCluster.Config, GinkgoWriter)).To(Succeed())

	scheme := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(clusterv1.Install(scheme)).To(Succeed())
	Expect(clusterv1alpha1.Install(scheme)).To(Succeed())
	Expect(clusterv1beta1.Install(scheme)).To(Succeed())
	Expect(clusterv1beta2.Install(scheme)).To(Succeed())
	// The specs create hundreds of clusters: client-go's default limits
	// (5 per second) would be most of their time.
	adminConfig := rest.CopyConfig(hubCluster.Config)
	adminConfig.QPS, adminConfig.Burst = 1000, 2000
	admin, err = client.New(adminConfig, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	kube = kubernetes.NewForConfigOrDie(hubCluster.Config)

	fakeClock = testingclock.NewFakeClock(time.Now().Truncate(time.Second))
	// The placement addon's hub half as corral hub runs it, and of the
	// registration core only the controller that marks bindings Bound.
	o := testenv.AddonHubOptions(hubCluster.Config, placement.Addon())
	o.Clock, o.RegistrationControllers = fakeClock, []string{reghub.ControllerClusterSetBinding}
	stop, err := testenv.StartHub(context.Background(), o)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(stop(timeout)).To(Succeed()) })
}, NodeTimeout(localcluster.DefaultStartTimeout+60e9))
