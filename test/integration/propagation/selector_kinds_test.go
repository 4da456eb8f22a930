package propagation_test

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/testenv"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/distribute"
)

var _ = Describe("the selector's kinds", Ordered, func() {
	BeforeAll(startHubHalf)

	It("selects by name, by label and every object of a kind, with the namespace first and the revision label on the others", func(ctx context.Context) {
		ns := freshNamespace(ctx)
		labelNamespace(ctx, ns, "team", "a")
		Expect(c.Create(ctx, webDeployment(ns))).To(Succeed())
		for _, cm := range []*corev1.ConfigMap{
			{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-config", Labels: map[string]string{"app": "web"}}},
			{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "db-config", Labels: map[string]string{"app": "db"}}},
		} {
			Expect(c.Create(ctx, cm)).To(Succeed())
		}
		for _, name := range []string{"b", "a"} {
			Expect(c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, StringData: map[string]string{"k": name}})).To(Succeed())
		}
		Expect(c.Create(ctx, newPropagation(ns, "by-name", nil, v1alpha1.ResourceSelector{Group: "apps", Version: "v1", Kind: "Deployment", Name: "web"}))).To(Succeed())
		Expect(c.Create(ctx, newPropagation(ns, "by-label", nil, v1alpha1.ResourceSelector{Version: "v1", Kind: "ConfigMap",
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}))).To(Succeed())
		Expect(c.Create(ctx, newPropagation(ns, "every", nil, v1alpha1.ResourceSelector{Version: "v1", Kind: "Secret"}))).To(Succeed())

		want := map[string][]string{
			"by-name":  {"Namespace " + ns, "Deployment web"},
			"by-label": {"Namespace " + ns, "ConfigMap web-config"},
			"every":    {"Namespace " + ns, "Secret a", "Secret b"},
		}
		for name, objects := range want {
			By("revision 1 of " + name)
			objs := eventuallyRevision(ctx, ns, name, 1)
			Expect(kindsAndNames(objs)).To(Equal(objects))
			expectPropagationLabels(objs, "1")
			shell := decode(objs[0])
			Expect(shell.Object).NotTo(HaveKey("spec"))
			Expect(shell.Object).NotTo(HaveKey("status"))
			Expect(shell.GetLabels()).To(HaveKeyWithValue("team", "a"))
		}

		By("labelling the namespace: each Propagation brings it again, in revision 2")
		labelNamespace(ctx, ns, "tier", "gold")
		for name := range want {
			objs := eventuallyRevision(ctx, ns, name, 2)
			expectPropagationLabels(objs, "2")
			Expect(decode(objs[0]).GetLabels()).To(HaveKeyWithValue("tier", "gold"))
		}
	})

	It("delivers a pinned revision's objects labelled with its number", func(ctx context.Context) {
		ns := freshNamespace(ctx)
		cluster := clusterNamespace(ctx)
		decide(ctx, ns, "all", cluster)
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}, Data: map[string]string{"color": "blue"}}
		Expect(c.Create(ctx, cm)).To(Succeed())
		p := newPropagation(ns, "web", nil, v1alpha1.ResourceSelector{Version: "v1", Kind: "ConfigMap", Name: "web"})
		Expect(c.Create(ctx, p)).To(Succeed())
		Eventually(deliveredLabels).WithContext(ctx).WithArguments(cluster, ns).WithTimeout(eventually).
			Should(Equal([]string{"Namespace " + ns + " ", "ConfigMap web 1"}))

		By("an edit: revision 2 everywhere")
		cm.Data["color"] = "green"
		Expect(c.Update(ctx, cm)).To(Succeed())
		Eventually(deliveredLabels).WithContext(ctx).WithArguments(cluster, ns).WithTimeout(eventually).
			Should(Equal([]string{"Namespace " + ns + " ", "ConfigMap web 2"}))

		By("pinning revision 1: its objects, labelled 1, again")
		updatePropagation(ctx, p, func(p *v1alpha1.Propagation) { p.Spec.Revision = ptr.To[int64](1) })
		Eventually(deliveredLabels).WithContext(ctx).WithArguments(cluster, ns).WithTimeout(eventually).
			Should(Equal([]string{"Namespace " + ns + " ", "ConfigMap web 1"}))
	})

	It("delivers a CRD before its custom resources, through a ClusterPropagation", func(ctx context.Context) {
		group := testenv.UniqueName("gadgets") + ".example.com"
		crd := object(fmt.Sprintf(`{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: {name: gadgets.%s},
			spec: {group: %s, scope: Cluster, names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList},
			versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}]}}`, group, group))
		Expect(c.Create(ctx, crd)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(c.Delete(ctx, crd)).To(Succeed()) })
		Eventually(func(g Gomega) {
			for _, name := range []string{"b", "a"} {
				g.Expect(client.IgnoreAlreadyExists(c.Create(ctx, object(fmt.Sprintf(`{apiVersion: %s/v1, kind: Gadget, metadata: {name: %s}, size: 3}`, group, name))))).To(Succeed())
			}
		}).WithContext(ctx).WithTimeout(eventually).Should(Succeed(), "the CRD is served")

		// The custom resources' selector comes first: the order is the
		// revision's, not the spec's.
		name := createClusterPropagation(ctx,
			v1alpha1.ClusterResourceSelector{ResourceSelector: v1alpha1.ResourceSelector{Group: group, Version: "v1", Kind: "Gadget"}},
			v1alpha1.ClusterResourceSelector{ResourceSelector: v1alpha1.ResourceSelector{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition", Name: "gadgets." + group}})
		objs := eventuallyClusterRevision(ctx, name, 1)
		Expect(kindsAndNames(objs)).To(Equal([]string{"CustomResourceDefinition gadgets." + group, "Gadget a", "Gadget b"}))
		expectRevisionLabel(objs, "1")
		Expect(decode(objs[0]).Object).NotTo(HaveKey("status"))
	})

	It("selects cluster-scoped objects by label and by name through a ClusterPropagation", func(ctx context.Context) {
		team := testenv.UniqueName("team")
		for _, name := range []string{team + "-b", team + "-a", team + "-other"} {
			role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"team": team}}}
			if name == team+"-other" {
				role.Labels = nil
			}
			Expect(c.Create(ctx, role)).To(Succeed())
			DeferCleanup(func(ctx context.Context) { Expect(c.Delete(ctx, role)).To(Succeed()) })
		}
		pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: team + "-high"}, Value: 1000}
		Expect(c.Create(ctx, pc)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(c.Delete(ctx, pc)).To(Succeed()) })

		name := createClusterPropagation(ctx,
			v1alpha1.ClusterResourceSelector{ResourceSelector: v1alpha1.ResourceSelector{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole",
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": team}}}},
			v1alpha1.ClusterResourceSelector{ResourceSelector: v1alpha1.ResourceSelector{Group: "scheduling.k8s.io", Version: "v1", Kind: "PriorityClass", Name: pc.Name}})
		objs := eventuallyClusterRevision(ctx, name, 1)
		Expect(kindsAndNames(objs)).To(Equal([]string{"PriorityClass " + pc.Name, "ClusterRole " + team + "-a", "ClusterRole " + team + "-b"}))
		expectRevisionLabel(objs, "1")
	})

	It("keeps the last revision while a selector names a kind the hub does not serve, or matches nothing", func(ctx context.Context) {
		ns := freshNamespace(ctx)
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web", Labels: map[string]string{"app": "web"}}}
		Expect(c.Create(ctx, cm)).To(Succeed())
		byLabel := v1alpha1.ResourceSelector{Version: "v1", Kind: "ConfigMap", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}
		p := newPropagation(ns, "web", nil, byLabel)
		Expect(c.Create(ctx, p)).To(Succeed())
		eventuallyRevision(ctx, ns, "web", 1)

		By("a selector of a kind the hub does not serve")
		updatePropagation(ctx, p, func(p *v1alpha1.Propagation) {
			p.Spec.ResourceSelectors = append(p.Spec.ResourceSelectors, v1alpha1.ResourceSelector{Group: "nowhere.example.com", Version: "v1", Kind: "Widget"})
		})
		expectBlocked(ctx, ns, "web", v1alpha1.ReasonUnknownKind, "selector 2: the hub serves no Widget.v1.nowhere.example.com")

		By("the selector taken out: Selected again, revision 1 still current")
		updatePropagation(ctx, p, func(p *v1alpha1.Propagation) { p.Spec.ResourceSelectors = []v1alpha1.ResourceSelector{byLabel} })
		Eventually(selectedCondition).WithContext(ctx).WithArguments(ns, "web").WithTimeout(eventually).Should(And(
			HaveField("Status", metav1.ConditionTrue), HaveField("ObservedGeneration", p.Generation)))
		Expect(revisionNumbers(ctx, ns, "web")).To(Equal([]int64{1}))

		By("the ConfigMap unlabelled: the selector matches nothing")
		cm.Labels = nil
		Expect(c.Update(ctx, cm)).To(Succeed())
		expectBlocked(ctx, ns, "web", v1alpha1.ReasonNothingSelected, "selector 1 (ConfigMap.v1 app=web) selects nothing that may be delivered")
	})
})

