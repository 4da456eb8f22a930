package propagation_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/internal/testenv"
	"github.com/corral-dev/corral/propagation"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/registration/bootstrap"
	"github.com/corral-dev/corral/registration/webhook"
)

var _ = Describe("the validating webhook", Ordered, func() {
	BeforeAll(serveWebhooks)

	var ns, user string
	BeforeEach(func(ctx context.Context) {
		ns, user = freshNamespace(ctx), testenv.UniqueName("dev")
		grant(ctx, user, ns, rbacv1.PolicyRule{APIGroups: []string{v1alpha1.GroupName}, Resources: []string{"propagations"}, Verbs: []string{"create", "get", "update"}})
	})

	It("refuses Secrets to a user who may not read them, and admits them once it may", func(ctx context.Context) {
		p := newPropagation(ns, "secrets", nil, v1alpha1.ResourceSelector{Version: "v1", Kind: "Secret"})
		err := as(user).Create(ctx, p.DeepCopy())
		Expect(err).To(MatchError(ContainSubstring(`Propagation ` + ns + `/secrets: user "` + user + `" may not deliver selector 1 (every Secret.v1): it needs get on secrets in namespace ` + ns)))
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "a refusal for permissions is Forbidden: %v", err)

		grant(ctx, user, ns, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "list"}})
		Expect(as(user).Create(ctx, p.DeepCopy())).To(Succeed())
	})

	It("checks a Secret by name as get of that one", func(ctx context.Context) {
		grant(ctx, user, ns, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}, ResourceNames: []string{"db"}})
		Expect(as(user).Create(ctx, newPropagation(ns, "db", nil, v1alpha1.ResourceSelector{Version: "v1", Kind: "Secret", Name: "db"}))).To(Succeed())
		Expect(as(user).Create(ctx, newPropagation(ns, "api", nil, v1alpha1.ResourceSelector{Version: "v1", Kind: "Secret", Name: "api"}))).
			To(MatchError(ContainSubstring(`may not deliver selector 1 (Secret.v1 named "api"): it needs get on secrets named "api" in namespace ` + ns)))
	})

	It("refuses a selector of the wrong scope, saying what to use", func(ctx context.Context) {
		err := c.Create(ctx, newPropagation(ns, "ns", nil, v1alpha1.ResourceSelector{Version: "v1", Kind: "Namespace", Name: ns}))
		Expect(err).To(MatchError(ContainSubstring(`selector 1 (Namespace.v1 named "` + ns + `") selects a cluster-scoped kind, and a Propagation selects objects of its own namespace: select it in a ClusterPropagation`)))
		Expect(apierrors.IsBadRequest(err)).To(BeTrue(), "a wrong scope is bad input: %v", err)

		cp := clusterPropagation(testenv.UniqueName("deploys"), ns, v1alpha1.ClusterResourceSelector{ResourceSelector: v1alpha1.ResourceSelector{Group: "apps", Version: "v1", Kind: "Deployment"}})
		Expect(c.Create(ctx, cp)).To(MatchError(ContainSubstring(`selector 1 (every Deployment.v1.apps) selects a namespaced kind, and a ClusterPropagation selects cluster-scoped objects: select the Namespace with selectionScope NamespaceWithResources, or use a Propagation in that namespace`)))
	})

	It("admits a kind the hub does not serve, checking its guessed resource", func(ctx context.Context) {
		widgets := v1alpha1.ResourceSelector{Group: "example.com", Version: "v1", Kind: "Widget"}
		Expect(as(user).Create(ctx, newPropagation(ns, "widgets", nil, widgets))).
			To(MatchError(ContainSubstring(`it needs get on widgets (API group example.com) in namespace ` + ns)))
		Expect(c.Create(ctx, newPropagation(ns, "widgets", nil, widgets))).To(Succeed())
	})

	It("admits a pin by someone else, and re-checks every selector when a placement is added", func(ctx context.Context) {
		Expect(c.Create(ctx, newPropagation(ns, "secrets", nil, v1alpha1.ResourceSelector{Version: "v1", Kind: "Secret"}))).To(Succeed())
		p := &v1alpha1.Propagation{}
		Expect(c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "secrets"}, p)).To(Succeed())
		p.Spec.Revision = ptr.To[int64](1)
		Expect(as(user).Update(ctx, p)).To(Succeed())

		p.Spec.PlacementRefs = append(p.Spec.PlacementRefs, v1alpha1.LocalPlacementReference{Name: "mine"})
		Expect(as(user).Update(ctx, p)).To(MatchError(ContainSubstring(`may not deliver selector 1 (every Secret.v1): it needs get on secrets`)))
	})

	It("refuses a namespace with its contents to a user who may not read everything in it", func(ctx context.Context) {
		grantCluster(ctx, user,
			rbacv1.PolicyRule{APIGroups: []string{v1alpha1.GroupName}, Resources: []string{"clusterpropagations"}, Verbs: []string{"create"}},
			rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"get"}, ResourceNames: []string{ns}})
		grant(ctx, user, ns, rbacv1.PolicyRule{APIGroups: []string{"cluster.open-cluster-management.io"}, Resources: []string{"placements"}, Verbs: []string{"get"}})
		sel := v1alpha1.ClusterResourceSelector{ResourceSelector: v1alpha1.ResourceSelector{Version: "v1", Kind: "Namespace", Name: ns}}
		Expect(as(user).Create(ctx, clusterPropagation(testenv.UniqueName("shop"), ns, sel))).To(MatchError(ContainSubstring(
			`selector 1 (Namespace.v1 named "` + ns + `") with its contents: it needs get on every resource (API group *, resource *) in namespace ` + ns)))

		sel.SelectionScope = v1alpha1.NamespaceOnly
		cp := clusterPropagation(testenv.UniqueName("shop"), ns, sel)
		Expect(as(user).Create(ctx, cp)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(c.Delete(ctx, cp)).To(Succeed()) })
	})

	It("refuses an override policy wrong on every cluster, in one line naming the policy and the rule", func(ctx context.Context) {
		configMaps := []v1alpha1.ResourceSelector{{Version: "v1", Kind: "ConfigMap"}}
		policy := func(name string, rule v1alpha1.OverrideRule) *v1alpha1.OverridePolicy {
			return &v1alpha1.OverridePolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
				Spec: v1alpha1.OverridePolicySpec{ResourceSelectors: configMaps, Overrides: v1alpha1.Overrides{Rules: []v1alpha1.OverrideRule{rule}}}}
		}
		err := c.Create(ctx, policy("no-value", v1alpha1.OverrideRule{Name: "data",
			JSONPatch: []v1alpha1.JSONPatchOperation{{Op: v1alpha1.JSONPatchAdd, Path: "/data/color"}}}))
		Expect(err).To(MatchError(ContainSubstring(`OverridePolicy ` + ns + `/no-value, rule data: jsonPatch[0] (add /data/color): add and replace take a value, remove none`)))
		Expect(apierrors.IsBadRequest(err)).To(BeTrue(), "a wrong policy is bad input: %v", err)

		Expect(c.Create(ctx, policy("bad-cel", v1alpha1.OverrideRule{SetLabels: map[string]string{"a": "b"},
			ClusterSelector: &clusterv1beta1.ClusterSelector{CelSelector: clusterv1beta1.ClusterCelSelector{CelExpressions: []string{"managedCluster.metadata.name =="}}}}))).
			To(MatchError(ContainSubstring(`OverridePolicy ` + ns + `/bad-cel, rule rule-0: spec.rules[0].clusterSelector.celSelector`)))

		cluster := &v1alpha1.ClusterOverridePolicy{ObjectMeta: metav1.ObjectMeta{Name: testenv.UniqueName("zone")},
			Spec: v1alpha1.ClusterOverridePolicySpec{ResourceSelectors: []v1alpha1.ClusterOverrideResourceSelector{{ResourceSelector: configMaps[0], Namespace: ns}},
				Overrides: v1alpha1.Overrides{Rules: []v1alpha1.OverrideRule{{SetLabels: map[string]string{"zone": "${CLUSTER_ZONE}"}}}}}}
		Expect(c.Create(ctx, cluster)).To(MatchError(ContainSubstring(`ClusterOverridePolicy ` + cluster.Name + `, rule rule-0: setLabels[zone]: unknown variable ${CLUSTER_ZONE}`)))

		By("a right policy is admitted, and an update that breaks it refused")
		good := policy("good", v1alpha1.OverrideRule{SetLabels: map[string]string{"zone": "${CLUSTER_LABEL:zone}"}})
		Expect(c.Create(ctx, good)).To(Succeed())
		good.Spec.Rules[0].SetLabels["zone"] = "${CLUSTER_ZONE}"
		Expect(c.Update(ctx, good)).To(MatchError(ContainSubstring("unknown variable ${CLUSTER_ZONE}")))
	})
})

