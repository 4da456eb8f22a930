package propagation_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/testenv"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	propselector "github.com/corral-dev/corral/propagation/hub/selector"
)

// eventually is how long a controller is given to act.
const eventually = 60 * time.Second

var _ = Describe("the selector", Ordered, func() {
	BeforeAll(startHubHalf)

	It("makes revision 1 of objects selected by name and label, a new one on a spec edit, none on a status edit", func(ctx context.Context) {
		ns := freshNamespace(ctx)
		dep := webDeployment(ns)
		Expect(c.Create(ctx, dep)).To(Succeed())
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-config", Labels: map[string]string{"app": "web"}}, Data: map[string]string{"color": "blue"}}
		Expect(c.Create(ctx, cm)).To(Succeed())
		Expect(c.Create(ctx, newPropagation(ns, "web", nil,
			v1alpha1.ResourceSelector{Group: "apps", Version: "v1", Kind: "Deployment", Name: "web"},
			v1alpha1.ResourceSelector{Version: "v1", Kind: "ConfigMap", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
		))).To(Succeed())

		By("revision 1 holding the namespace, the ConfigMap, then the Deployment")
		Eventually(revisionNumbers).WithContext(ctx).WithArguments(ns, "web").WithTimeout(eventually).Should(Equal([]int64{1}))
		rev := &v1alpha1.PropagationRevision{}
		Expect(c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web-1"}, rev)).To(Succeed())
		Expect(kindsAndNames(rev.Spec.Objects)).To(Equal([]string{"Namespace " + ns, "ConfigMap web-config", "Deployment web"}))
		Expect(rev.Labels).To(HaveKeyWithValue(v1alpha1.LabelRevision, "1"))
		Eventually(selectedCondition).WithContext(ctx).WithArguments(ns, "web").WithTimeout(eventually).
			Should(HaveField("Status", metav1.ConditionTrue))

		By("editing the Deployment's spec: revision 2")
		Expect(c.Get(ctx, client.ObjectKeyFromObject(dep), dep)).To(Succeed())
		dep.Spec.Replicas = ptr.To[int32](4)
		Expect(c.Update(ctx, dep)).To(Succeed())
		Eventually(revisionNumbers).WithContext(ctx).WithArguments(ns, "web").WithTimeout(eventually).Should(Equal([]int64{1, 2}))

		By("editing only its status, then the ConfigMap: one more revision, not two")
		// The status edit comes first; had it made a revision, the
		// ConfigMap's edit would make a fourth.
		dep.Status.Replicas, dep.Status.ObservedGeneration = 4, dep.Generation
		Expect(c.Status().Update(ctx, dep)).To(Succeed())
		Expect(c.Get(ctx, client.ObjectKeyFromObject(cm), cm)).To(Succeed())
		cm.Data["color"] = "green"
		Expect(c.Update(ctx, cm)).To(Succeed())
		Eventually(revisionNumbers).WithContext(ctx).WithArguments(ns, "web").WithTimeout(eventually).Should(Equal([]int64{1, 2, 3}))
		Eventually(func(g Gomega) {
			p := &v1alpha1.Propagation{}
			g.Expect(c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, p)).To(Succeed())
			g.Expect(p.Status.CurrentRevision).To(BeEquivalentTo(3))
			g.Expect(p.Status.ObservedGeneration).To(Equal(p.Generation))
		}).WithContext(ctx).WithTimeout(eventually).Should(Succeed())
		Expect(revisionNumbers(ctx, ns, "web")).To(Equal([]int64{1, 2, 3}))
	})

	It("brings a namespace's contents with it, and what comes into it later", func(ctx context.Context) {
		ns := freshNamespace(ctx)
		Expect(c.Create(ctx, webDeployment(ns))).To(Succeed())
		Expect(c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "settings"}})).To(Succeed())
		name := testenv.UniqueName("shop")
		cp := &v1alpha1.ClusterPropagation{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: v1alpha1.ClusterPropagationSpec{
				ResourceSelectors: []v1alpha1.ClusterResourceSelector{{ResourceSelector: v1alpha1.ResourceSelector{Version: "v1", Kind: "Namespace", Name: ns}}},
				PlacementRefs:     []v1alpha1.PlacementReference{{Namespace: ns, LocalPlacementReference: v1alpha1.LocalPlacementReference{Name: "all"}}},
			},
		}
		Expect(c.Create(ctx, cp)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(c.Delete(ctx, cp)).To(Succeed()) })

		rev := &v1alpha1.ClusterPropagationRevision{}
		Eventually(func() error { return c.Get(ctx, client.ObjectKey{Name: name + "-1"}, rev) }).
			WithContext(ctx).WithTimeout(eventually).Should(Succeed())
		Expect(kindsAndNames(rev.Spec.Objects)).To(Equal([]string{"Namespace " + ns, "ConfigMap settings", "Deployment web"}))

		By("a Secret created in the namespace: revision 2")
		Expect(c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "token"}, StringData: map[string]string{"k": "v"}})).To(Succeed())
		Eventually(func() error { return c.Get(ctx, client.ObjectKey{Name: name + "-2"}, rev) }).
			WithContext(ctx).WithTimeout(eventually).Should(Succeed())
		Expect(kindsAndNames(rev.Spec.Objects)).To(Equal([]string{"Namespace " + ns, "Secret token", "ConfigMap settings", "Deployment web"}))
	})

	It("says in one line that the hub serves no such kind or version, writes nothing, and sees the kind come", func(ctx context.Context) {
		ns := freshNamespace(ctx)
		group := testenv.UniqueName("widgets") + ".example.com"
		Expect(c.Create(ctx, newPropagation(ns, "widgets", nil,
			v1alpha1.ResourceSelector{Group: group, Version: "v1", Kind: "Widget", Name: "w"}))).To(Succeed())
		Expect(c.Create(ctx, newPropagation(ns, "web", nil,
			v1alpha1.ResourceSelector{Group: "apps", Version: "v2", Kind: "Deployment", Name: "web"}))).To(Succeed())
		Eventually(selectedCondition).WithContext(ctx).WithArguments(ns, "widgets").WithTimeout(eventually).Should(And(
			HaveField("Status", metav1.ConditionFalse),
			HaveField("Reason", v1alpha1.ReasonUnknownKind),
			HaveField("Message", "selector 1: the hub serves no Widget.v1."+group),
		))
		Eventually(selectedCondition).WithContext(ctx).WithArguments(ns, "web").WithTimeout(eventually).Should(And(
			HaveField("Reason", v1alpha1.ReasonUnknownKind),
			HaveField("Message", "selector 1: the hub serves no Deployment.v2.apps"),
		))
		Expect(revisionNumbers(ctx, ns, "widgets")).To(BeEmpty())

		By("the kind's CRD created: looked at again, it resolves and selects nothing yet")
		crd := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
			"metadata": map[string]any{"name": "widgets." + group},
			"spec": map[string]any{
				"group": group, "scope": "Namespaced",
				"names":    map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
				"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true, "schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}},
			},
		}}
		Expect(c.Create(ctx, crd)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(c.Delete(ctx, crd)).To(Succeed()) })
		Eventually(selectedCondition).WithContext(ctx).WithArguments(ns, "widgets").WithTimeout(propselector.UnknownKindRetry + eventually).
			Should(HaveField("Reason", v1alpha1.ReasonNothingSelected))
		Expect(revisionNumbers(ctx, ns, "widgets")).To(BeEmpty())
	})

	It("prunes the oldest revisions beyond revisionHistoryLimit", func(ctx context.Context) {
		ns := freshNamespace(ctx)
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}, Data: map[string]string{"n": "1"}}
		Expect(c.Create(ctx, cm)).To(Succeed())
		Expect(c.Create(ctx, newPropagation(ns, "web", ptr.To[int32](1),
			v1alpha1.ResourceSelector{Version: "v1", Kind: "ConfigMap", Name: "web"}))).To(Succeed())
		Eventually(revisionNumbers).WithContext(ctx).WithArguments(ns, "web").WithTimeout(eventually).Should(Equal([]int64{1}))
		for n := int64(2); n <= 4; n++ {
			By(fmt.Sprintf("an edit making revision %d", n))
			Expect(c.Get(ctx, client.ObjectKeyFromObject(cm), cm)).To(Succeed())
			cm.Data["n"] = fmt.Sprint(n)
			Expect(c.Update(ctx, cm)).To(Succeed())
			Eventually(revisionNumbers).WithContext(ctx).WithArguments(ns, "web").WithTimeout(eventually).Should(ContainElement(n))
		}
		Eventually(revisionNumbers).WithContext(ctx).WithArguments(ns, "web").WithTimeout(eventually).Should(Equal([]int64{3, 4}))
	})
})

