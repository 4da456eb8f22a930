package install_test

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/deploy/charts"
	"github.com/corral-dev/corral/install"
	"github.com/corral-dev/corral/internal/testenv"
	regagent "github.com/corral-dev/corral/registration/agent"
	"github.com/corral-dev/corral/registration/bootstrap"
)

const (
	// version is the corral version the charts are rendered for.
	version = "v0.0.0-test"
	// clusterName is the managed cluster's name on the hub.
	clusterName = "lp1"
	// workRole is the suite's own ClusterRole, aggregated into the
	// agent's work execution role (the chart's extension point): what the
	// suite's ManifestWorks apply, ConfigMaps, and nothing else.
	workRole = "lp-work-configmaps"
)

// The ServiceAccounts' users, as the API servers name them in a refusal.
var (
	hubUser   = serviceAccountUser(charts.HubNamespace, charts.HubDeployment)
	agentUser = serviceAccountUser(charts.AgentNamespace, charts.AgentDeployment)
)

func serviceAccountUser(namespace, name string) string {
	return fmt.Sprintf("system:serviceaccount:%s:%s", namespace, name)
}

var (
	// bootstrapKubeconfig is what `corral join` puts in the agent chart:
	// the hub's address and CA and a real bootstrap token.
	bootstrapKubeconfig []byte
	// hubObjects and agentObjects are the rendered objects applied.
	hubObjects, agentObjects []*unstructured.Unstructured
	// hubSA and agentSA reach the hub and the managed cluster as the
	// ServiceAccounts, with a token each and nothing else.
	hubSA, agentSA *rest.Config
	// stopHub and stopAgent stop the in-process hub and agent.
	stopHub, stopAgent func(time.Duration) error
	// logsFrom is where the hub's and agent's lines start.
	logsFrom int
)

// The specs are one story, in order: install, run on the ServiceAccounts,
// use, check nothing was refused, check what is refused, delete.
var _ = Describe("corral installed from its charts", Ordered, func() {
	AfterAll(stopHubAndAgent)

	It("renders objects the API servers accept: the hub's with its Deployment, the agent's with a real bootstrap token", applyCharts)
	It("changes nothing when the same objects are applied again", applyAgainChangesNothing)
	It("binds admin to the agent by default, so works may touch any Secret; narrowing the values takes it away", narrowWorkExecution)
	It("runs the hub on corral-hub's token alone, leader-elected in its release namespace", runHub)
	It("runs the agent on corral-agent's token alone, joining with the bootstrap kubeconfig the chart keeps", runAgent)
	It("makes the built-in addons Available, with claims, scores, a ClusterProfile and health", enableAddons)
	It("applies a ManifestWork and reports it back", applyManifestWork)
	It("places the cluster and fans a ManifestWorkReplicaSet with an executor out to it", fanOut)
	It("logged no RBAC refusal, and reported none in any status", noRefusals)
	It("refuses corral-hub what its roles leave out", hubRefusals)
	It("refuses corral-agent what its roles leave out", agentRefusals)
	It("cleans up a deleted cluster, and the agent asks to join again", deleteCluster)
})

// applyCharts applies what `corral init` (with its Deployment) and
// `corral join` render to the hub and the managed cluster: every object
// must be one the API server takes, defaulting and admission included.
func applyCharts(ctx context.Context) {
	var err error
	hubObjects, err = install.Hub{Version: version, Deployment: true}.Objects()
	Expect(err).NotTo(HaveOccurred())
	Expect(install.Apply(ctx, installClient(hubCluster.Config), hubObjects, false, GinkgoWriter)).To(Succeed())

	token, err := bootstrap.Token(ctx, hubKube, 600)
	Expect(err).NotTo(HaveOccurred())
	bootstrapKubeconfig, err = regagent.BootstrapKubeconfig(hubCluster.Server, caData(hubCluster.Config), token)
	Expect(err).NotTo(HaveOccurred())
	agentObjects, err = agentInstall().Objects()
	Expect(err).NotTo(HaveOccurred())
	Expect(install.Apply(ctx, installClient(managedCluster.Config), agentObjects, false, GinkgoWriter)).To(Succeed())
}