// updatePropagation applies edit to the Propagation p and updates it,
// again on a conflict with the controllers' writes.
func updatePropagation(ctx context.Context, p *v1alpha1.Propagation, edit func(*v1alpha1.Propagation)) {
	GinkgoHelper()
	Eventually(func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(p), p); err != nil {
			return err
		}
		edit(p)
		return c.Update(ctx, p)
	}).WithContext(ctx).WithTimeout(eventually).Should(Succeed())
}

// labelNamespace sets a label on the namespace ns.
func labelNamespace(ctx context.Context, ns, key, value string) {
	GinkgoHelper()
	n := &corev1.Namespace{}
	Expect(c.Get(ctx, client.ObjectKey{Name: ns}, n)).To(Succeed())
	if n.Labels == nil {
		n.Labels = map[string]string{}
	}
	n.Labels[key] = value
	Expect(c.Update(ctx, n)).To(Succeed())
}

// eventuallyRevision waits for revision n of the Propagation ns/name and
// returns its objects.
func eventuallyRevision(ctx context.Context, ns, name string, n int64) []workv1.Manifest {
	GinkgoHelper()
	rev := &v1alpha1.PropagationRevision{}
	Eventually(func() error {
		return c.Get(ctx, client.ObjectKey{Namespace: ns, Name: fmt.Sprintf("%s-%d", name, n)}, rev)
	}).WithContext(ctx).WithTimeout(eventually).Should(Succeed())
	return rev.Spec.Objects
}

