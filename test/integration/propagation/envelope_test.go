package propagation_test

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	propselector "github.com/corral-dev/corral/propagation/hub/selector"
)

// Manifests an envelope carries in the specs.
const (
	envelopedApp = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: "nginx:1.27"}]}
---
# the Service of it
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {ports: [{port: 80}]}
`
	envelopedRole = "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: reader}\nrules: []\n"
)

var _ = Describe("envelopes", Ordered, func() {
	BeforeAll(startHubHalf)

	It("delivers an envelope's objects instead of it, and keeps the last good revision through each bad value", func(ctx context.Context) {
		ns := freshNamespace(ctx)
		api := webDeployment(ns)
		api.Name = "api"
		Expect(c.Create(ctx, api)).To(Succeed())
		good := map[string]string{"app.yaml": envelopedApp, "rbac.yaml": envelopedRole}
		hooks := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "hooks", Labels: map[string]string{v1alpha1.LabelEnvelope: "true"}}, Data: good}
		Expect(c.Create(ctx, hooks)).To(Succeed())
		Expect(c.Create(ctx, newPropagation(ns, "web", nil,
			v1alpha1.ResourceSelector{Version: "v1", Kind: "ConfigMap", Name: "hooks"},
			v1alpha1.ResourceSelector{Group: "apps", Version: "v1", Kind: "Deployment", Name: "api"}))).To(Succeed())

		By("revision 1: the envelope's objects, in the Propagation's namespace and in order with the hub's, not the ConfigMap")
		objs := eventuallyRevision(ctx, ns, "web", 1)
		Expect(kindsAndNames(objs)).To(Equal([]string{"Namespace " + ns, "Role reader", "Service web", "Deployment api", "Deployment web"}))
		expectPropagationLabels(objs, "1")
		for _, m := range objs[1:] {
			obj := decode(m)
			Expect(obj.GetNamespace()).To(Equal(ns))
			if obj.GetName() == "api" {
				Expect(obj.GetAnnotations()).NotTo(HaveKey(v1alpha1.AnnotationEnvelope))
			} else {
				Expect(obj.GetAnnotations()).To(HaveKeyWithValue(v1alpha1.AnnotationEnvelope, ns+"/hooks"))
			}
		}

		where := func(key string) string { return fmt.Sprintf("envelope ConfigMap %s/hooks, key %q", ns, key) }
		for _, bad := range []struct{ name, value, reason, message string }{
			{"a value that does not decode", "kind: [Deployment\n", v1alpha1.ReasonUndecodable,
				where("bad.yaml") + ": document 1: yaml: line 1: did not find expected ',' or ']'"},
			{"an object without a kind", "apiVersion: v1\nmetadata: {name: x}\n", v1alpha1.ReasonUndecodable,
				where("bad.yaml") + ": document 1: the object has no kind"},
			{"an object without a name, second in its value", envelopedRole + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {generateName: x-}\n", v1alpha1.ReasonUndecodable,
				where("bad.yaml") + ": document 2: the object has no metadata.name"},
			{"a cluster-scoped object", "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: admin2}\n", propselector.ReasonWrongScope,
				where("bad.yaml") + ": ClusterRole admin2 is cluster-scoped; a Propagation's envelope carries objects of its namespace only (use a ClusterPropagation)"},
			{"another namespace's object", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: kube-system}\n", propselector.ReasonWrongScope,
				where("bad.yaml") + ": ConfigMap kube-system/x is of another namespace; a Propagation's envelope carries objects of its namespace (" + ns + ") only"},
			{"a kind the hub does not serve", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n", v1alpha1.ReasonUnknownKind,
				where("bad.yaml") + ": the hub serves no Widget.v1.example.com, so cannot tell it is namespaced; a Propagation's envelope carries objects of its namespace only"},
			{"an object also selected on the hub", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api}\n", propselector.ReasonDuplicate,
				"Deployment " + ns + "/api is selected on the hub and is in " + where("bad.yaml") + "; deliver each object once"},
		} {
			By(bad.name + ": Selected False in one line, revision 1 kept")
			setEnvelope(ctx, hooks, map[string]string{"app.yaml": envelopedApp, "rbac.yaml": envelopedRole, "bad.yaml": bad.value})
			expectBlocked(ctx, ns, "web", bad.reason, bad.message)
		}

		By("a good value again, edited: revision 2")
		setEnvelope(ctx, hooks, map[string]string{"app.yaml": envelopedApp})
		objs = eventuallyRevision(ctx, ns, "web", 2)
		Expect(kindsAndNames(objs)).To(Equal([]string{"Namespace " + ns, "Service web", "Deployment api", "Deployment web"}))
		expectPropagationLabels(objs, "2")
		Eventually(selectedCondition).WithContext(ctx).WithArguments(ns, "web").WithTimeout(eventually).
			Should(HaveField("Status", metav1.ConditionTrue))
	})

	It("lets a ClusterPropagation's envelope, in a namespace it brings, carry cluster-scoped objects", func(ctx context.Context) {
		ns := freshNamespace(ctx)
		Expect(c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "settings"}})).To(Succeed())
		role := fmt.Sprintf("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: %s-reader}\nrules: []\n", ns)
		Expect(c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "hooks", Labels: map[string]string{v1alpha1.LabelEnvelope: "true"}},
			Data: map[string]string{"role.yaml": role}})).To(Succeed())
		name := createClusterPropagation(ctx, v1alpha1.ClusterResourceSelector{ResourceSelector: v1alpha1.ResourceSelector{Version: "v1", Kind: "Namespace", Name: ns}})
		objs := eventuallyClusterRevision(ctx, name, 1)
		Expect(kindsAndNames(objs)).To(Equal([]string{"Namespace " + ns, "ConfigMap settings", "ClusterRole " + ns + "-reader"}))
		Expect(decode(objs[2]).GetAnnotations()).To(HaveKeyWithValue(v1alpha1.AnnotationEnvelope, ns+"/hooks"))
		expectRevisionLabel(objs, "1")
	})
})

// setEnvelope replaces the envelope's data.
func setEnvelope(ctx context.Context, envelope *corev1.ConfigMap, data map[string]string) {
	GinkgoHelper()
	Eventually(func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(envelope), envelope); err != nil {
			return err
		}
		envelope.Data = data
		return c.Update(ctx, envelope)
	}).WithContext(ctx).WithTimeout(eventually).Should(Succeed())
}