// agentInstall is what `corral join` installs for the cluster.
func agentInstall() install.Agent {
	return install.Agent{Version: version, ClusterName: clusterName, BootstrapKubeconfig: bootstrapKubeconfig}
}

// applyAgainChangesNothing applies both sets again: no object's
// resourceVersion moves (server-side apply of the same fields by the same
// manager is a no-op), so `corral init` and `corral join` may be rerun.
func applyAgainChangesNothing(ctx context.Context) {
	for _, set := range []struct {
		cfg  *rest.Config
		objs []*unstructured.Unstructured
	}{{hubCluster.Config, hubObjects}, {managedCluster.Config, agentObjects}} {
		c := installClient(set.cfg)
		before := resourceVersions(ctx, c, set.objs)
		Expect(install.Apply(ctx, c, set.objs, false, nil)).To(Succeed())
		Expect(resourceVersions(ctx, c, set.objs)).To(Equal(before))
	}
}

// resourceVersions are the objects' resourceVersions, by kind/namespace/name.
func resourceVersions(ctx context.Context, c client.Client, objs []*unstructured.Unstructured) map[string]string {
	GinkgoHelper()
	out := map[string]string{}
	for _, o := range objs {
		live := &unstructured.Unstructured{}
		live.SetGroupVersionKind(o.GroupVersionKind())
		Expect(c.Get(ctx, client.ObjectKeyFromObject(o), live)).To(Succeed())
		out[install.Describe(o)] = live.GetResourceVersion()
	}
	return out
}

// narrowWorkExecution shows what the agent chart's default work execution
// (admin, bound cluster-wide, as OCM's klusterlet does) allows, then
// upgrades the agent with work.clusterRoles=[] and
// work.clusterScoped=false, as a user would with helm upgrade, and
// aggregates the suite's ConfigMap role instead. The rest of the suite
// runs the agent so: with admin bound, a rule missing from the agent's
// own roles would go unseen (admin covers Secrets, Events, ConfigMaps in
// every namespace).
func narrowWorkExecution(ctx context.Context) {
	readSecret := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}}
	Expect(testenv.Granted(ctx, managedAdmin, agentUser, "kube-system", readSecret)).To(BeTrue(),
		"the default values bind admin, which reads Secrets in every namespace")

	narrowed, err := charts.Agent.Render(charts.Release{Name: string(charts.Agent), Namespace: charts.AgentNamespace, Version: version,
		Values: map[string]any{
			"clusterName": clusterName, "bootstrapHubKubeconfig": string(bootstrapKubeconfig),
			"work": map[string]any{"clusterRoles": []any{}, "clusterScoped": false},
		}})
	Expect(err).NotTo(HaveOccurred())
	c := installClient(managedCluster.Config)
	Expect(install.Apply(ctx, c, narrowed, false, GinkgoWriter)).To(Succeed())
	Expect(install.Delete(ctx, c, leftOut(agentObjects, narrowed), GinkgoWriter)).To(Succeed())
	Expect(managedAdmin.Create(ctx, &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: workRole, Labels: map[string]string{"corral.dev/aggregate-to-work": "true"}},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}}},
	})).To(Succeed())

	writeConfigMaps := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"create", "list", "watch"}}
	Eventually(func(g Gomega) {
		g.Expect(testenv.Granted(ctx, managedAdmin, agentUser, "kube-system", readSecret)).To(BeFalse())
		g.Expect(testenv.Granted(ctx, managedAdmin, agentUser, "", writeConfigMaps)).To(BeTrue(), "the aggregated role")
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}

// leftOut are the objects of old that new no longer has: what helm
// upgrade deletes.
func leftOut(old, new []*unstructured.Unstructured) []*unstructured.Unstructured {
	kept := map[string]bool{}
	for _, o := range new {
		kept[install.Describe(o)] = true
	}
	var out []*unstructured.Unstructured
	for _, o := range old {
		if !kept[install.Describe(o)] && o.GetKind() != "Namespace" {
			out = append(out, o)
		}
	}
	return out
}

// installClient is install's client of the cluster at cfg.
func installClient(cfg *rest.Config) client.Client {
	GinkgoHelper()
	c, err := install.NewClient(cfg)
	Expect(err).NotTo(HaveOccurred())
	return c
}
