package workhub_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/testenv"
	"github.com/corral-dev/corral/internal/testing/builder"
	workcli "github.com/corral-dev/corral/work/cli"
)

// corralWork runs `corral work ARGS --kubeconfig <hub>` and returns what
// it printed.
func corralWork(ctx context.Context, args ...string) (string, error) {
	return corralWorkWith(ctx, hubCluster.Kubeconfig, args...)
}

// corralWorkWith is corralWork with another kubeconfig of the hub.
func corralWorkWith(ctx context.Context, kubeconfig string, args ...string) (string, error) {
	return testenv.RunCommand(ctx, workcli.NewCmdWork, append(args, "--kubeconfig", kubeconfig)...)
}

// placedOnOneCluster makes a namespace prefix-… with a Placement "place"
// that selects one accepted cluster, and a file with a ConfigMap "web" to
// deliver; it returns the namespace, the cluster and the file.
func placedOnOneCluster(ctx context.Context, prefix string) (string, []string, string) {
	GinkgoHelper()
	ns := newNamespace(ctx, prefix)
	cls := clusters(ctx, 1)
	managedCluster(ctx, cls[0], true)
	createPlacement(ctx, ns, "place")
	decide(ctx, ns, "place", 0, "", cls[0])
	file := filepath.Join(GinkgoT().TempDir(), "web.yaml")
	Expect(os.WriteFile(file, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web, namespace: default}\n"), 0o600)).To(Succeed())
	return ns, cls, file
}

// managedCluster creates a ManagedCluster whose namespace exists, accepted
// by the hub (as the registration controllers report it) or not.
func managedCluster(ctx context.Context, name string, accepted bool) {
	GinkgoHelper()
	b := builder.Cluster(name)
	if accepted {
		b.Accepted()
	}
	mc := b.Obj()
	Expect(admin.Create(ctx, mc)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { Expect(client.IgnoreNotFound(admin.Delete(ctx, mc))).To(Succeed()) })
	if accepted {
		meta.SetStatusCondition(&mc.Status.Conditions, metav1.Condition{Type: clusterv1.ManagedClusterConditionHubAccepted, Status: metav1.ConditionTrue, Reason: "HubClusterAdminAccepted"})
		Expect(admin.Status().Update(ctx, mc)).To(Succeed())
	}
}

var _ = Describe("corral work", func() {
	It("creates, shows, applies changes to and deletes works on named clusters, refusing an unaccepted one", func(ctx context.Context) {
		cls := clusters(ctx, 2)
		managedCluster(ctx, cls[0], true)
		managedCluster(ctx, cls[1], false)
		// create refuses a cluster whose work addon is off, and warns of
		// one not Available.
		addon := builder.AddOn(cls[0], "work").Obj()
		Expect(admin.Create(ctx, addon)).To(Succeed())
		// The hub's addon lifecycle writes the addon too: retry on a
		// conflict.
		Eventually(func() error {
			if err := admin.Get(ctx, client.ObjectKeyFromObject(addon), addon); err != nil {
				return err
			}
			meta.SetStatusCondition(&addon.Status.Conditions, metav1.Condition{Type: addonv1alpha1.ManagedClusterAddOnConditionAvailable, Status: metav1.ConditionTrue, Reason: "ManagedClusterAddOnLeaseUpdated"})
			return admin.Status().Update(ctx, addon)
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		file := filepath.Join(GinkgoT().TempDir(), "web.yaml")
		Expect(os.WriteFile(file, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web, namespace: default}\ndata: {a: b}\n"), 0o600)).To(Succeed())

		_, err := corralWork(ctx, "create", "web", "-f", file, "--clusters", cls[0]+","+cls[1])
		Expect(err).To(MatchError(ContainSubstring("cluster " + cls[1] + " is not accepted by the hub yet")))
		Expect(admin.Get(ctx, client.ObjectKey{Namespace: cls[0], Name: "web"}, &workv1.ManifestWork{})).NotTo(Succeed(), "nothing is created")

		out, err := corralWork(ctx, "create", "web", "-f", file, "--clusters", cls[0])
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(Equal("manifestwork web created on cluster " + cls[0] + "\n"))
		agentReports(ctx, cls[0], "web", "done")

		out, err = corralWork(ctx, "get", "web", "--cluster", cls[0])
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(MatchRegexp(`CLUSTER\s+WORK\s+RESOURCE\s+APPLIED\s+AVAILABLE\s+DETAIL\n` + cls[0] + `\s+web\s+\(work\)\s+True\s+True`))

		By("changing its objects in place with apply, which create refuses")
		Expect(os.WriteFile(file, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web, namespace: default}\ndata: {a: changed}\n"), 0o600)).To(Succeed())
		_, err = corralWork(ctx, "create", "web", "-f", file, "--clusters", cls[0])
		Expect(err).To(MatchError(ContainSubstring("change its objects with 'corral work apply web")))
		out, err = corralWork(ctx, "apply", "web", "-f", file, "--clusters", cls[0])
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(Equal("manifestwork web updated on cluster " + cls[0] + "\n"))
		work := &workv1.ManifestWork{}
		Expect(admin.Get(ctx, client.ObjectKey{Namespace: cls[0], Name: "web"}, work)).To(Succeed())
		Expect(work.Spec.Workload.Manifests).To(HaveLen(1))
		Expect(string(work.Spec.Workload.Manifests[0].Raw)).To(ContainSubstring("changed"))

		out, err = corralWork(ctx, "delete", "web", "--clusters", cls[0], "--yes")
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring("manifestwork web on cluster " + cls[0] + ": its agent removes ConfigMap default/web from " + cls[0]))
		Expect(out).To(HaveSuffix("manifestwork web deleted from cluster " + cls[0] + "\n"))
	})

	It("creates a ManifestWorkReplicaSet on a placement, whose works get shows, and get -n the set's summary", func(ctx context.Context) {
		ns, cls, file := placedOnOneCluster(ctx, "cli")

		_, err := corralWork(ctx, "create", "web", "-f", file, "--placement", "missing", "-n", ns)
		Expect(err).To(MatchError(ContainSubstring("no Placement missing in namespace " + ns)))

		out, err := corralWork(ctx, "create", "web", "-f", file, "--placement", "place", "-n", ns)
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring("manifestworkreplicaset web created in namespace " + ns))
		Eventually(func(g Gomega) {
			out, err := corralWork(ctx, "get", "web", "--cluster", cls[0])
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(out).To(ContainSubstring("from ManifestWorkReplicaSet " + ns + "/web"))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		Eventually(func(g Gomega) {
			out, err := corralWork(ctx, "get", "web", "-n", ns)
			g.Expect(err).NotTo(HaveOccurred())
			lines := strings.Split(strings.TrimSpace(out), "\n")
			g.Expect(lines).To(HaveLen(2), out)
			// No agent reports here: the work exists, none applied yet.
			g.Expect(strings.Fields(lines[1])[:8]).To(Equal([]string{ns, "web", "place", "0/1", "1/1", "0", "0", "0"}), out)
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		_, err = corralWork(ctx, "delete", "web", "-n", ns, "--yes")
		Expect(err).NotTo(HaveOccurred())
		expectWorksOn(ctx, &workv1alpha1.ManifestWorkReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}})
	})

	It("serves a team's user, who may use its own namespace only: create on a placement, get -n, delete", func(ctx context.Context) {
		ns, _, file := placedOnOneCluster(ctx, "team")

		user := testenv.UniqueName("team-user")
		rules := []rbacv1.PolicyRule{
			{APIGroups: []string{clusterv1.GroupName}, Resources: []string{"placements"}, Verbs: []string{"get", "list"}},
			{APIGroups: []string{workv1alpha1.GroupName}, Resources: []string{"manifestworkreplicasets"}, Verbs: []string{"get", "list", "create", "delete"}},
		}
		Expect(admin.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "team"}, Rules: rules})).To(Succeed())
		Expect(admin.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "team"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "team"},
			Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}}})).To(Succeed())
		Eventually(func() (bool, error) { return testenv.Granted(ctx, admin, user, ns, rules...) }).
			WithContext(ctx).WithTimeout(timeout).Should(BeTrue(), "the team's Role takes effect")
		kubeconfig, err := testenv.KubeconfigAs(hubCluster.Kubeconfig, GinkgoT().TempDir(), user)
		Expect(err).NotTo(HaveOccurred())

		out, err := corralWorkWith(ctx, kubeconfig, "create", "web", "-f", file, "--placement", "place", "-n", ns)
		Expect(err).NotTo(HaveOccurred(), out)
		Eventually(func(g Gomega) {
			out, err := corralWorkWith(ctx, kubeconfig, "get", "web", "-n", ns)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(out).To(MatchRegexp(`(?m)^%s\s+web\s+place\s+\S+\s+1/1\s`, ns))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		_, err = corralWorkWith(ctx, kubeconfig, "get", "web")
		Expect(err).To(MatchError(ContainSubstring("you may not list ManifestWorks in the clusters' namespaces: a namespace's ManifestWorkReplicaSets show with corral work get -n NAMESPACE")))

		out, err = corralWorkWith(ctx, kubeconfig, "delete", "web", "-n", ns, "--yes")
		Expect(err).NotTo(HaveOccurred(), out)
		Expect(out).To(HaveSuffix("manifestworkreplicaset web deleted from namespace " + ns + ", with its ManifestWorks\n" +
			"ManifestWorks web made with --clusters were not looked for: you may not list ManifestWorks on the clusters\n"))
		expectWorksOn(ctx, &workv1alpha1.ManifestWorkReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}})
	})
})