// webDeployment is a one-replica Deployment named web.
func webDeployment(ns string) *appsv1.Deployment {
	labels := map[string]string{"app": "web"}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}},
			},
		},
	}
}

// newPropagation is a Propagation of the selectors, to a Placement "all".
func newPropagation(ns, name string, limit *int32, sels ...v1alpha1.ResourceSelector) *v1alpha1.Propagation {
	return &v1alpha1.Propagation{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.PropagationSpec{
			ResourceSelectors: sels,
			PlacementRefs:     []v1alpha1.LocalPlacementReference{{Name: "all"}},
			PropagationPolicy: v1alpha1.PropagationPolicy{RevisionHistoryLimit: limit},
		},
	}
}

// revisionNumbers lists the numbers of a Propagation's revisions, in order.
func revisionNumbers(ctx context.Context, ns, name string) []int64 {
	GinkgoHelper()
	list := &v1alpha1.PropagationRevisionList{}
	Expect(c.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{v1alpha1.LabelPropagation: name})).To(Succeed())
	out := []int64{}
	for _, r := range list.Items {
		Expect(r.Name).To(Equal(propselector.RevisionName(name, r.Spec.Revision)))
		out = append(out, r.Spec.Revision)
	}
	slices.Sort(out)
	return out
}

// selectedCondition is a Propagation's Selected condition, empty when it
// has none.
func selectedCondition(ctx context.Context, ns, name string) metav1.Condition {
	GinkgoHelper()
	p := &v1alpha1.Propagation{}
	Expect(c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, p)).To(Succeed())
	if cond := meta.FindStatusCondition(p.Status.Conditions, v1alpha1.ConditionSelected); cond != nil {
		return *cond
	}
	return metav1.Condition{}
}

// kindsAndNames names a revision's objects, in their order.
func kindsAndNames(objs []workv1.Manifest) []string {
	GinkgoHelper()
	var out []string
	for _, m := range objs {
		var o struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		Expect(json.Unmarshal(m.Raw, &o)).To(Succeed())
		out = append(out, o.Kind+" "+o.Metadata.Name)
	}
	return out
}
