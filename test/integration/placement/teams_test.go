package placement_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/corral-dev/corral/internal/testenv"
	placementcli "github.com/corral-dev/corral/placement/cli"
	workcli "github.com/corral-dev/corral/work/cli"
)

// teamsRBAC is the Role and the ClusterRole docs/teams.md tells a hub
// admin to copy, read from the page itself so that it cannot go stale.
func teamsRBAC() (*rbacv1.Role, *rbacv1.ClusterRole) {
	GinkgoHelper()
	page, err := os.ReadFile("../../../docs/teams.md")
	Expect(err).NotTo(HaveOccurred())
	var role *rbacv1.Role
	var clusterRole *rbacv1.ClusterRole
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllSubmatch(page, -1) {
		var kind metav1.TypeMeta
		Expect(yaml.Unmarshal(m[1], &kind)).To(Succeed())
		switch kind.Kind {
		case "Role":
			role = &rbacv1.Role{}
			Expect(yaml.UnmarshalStrict(m[1], role)).To(Succeed())
		case "ClusterRole":
			clusterRole = &rbacv1.ClusterRole{}
			Expect(yaml.UnmarshalStrict(m[1], clusterRole)).To(Succeed())
		}
	}
	Expect(role).NotTo(BeNil(), "docs/teams.md holds no Role")
	Expect(clusterRole).NotTo(BeNil(), "docs/teams.md holds no ClusterRole")
	return role, clusterRole
}

var _ = Describe("a team's user, with the RBAC of docs/teams.md", func() {
	It("gets and explains the team's placement with the Role alone, and each cluster's reasons with the ClusterRole", func(ctx context.Context) {
		f := newFixture(ctx)
		clusters := f.clusters(ctx, f.set, 2, nil)
		f.bind(ctx, f.set)
		Expect(admin.Create(ctx, f.placement("web", nil))).To(Succeed())
		f.eventuallyDecided(ctx, "web", clusters)

		user := "team-" + f.ns
		role, clusterRole := teamsRBAC()
		By("binding the user to the page's Role only, in the fixture's namespace")
		role.Namespace = f.ns
		Expect(admin.Create(ctx, role)).To(Succeed())
		Expect(admin.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "team"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}})).To(Succeed())
		Eventually(func() (bool, error) { return testenv.Granted(ctx, admin, user, f.ns, role.Rules...) }).
			WithContext(ctx).WithTimeout(timeout).Should(BeTrue(), "the team's Role takes effect")
		kubeconfig, err := testenv.KubeconfigAs(hubCluster.Kubeconfig, GinkgoT().TempDir(), user)
		Expect(err).NotTo(HaveOccurred())

		out, err := testenv.RunCommand(ctx, placementcli.NewCmdExplain, f.ns+"/web", "--kubeconfig", kubeconfig)
		Expect(err).NotTo(HaveOccurred(), out)
		Expect(out).To(ContainSubstring("2 clusters selected by its decisions: " + strings.Join(clusters, ", ")))
		Expect(out).To(ContainSubstring("for each cluster's reasons, ask for get/list on managedclusters and managedclustersets: see docs/teams.md"))

		out, err = testenv.RunCommand(ctx, placementcli.NewCmdGet, "web", "-n", f.ns, "--kubeconfig", kubeconfig)
		Expect(err).NotTo(HaveOccurred(), out)
		Expect(out).To(MatchRegexp(`web\s+2\s+` + regexp.QuoteMeta(strings.Join(clusters, ", ")) + `\s+True AllDecisionsScheduled`))

		By("delivering, listing and deleting the team's work with the Role alone")
		app := filepath.Join(GinkgoT().TempDir(), "app.yaml")
		Expect(os.WriteFile(app, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app, namespace: "+f.ns+"}\n"), 0o600)).To(Succeed())
		out, err = testenv.RunCommand(ctx, workcli.NewCmdCreate, "app", "-f", app, "--placement", "web", "-n", f.ns, "--wait", "--kubeconfig", kubeconfig)
		Expect(err).To(MatchError(ContainSubstring("you may not list them (see docs/teams.md)")), out)
		Expect(err).To(MatchError(HaveSuffix("nothing was created")), out)
		out, err = testenv.RunCommand(ctx, workcli.NewCmdCreate, "app", "-f", app, "--placement", "web", "-n", f.ns, "--kubeconfig", kubeconfig)
		Expect(err).NotTo(HaveOccurred(), out)
		Expect(out).To(ContainSubstring("manifestworkreplicaset app created in namespace " + f.ns))
		out, err = testenv.RunCommand(ctx, workcli.NewCmdGet, "-n", f.ns, "--kubeconfig", kubeconfig)
		Expect(err).NotTo(HaveOccurred(), out)
		Expect(out).To(MatchRegexp(`(?m)^` + f.ns + `\s+app\s`))
		out, err = testenv.RunCommand(ctx, workcli.NewCmdDelete, "app", "-n", f.ns, "--yes", "--kubeconfig", kubeconfig)
		Expect(err).NotTo(HaveOccurred(), out)
		Expect(out).To(ContainSubstring("manifestworkreplicaset app deleted from namespace " + f.ns))

		out, err = testenv.RunCommand(ctx, placementcli.NewCmdCreate, "api", "-n", f.ns, "--clustersets", f.set, "--wait", "--kubeconfig", kubeconfig)
		Expect(err).NotTo(HaveOccurred(), out)
		Expect(out).To(ContainSubstring("note: not checked that the cluster sets exist"))
		Expect(out).To(ContainSubstring("placement " + f.ns + "/api created: selects 2 clusters: " + strings.Join(clusters, ", ")))

		out, err = testenv.RunCommand(ctx, placementcli.NewCmdDelete, "api", "-n", f.ns, "--kubeconfig", kubeconfig)
		Expect(err).To(MatchError(ContainSubstring("pass --yes")), out)
		out, err = testenv.RunCommand(ctx, placementcli.NewCmdDelete, "api", "-n", f.ns, "--yes", "--kubeconfig", kubeconfig)
		Expect(err).NotTo(HaveOccurred(), out)
		Expect(out).To(ContainSubstring("placement " + f.ns + "/api deleted"))

		By("binding the user to the page's read-only ClusterRole too")
		clusterRole.Name += "-" + f.ns
		Expect(admin.Create(ctx, clusterRole)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { _ = admin.Delete(ctx, clusterRole) })
		binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: clusterRole.Name},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: clusterRole.Name},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}}
		Expect(admin.Create(ctx, binding)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { _ = admin.Delete(ctx, binding) })
		Eventually(func() (bool, error) { return testenv.Granted(ctx, admin, user, "", clusterRole.Rules...) }).
			WithContext(ctx).WithTimeout(timeout).Should(BeTrue(), "the team's ClusterRole takes effect")

		out, err = testenv.RunCommand(ctx, placementcli.NewCmdExplain, f.ns+"/web", "--kubeconfig", kubeconfig)
		Expect(err).NotTo(HaveOccurred(), out)
		Expect(out).To(ContainSubstring("Placement " + f.ns + "/web: 2 selected"))
		Expect(out).To(ContainSubstring("selected, group 0"))
		Expect(out).NotTo(ContainSubstring("docs/teams.md"))
	})
})