// serveWebhooks serves the hub's webhooks with the propagation addon's, as
// `corral hub` does (registration/webhook with the addon as a built-in),
// until the container ends, and waits until the API server calls them.
// The suite's other specs run without them: the configurations it
// registers and the addon CRDs' conversion are removed when it stops.
func serveWebhooks(ctx context.Context) {
	Expect(client.IgnoreAlreadyExists(c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: bootstrap.Namespace}}))).To(Succeed())
	DeferCleanup(unregisterWebhooks)

	scheme := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	mgr := newManager(scheme)
	builtins := []addons.Addon{propagation.Addon()}
	Expect(webhook.SetupWithManager(mgr, webhook.Options{Addons: builtins})).To(Succeed())
	stop := testenv.Go(context.Background(), mgr.Start)
	DeferCleanup(func() { Expect(stop(30 * time.Second)).To(Succeed()) })

	probes, err := webhook.AddonWebhooks(cfg, builtins)
	Expect(err).NotTo(HaveOccurred())
	Expect(webhook.WaitServing(ctx, testenv.MustClient(cfg), 2*time.Minute, probes...)).To(Succeed())
}

// unregisterWebhooks removes what the hub's webhook registrar applied.
func unregisterWebhooks(ctx context.Context) {
	managed := client.MatchingLabels{webhook.ManagedByLabel: webhook.ManagedByValue}
	Expect(c.DeleteAllOf(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{}, managed)).To(Succeed())
	Expect(c.DeleteAllOf(ctx, &admissionregistrationv1.MutatingWebhookConfiguration{}, managed)).To(Succeed())
	crds, err := apiextensionsclient.NewForConfig(cfg)
	Expect(err).NotTo(HaveOccurred())
	for _, name := range webhook.ConvertedCRDs {
		crd, err := crds.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter}
		_, err = crds.ApiextensionsV1().CustomResourceDefinitions().Update(ctx, crd, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())
	}
}

