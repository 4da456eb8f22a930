// Package propagation_test checks the propagation addon on a real API
// server: envtest with the hub chart's CRDs (OCM's and the apps.corral.dev
// ones `make generate` writes there), their defaults, each refusal their
// validation makes, the revisions' immutability, the hub half's
// controllers, run by the specs that need them (selector_test.go), and
// the addon's validating webhook, served as the hub serves it, with
// impersonated users (webhook_test.go).
package propagation_test

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/internal/testenv"
	"github.com/corral-dev/corral/propagation"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub"
	"github.com/corral-dev/corral/propagation/hub/distribute"
)

func TestPropagation(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "propagation API")
}

var (
	c client.Client
	// cfg reaches the suite's API server, for the specs' managers.
	cfg *rest.Config
)

var _ = BeforeSuite(func() {
	By("starting envtest with the hub chart's CRDs, OCM's and apps.corral.dev")
	env, err := testenv.Environment()
	Expect(err).NotTo(HaveOccurred())
	cfg, err = env.Start()
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(env.Stop)

	scheme := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(v1alpha1.Install(scheme)).To(Succeed())
	Expect(workv1.Install(scheme)).To(Succeed())
	Expect(clusterv1.Install(scheme)).To(Succeed())
	Expect(clusterv1alpha1.Install(scheme)).To(Succeed())
	Expect(clusterv1beta1.Install(scheme)).To(Succeed())
	c, err = client.New(cfg, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
})

// freshNamespace creates a namespace of its own for the running spec.
func freshNamespace(ctx context.Context) string {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: testenv.UniqueName("prop")}}
	Expect(c.Create(ctx, ns)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { Expect(c.Delete(ctx, ns)).To(Succeed()) })
	return ns.Name
}

// newManager is a manager of the suite's API server for a spec's
// controllers: no metrics or probe listeners, controller names that may
// repeat across the specs' managers (each spec stops its own), and the
// propagation addon's cache transforms, as the hub has them.
func newManager(scheme *runtime.Scheme) ctrl.Manager {
	GinkgoHelper()
	Expect(workv1.Install(scheme)).To(Succeed()) // the cache transforms' type
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Cache:                  cache.Options{ByObject: addons.HubCache([]addons.Addon{propagation.Addon()})},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	Expect(err).NotTo(HaveOccurred())
	return mgr
}

// startHubHalf runs the propagation addon's hub half, as the hub wires
// it (hub.SetupWithManager), on a manager of its own until the container
// ends.
func startHubHalf() {
	ctrl.SetLogger(GinkgoLogr)
	By("running the propagation hub half, as wired, on a manager of its own")
	scheme := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	mgr := newManager(scheme)
	Expect(hub.SetupWithManager(mgr, hub.Options{})).To(Succeed())
	stop := testenv.Go(context.Background(), mgr.Start)
	DeferCleanup(func() { Expect(stop(30 * time.Second)).To(Succeed()) })
}

// startDistributor runs the distribute controllers with opts on a
// manager of their own until the container ends.
func startDistributor(opts distribute.Options) {
	GinkgoHelper()
	By("starting a manager with the distribute controllers")
	ctrl.SetLogger(GinkgoLogr)
	scheme := runtime.NewScheme()
	Expect(distribute.AddToScheme(scheme)).To(Succeed())
	mgr := newManager(scheme)
	Expect(distribute.SetupWithManager(mgr, opts)).To(Succeed())
	stop := testenv.Go(context.Background(), mgr.Start)
	DeferCleanup(func() { Expect(stop(time.Minute)).To(Succeed()) })
}
