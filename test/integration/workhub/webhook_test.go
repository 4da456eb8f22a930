package workhub_test

import (
	"context"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/testenv"
	"github.com/corral-dev/corral/internal/testing/builder"
)

var _ = Describe("The work addon's validating webhooks", func() {
	var ns string
	BeforeEach(func(ctx context.Context) { ns = newNamespace(ctx, "webhook") })

	It("refuses a ManifestWork with a manifest that has no name, saying so", func(ctx context.Context) {
		// The CRD's schema already refuses a manifest with no kind or apiVersion.
		err := admin.Create(ctx, builder.Work(ns, "app").Manifests(workv1.Manifest{RawExtension: runtime.RawExtension{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"default"}}`)}}).Obj())
		Expect(err).To(MatchError(ContainSubstring("manifest 0: it has no metadata.name: every manifest needs apiVersion, kind and metadata.name")))
		Expect(admin.Get(ctx, client.ObjectKey{Namespace: ns, Name: "app"}, &workv1.ManifestWork{})).NotTo(Succeed())
	})

	It("refuses a ManifestWork over the size cap, naming the cap", func(ctx context.Context) {
		err := admin.Create(ctx, builder.Work(ns, "app").Manifests(configMap("big", map[string]string{"x": strings.Repeat("x", 600*1024)})).Obj())
		Expect(err).To(MatchError(ContainSubstring("over the 512000 bytes (500 KiB) a work may carry")))
	})

	It("admits a valid ManifestWork", func(ctx context.Context) {
		Expect(admin.Create(ctx, builder.Work(ns, "app").Manifests(configMap("ok", nil)).Obj())).To(Succeed())
	})

	It("admits an executor only for a user allowed to execute as it", func(ctx context.Context) {
		user := testenv.UniqueName("dev")
		grant(ctx, user, ns, rbacv1.PolicyRule{APIGroups: []string{workv1.GroupName}, Resources: []string{"manifestworks"}, Verbs: []string{"create", "get"}})
		w := builder.Work(ns, "app").Manifests(configMap("ok", nil)).Obj()
		w.Spec.Executor = &workv1.ManifestWorkExecutor{Subject: workv1.ManifestWorkExecutorSubject{
			Type: workv1.ExecutorSubjectTypeServiceAccount, ServiceAccount: &workv1.ManifestWorkSubjectServiceAccount{Namespace: "apps", Name: "deployer"}}}
		Expect(as(user).Create(ctx, w.DeepCopy())).To(MatchError(ContainSubstring(
			`may not set executor apps/deployer: that needs verb execute-as on manifestworks named system:serviceaccount:apps:deployer`)))

		grant(ctx, user, ns, rbacv1.PolicyRule{APIGroups: []string{workv1.GroupName}, Resources: []string{"manifestworks"},
			Verbs: []string{"execute-as"}, ResourceNames: []string{"system:serviceaccount:apps:deployer"}})
		Eventually(func() error { return as(user).Create(ctx, w.DeepCopy()) }).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	})

	It("refuses a ManifestWorkReplicaSet with a bad rollout value the CRD lets through", func(ctx context.Context) {
		set := &workv1alpha1.ManifestWorkReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app"},
			Spec: workv1alpha1.ManifestWorkReplicaSetSpec{
				ManifestWorkTemplate: workv1.ManifestWorkSpec{Workload: workv1.ManifestsTemplate{Manifests: []workv1.Manifest{configMap("ok", nil)}}},
				PlacementRefs: []workv1alpha1.LocalPlacementReference{{Name: "p", RolloutStrategy: clusterv1alpha1.RolloutStrategy{
					Type:        clusterv1alpha1.Progressive,
					Progressive: &clusterv1alpha1.RolloutProgressive{RolloutConfig: clusterv1alpha1.RolloutConfig{ProgressDeadline: "5mfoo"}},
				}}},
			}}
		Expect(admin.Create(ctx, set)).To(MatchError(ContainSubstring(`spec.placementRefs[0].rolloutStrategy: progressive.progressDeadline "5mfoo" is not a duration`)))
	})
})

// grant gives user the rules in namespace, through a Role and RoleBinding,
// and waits until they take effect: a refusal expected next is then the
// webhook's, not RBAC's.
func grant(ctx context.Context, user, namespace string, rules ...rbacv1.PolicyRule) {
	GinkgoHelper()
	name := testenv.UniqueName("grant")
	Expect(admin.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Rules: rules})).To(Succeed())
	Expect(admin.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	})).To(Succeed())
	Eventually(func() (bool, error) { return testenv.Granted(ctx, admin, user, namespace, rules...) }).
		WithContext(ctx).WithTimeout(timeout).Should(BeTrue(), "the grant to %s takes effect", user)
}

// as is a client that impersonates user.
func as(user string) client.Client {
	GinkgoHelper()
	cfg := rest.CopyConfig(hubCluster.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: []string{"system:authenticated"}}
	c, err := client.New(cfg, client.Options{Scheme: admin.Scheme()})
	Expect(err).NotTo(HaveOccurred())
	return c
}
