// Package webhook_test runs the hub's registration admission webhooks,
// wired as the binary wires them, against a real hub control plane: the
// hub's API server calls them, RBAC decides, and users are impersonated.
package webhook_test

import (
	"context"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/dev/localcluster"
	corralhub "github.com/corral-dev/corral/hub"
	"github.com/corral-dev/corral/internal/testenv"
	registrationcli "github.com/corral-dev/corral/registration/cli"
)

func TestWebhook(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "registration webhooks")
}

// timeout bounds every wait: RBAC reaching the authorizer, the hub's
// controllers, the registrar; generous for a busy 2-core machine.
const timeout = 60 * time.Second

var (
	hubCluster *localcluster.Cluster
	admin      client.Client
)

var _ = BeforeSuite(func(ctx context.Context) {
	By("starting a hub control plane with what corral init installs")
	hubCluster = testenv.HubCluster(ctx)

	admin = testenv.MustClient(hubCluster.Config)

	By("running the hub's controllers and webhooks as corral hub does")
	stopHub = startHub(true, 0)
	DeferCleanup(func() { stopHub() })
}, NodeTimeout(localcluster.DefaultStartTimeout+3*time.Minute))

// stopHub stops the hub process the specs run against; a spec that
// replaces it sets it anew.
var stopHub func()

// startHub starts a hub process on the hub, as corral hub runs: its
// webhooks, on webhookPort (0: a free one), and, withControllers, the
// registration controllers; configure changes its options further. It
// returns once the API server calls the webhooks (this process's, or
// another's that holds their lease). The returned func stops it and waits
// until it has stopped; calling it again does nothing.
func startHub(withControllers bool, webhookPort int, configure ...func(*corralhub.Options)) (stop func()) {
	GinkgoHelper()
	o := testenv.HubOptions(hubCluster.Config)
	if !withControllers {
		o.RegistrationControllers = []string{}
	}
	if webhookPort != 0 {
		o.FreeWebhookPort, o.Webhook.Port = false, webhookPort
	}
	for _, c := range configure {
		c(o)
	}
	stopHub, err := testenv.StartHub(context.Background(), o)
	Expect(err).NotTo(HaveOccurred())
	var once sync.Once
	return func() {
		once.Do(func() { Expect(stopHub(2 * time.Minute)).To(Succeed()) })
	}
}

// freePort is a loopback port that was free a moment ago.
func freePort() int {
	GinkgoHelper()
	port, err := localcluster.FreePort()
	Expect(err).NotTo(HaveOccurred())
	return port
}

// as is a client that impersonates user in groups (and
// system:authenticated).
func as(user string, groups ...string) client.Client {
	cfg := rest.CopyConfig(hubCluster.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: append(groups, "system:authenticated")}
	c, err := client.New(cfg, client.Options{Scheme: admin.Scheme()})
	Expect(err).NotTo(HaveOccurred())
	return c
}

// rule is an RBAC rule on the cluster API group, limited to names when
// any are given.
func rule(group, resource string, verbs []string, names ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{resource}, Verbs: verbs, ResourceNames: names}
}

const clusterGroup = "cluster.open-cluster-management.io"

// grant gives user the rules through a ClusterRole and binding of its own,
// removed after the spec, and waits until they take effect.
func grant(ctx context.Context, user string, rules ...rbacv1.PolicyRule) {
	GinkgoHelper()
	name := testenv.UniqueName("webhook-spec-" + user)
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	Expect(admin.Create(ctx, role)).To(Succeed())
	Expect(admin.Create(ctx, binding)).To(Succeed())
	DeferCleanup(func(ctx context.Context) {
		Expect(client.IgnoreNotFound(admin.Delete(ctx, binding))).To(Succeed())
		Expect(client.IgnoreNotFound(admin.Delete(ctx, role))).To(Succeed())
	})
	Eventually(func() (bool, error) { return testenv.Granted(ctx, admin, user, "", rules...) }).
		WithContext(ctx).WithTimeout(timeout).Should(BeTrue(), "the grant to %s takes effect", user)
}

// newNamespace is a namespace for one spec, deleted after it.
func newNamespace(ctx context.Context) string {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: testenv.UniqueName("webhook-spec")}}
	Expect(admin.Create(ctx, ns)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { Expect(client.IgnoreNotFound(admin.Delete(ctx, ns))).To(Succeed()) })
	return ns.Name
}

// kubeconfigAs writes a kubeconfig of the hub that impersonates user (in
// system:authenticated), for the CLI; it is removed after the spec.
func kubeconfigAs(user string) string {
	GinkgoHelper()
	path, err := testenv.KubeconfigAs(hubCluster.Kubeconfig, GinkgoT().TempDir(), user)
	Expect(err).NotTo(HaveOccurred())
	return path
}

// corralClusterSet runs `corral clusterset ARGS…` with kubeconfig, as a
// user would, and returns what it printed.
func corralClusterSet(ctx context.Context, kubeconfig string, args ...string) (string, error) {
	return testenv.RunCommand(ctx, registrationcli.NewCmdClusterSet, append(args, "--kubeconfig", kubeconfig)...)
}
