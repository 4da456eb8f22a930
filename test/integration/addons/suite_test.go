// Package addons_test runs the hub's addon manager beside the registration
// core, as `corral hub` runs them, against a real hub control plane (etcd, kube-apiserver and the
// controller-manager that signs CSRs, deletes namespaces and collects
// garbage), with a test built-in addon.
package addons_test

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/dev/localcluster"
	"github.com/corral-dev/corral/internal/testenv"
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
	By("starting a hub control plane with what corral init installs")
	hubCluster = testenv.HubCluster(ctx)

	admin = testenv.MustClient(hubCluster.Config)
	kube = kubernetes.NewForConfigOrDie(hubCluster.Config)

	// The hub as corral hub runs it with one built-in addon: the
	// registration core, the addon manager and the webhooks (the addon
	// CRDs' conversion among them, once the hub serves it).
	testenv.RunHub(testenv.HubOptions(hubCluster.Config, helloAddon))
	Expect(webhook.WaitConverting(ctx, admin, timeout)).To(Succeed())
}, NodeTimeout(localcluster.DefaultStartTimeout+60e9))