// eventuallyClusterRevision waits for revision n of the
// ClusterPropagation name and returns its objects.
func eventuallyClusterRevision(ctx context.Context, name string, n int64) []workv1.Manifest {
	GinkgoHelper()
	rev := &v1alpha1.ClusterPropagationRevision{}
	Eventually(func() error {
		return c.Get(ctx, client.ObjectKey{Name: fmt.Sprintf("%s-%d", name, n)}, rev)
	}).WithContext(ctx).WithTimeout(eventually).Should(Succeed())
	return rev.Spec.Objects
}

// createClusterPropagation creates a ClusterPropagation of the selectors,
// deleted when the spec ends, and returns its name.
func createClusterPropagation(ctx context.Context, sels ...v1alpha1.ClusterResourceSelector) string {
	GinkgoHelper()
	cp := &v1alpha1.ClusterPropagation{
		ObjectMeta: metav1.ObjectMeta{Name: testenv.UniqueName("cprop")},
		Spec: v1alpha1.ClusterPropagationSpec{
			ResourceSelectors: sels,
			PlacementRefs:     []v1alpha1.PlacementReference{{Namespace: "default", LocalPlacementReference: v1alpha1.LocalPlacementReference{Name: "all"}}},
		},
	}
	Expect(c.Create(ctx, cp)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { Expect(client.IgnoreNotFound(c.Delete(ctx, cp))).To(Succeed()) })
	return cp.Name
}

// expectBlocked waits for the Propagation's Selected condition to be
// False with reason and message, then checks that revision 1 is still
// its only and current one.
func expectBlocked(ctx context.Context, ns, name, reason, message string) {
	GinkgoHelper()
	Eventually(selectedCondition).WithContext(ctx).WithArguments(ns, name).WithTimeout(eventually).Should(And(
		HaveField("Status", metav1.ConditionFalse), HaveField("Reason", reason), HaveField("Message", message)))
	Expect(revisionNumbers(ctx, ns, name)).To(Equal([]int64{1}))
	// currentRevision may trail: when the selector's first status write
	// conflicts, its next reconcile can run before its cache holds the
	// revision it just created; the retry writes it.
	Eventually(func(g Gomega) {
		p := &v1alpha1.Propagation{}
		g.Expect(c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, p)).To(Succeed())
		g.Expect(p.Status.CurrentRevision).To(BeEquivalentTo(1))
	}).WithTimeout(eventually).Should(Succeed())
}

// decode is a manifest as an object.
func decode(m workv1.Manifest) *unstructured.Unstructured {
	GinkgoHelper()
	obj := &unstructured.Unstructured{}
	Expect(obj.UnmarshalJSON(m.Raw)).To(Succeed())
	return obj
}

// expectRevisionLabel checks that every object carries the revision
// label n.
func expectRevisionLabel(objs []workv1.Manifest, n string) {
	GinkgoHelper()
	for _, m := range objs {
		obj := decode(m)
		Expect(obj.GetLabels()).To(HaveKeyWithValue(v1alpha1.LabelRevision, n), "%s %s", obj.GetKind(), obj.GetName())
	}
}

// expectPropagationLabels checks a Propagation's revision objects: its
// Namespace first, without the revision label (the namespace's
// Propagations share it on a cluster), then the others, labelled n.
func expectPropagationLabels(objs []workv1.Manifest, n string) {
	GinkgoHelper()
	Expect(objs).NotTo(BeEmpty())
	first := decode(objs[0])
	Expect(first.GetKind()).To(Equal("Namespace"))
	Expect(first.GetLabels()).NotTo(HaveKey(v1alpha1.LabelRevision))
	expectRevisionLabel(objs[1:], n)
}

// deliveredLabels are "Kind name revision-label" of the manifests of the work
// of Propagation ns/web on cluster, in order.
func deliveredLabels(ctx context.Context, cluster, ns string) []string {
	GinkgoHelper()
	w := &workv1.ManifestWork{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: cluster, Name: distribute.WorkName(ns, "web", 0)}, w); err != nil {
		return nil
	}
	var out []string
	for _, m := range w.Spec.Workload.Manifests {
		obj := decode(m)
		out = append(out, obj.GetKind()+" "+obj.GetName()+" "+obj.GetLabels()[v1alpha1.LabelRevision])
	}
	return out
}