// clusterPropagation is a ClusterPropagation of the selectors, to the
// Placement all of namespace placements.
func clusterPropagation(name, placements string, sels ...v1alpha1.ClusterResourceSelector) *v1alpha1.ClusterPropagation {
	return &v1alpha1.ClusterPropagation{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1alpha1.ClusterPropagationSpec{ResourceSelectors: sels, PlacementRefs: []v1alpha1.PlacementReference{
			{Namespace: placements, LocalPlacementReference: v1alpha1.LocalPlacementReference{Name: "all"}}}},
	}
}

// grant gives user the rules in namespace and waits until they take
// effect: a refusal expected next is then the webhook's, not RBAC's.
func grant(ctx context.Context, user, namespace string, rules ...rbacv1.PolicyRule) {
	GinkgoHelper()
	name := testenv.UniqueName("grant")
	Expect(c.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Rules: rules})).To(Succeed())
	Expect(c.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	})).To(Succeed())
	Eventually(func() (bool, error) { return testenv.Granted(ctx, c, user, namespace, rules...) }).
		WithContext(ctx).WithTimeout(eventually).Should(BeTrue(), "the grant to %s takes effect", user)
}

// grantCluster is grant cluster-wide, removed when the spec ends.
func grantCluster(ctx context.Context, user string, rules ...rbacv1.PolicyRule) {
	GinkgoHelper()
	name := testenv.UniqueName("grant")
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	Expect(c.Create(ctx, role)).To(Succeed())
	Expect(c.Create(ctx, binding)).To(Succeed())
	DeferCleanup(func(ctx context.Context) {
		Expect(c.Delete(ctx, binding)).To(Succeed())
		Expect(c.Delete(ctx, role)).To(Succeed())
	})
	Eventually(func() (bool, error) { return testenv.Granted(ctx, c, user, "", rules...) }).
		WithContext(ctx).WithTimeout(eventually).Should(BeTrue(), "the grant to %s takes effect", user)
}

// as is a client of the suite's API server impersonating user.
func as(user string) client.Client {
	GinkgoHelper()
	impersonating := rest.CopyConfig(cfg)
	impersonating.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: []string{"system:authenticated"}}
	uc, err := client.New(impersonating, client.Options{Scheme: c.Scheme()})
	Expect(err).NotTo(HaveOccurred())
	return uc
}
