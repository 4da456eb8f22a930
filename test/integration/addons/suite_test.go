// Package addons_test runs the hub's addon manager beside the registration
// core, as `corral hub` runs them, against a real hub control plane (etcd, kube-apiserver and the
// controller-manager that signs CSRs, deletes namespaces and collects
// garbage), with a test built-in addon.
package addons_test

import (
	"context"
	"testing"
	"time"

	"github.com/corral-dev/corral/internal/testenv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/kubernetes"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/addons/manager"
	"github.com/corral-dev/corral/dev/localcluster"
	registrationcli "github.com/corral-dev/corral/registration/cli"
	"github.com/corral-dev/corral/registration/hub"
	"github.com/corral-dev/corral/registration/webhook"
)

func TestAddons(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "addon manager")
}

const timeout = 60 * time.Second

// helloAddon is the test's built-in addon: its agent may read ConfigMaps in
// its cluster namespace.
var helloAddon = addons.Addon{
	Name:        "hello",
	Description: "a test addon",
	HubRules:    []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list"}}},
	RunAgent:    func(ctx context.Context, _ addons.AgentEnv) error { <-ctx.Done(); return nil },
}

var (
	hubCluster *localcluster.Cluster
	admin      client.Client
	kube       kubernetes.Interface
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

	testScheme, err := hub.Scheme()
	Expect(err).NotTo(HaveOccurred())
	Expect(manager.AddToScheme(testScheme)).To(Succeed())
	Expect(addonv1beta1.Install(testScheme)).To(Succeed())
	Expect(apiextensionsv1.AddToScheme(testScheme)).To(Succeed())
	Expect(workv1.Install(testScheme)).To(Succeed())
	admin, err = client.New(hubCluster.Config, client.Options{Scheme: testScheme})
	Expect(err).NotTo(HaveOccurred())
	kube = kubernetes.NewForConfigOrDie(hubCluster.Config)

	// The hub as corral hub runs it with one built-in addon: the
	// registration core, the addon manager and the webhooks (the addon
	// CRDs' conversion among them, once the hub serves it).
	stop, err := testenv.StartHub(context.Background(), testenv.HubOptions(hubCluster.Config, helloAddon))
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(stop(timeout)).To(Succeed()) })
	Expect(webhook.WaitConverting(ctx, admin, timeout)).To(Succeed())
}, NodeTimeout(localcluster.DefaultStartTimeout+60e9))
