package propagation_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/distribute"
)

var _ = Describe("overrides, delivered", Ordered, func() {
	BeforeAll(startHubHalf)

	// deployment is the Deployment ns/web as the propagation's work
	// carries it to cluster, nil while there is none.
	deployment := func(ctx context.Context, cluster, ns string) *unstructured.Unstructured {
		GinkgoHelper()
		w := &workv1.ManifestWork{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: cluster, Name: distribute.WorkName(ns, "web", 0)}, w); err != nil {
			return nil
		}
		for _, m := range w.Spec.Workload.Manifests {
			if obj := decode(m); obj.GetKind() == "Deployment" {
				return obj
			}
		}
		return nil
	}
	field := func(obj *unstructured.Unstructured, path ...string) any {
		v, _, _ := unstructured.NestedFieldNoCopy(obj.Object, path...)
		return v
	}
	container := func(obj *unstructured.Unstructured) map[string]any {
		cs, _, _ := unstructured.NestedSlice(obj.Object, "spec", "template", "spec", "containers")
		return cs[0].(map[string]any)
	}
	clusterStatus := func(ctx context.Context, ns, cluster string) v1alpha1.ClusterStatus {
		GinkgoHelper()
		p := &v1alpha1.Propagation{}
		Expect(c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, p)).To(Succeed())
		for _, cs := range p.Status.Clusters {
			if cs.Cluster == cluster {
				return cs
			}
		}
		return v1alpha1.ClusterStatus{}
	}
	deployments := v1alpha1.ResourceSelector{Group: "apps", Version: "v1", Kind: "Deployment", Name: "web"}

	It("renders each cluster's objects, keeps a cluster a rule fails on, and follows a cluster's labels", func(ctx context.Context) {
		ns := freshNamespace(ctx)
		eu, us := managedCluster(ctx, map[string]string{"region": "eu"}, "id-eu"), managedCluster(ctx, map[string]string{"region": "us"}, "id-us")
		web := webDeployment(ns)
		web.Labels, web.Annotations = map[string]string{"team": "a", "tier": "web"}, map[string]string{"note": "hub only"}
		Expect(c.Create(ctx, web)).To(Succeed())

		By("a ClusterOverridePolicy for every cluster, and an OverridePolicy for those in the eu, using every variable")
		mirror := &v1alpha1.ClusterOverridePolicy{ObjectMeta: metav1.ObjectMeta{Name: ns + "-mirror"},
			Spec: v1alpha1.ClusterOverridePolicySpec{
				ResourceSelectors: []v1alpha1.ClusterOverrideResourceSelector{{ResourceSelector: deployments, Namespace: ns}},
				Overrides: v1alpha1.Overrides{Rules: []v1alpha1.OverrideRule{{Name: "registry",
					Images: []v1alpha1.ImageOverride{{Registry: "mirror.example"}}}}}}}
		Expect(c.Create(ctx, mirror)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(c.Delete(ctx, mirror)).To(Succeed()) })
		inEU := &clusterv1beta1.ClusterSelector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"region": "eu"}}}
		regional := &v1alpha1.OverridePolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "regional"},
			Spec: v1alpha1.OverridePolicySpec{ResourceSelectors: []v1alpha1.ResourceSelector{deployments},
				Overrides: v1alpha1.Overrides{Rules: []v1alpha1.OverrideRule{{
					Name: "eu", ClusterSelector: inEU,
					SetLabels:         map[string]string{"cluster": "${CLUSTER_NAME}", "region": "${CLUSTER_LABEL:region}"},
					RemoveLabels:      []string{"tier"},
					SetAnnotations:    map[string]string{"example.com/id": "${CLUSTER_CLAIM:id.k8s.io}"},
					RemoveAnnotations: []string{"note"},
					Images:            []v1alpha1.ImageOverride{{Container: "web", Tag: "1.27-eu"}},
					Containers:        []v1alpha1.ContainerOverride{{Container: "web", Command: []string{"/web"}, Args: []string{"--region=${CLUSTER_LABEL:region}"}}},
					JSONPatch: []v1alpha1.JSONPatchOperation{{Op: v1alpha1.JSONPatchReplace, Path: "/spec/replicas", Value: &apiextensionsv1.JSON{Raw: []byte("3")}},
						{Op: v1alpha1.JSONPatchAdd, Path: "/spec/template/metadata/annotations", Value: &apiextensionsv1.JSON{Raw: []byte(`{"cluster":"${CLUSTER_NAME}"}`)}}},
				}}}}}
		Expect(c.Create(ctx, regional)).To(Succeed())
		decide(ctx, ns, "all", eu, us)
		Expect(c.Create(ctx, newPropagation(ns, "web", nil, deployments))).To(Succeed())

		By("the eu cluster receives every change, with its own name, label and claim")
		Eventually(func(g Gomega) {
			d := deployment(ctx, eu, ns)
			g.Expect(d).NotTo(BeNil())
			g.Expect(d.GetLabels()).To(And(HaveKeyWithValue("cluster", eu), HaveKeyWithValue("region", "eu"), HaveKeyWithValue("team", "a"), Not(HaveKey("tier"))))
			g.Expect(d.GetAnnotations()).To(And(HaveKeyWithValue("example.com/id", "id-eu"), Not(HaveKey("note"))))
			g.Expect(field(d, "spec", "replicas")).To(BeEquivalentTo(3))
			g.Expect(field(d, "spec", "template", "metadata", "annotations")).To(Equal(map[string]any{"cluster": eu}))
			g.Expect(container(d)).To(And(HaveKeyWithValue("image", "mirror.example/nginx:1.27-eu"),
				HaveKeyWithValue("command", ConsistOf("/web")), HaveKeyWithValue("args", ConsistOf("--region=eu"))))
		}).WithTimeout(eventually).Should(Succeed())
		Eventually(func() []string { return clusterStatus(ctx, ns, eu).Overrides }).WithTimeout(eventually).Should(Equal([]string{
			"ClusterOverridePolicy " + ns + "-mirror, rule registry", "OverridePolicy " + ns + "/regional, rule eu"}))

		By("the us cluster only the registry, and its status says so")
		Eventually(func(g Gomega) {
			d := deployment(ctx, us, ns)
			g.Expect(d).NotTo(BeNil())
			g.Expect(d.GetLabels()).NotTo(HaveKey("cluster"))
			g.Expect(field(d, "spec", "replicas")).To(BeEquivalentTo(1))
			g.Expect(container(d)).To(And(HaveKeyWithValue("image", "mirror.example/nginx:1.27"), Not(HaveKey("args"))))
		}).WithTimeout(eventually).Should(Succeed())
		Expect(clusterStatus(ctx, ns, us).Overrides).To(Equal([]string{"ClusterOverridePolicy " + ns + "-mirror, rule registry"}))

		By("a rule that cannot apply on the us cluster: it keeps revision 1, the eu cluster gets revision 2")
		broken := &v1alpha1.OverridePolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "broken"},
			Spec: v1alpha1.OverridePolicySpec{ResourceSelectors: []v1alpha1.ResourceSelector{deployments},
				Overrides: v1alpha1.Overrides{Rules: []v1alpha1.OverrideRule{{Name: "us-only",
					ClusterSelector: &clusterv1beta1.ClusterSelector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"region": "us"}}},
					JSONPatch:       []v1alpha1.JSONPatchOperation{{Op: v1alpha1.JSONPatchRemove, Path: "/spec/paused"}}}}}}}
		Expect(c.Create(ctx, broken)).To(Succeed())
		Eventually(worksOf).WithContext(ctx).WithArguments(ns, "web").WithTimeout(eventually).Should(Equal(map[string]string{eu: "2", us: "1"}))
		Eventually(func() *metav1.Condition {
			return meta.FindStatusCondition(clusterStatus(ctx, ns, us).Conditions, v1alpha1.ConditionFailed)
		}).WithTimeout(eventually).Should(And(HaveField("Status", metav1.ConditionTrue), HaveField("Reason", v1alpha1.ReasonOverrideFailed),
			HaveField("Message", And(ContainSubstring("OverridePolicy "+ns+"/broken, rule us-only"), ContainSubstring("/spec/paused")))))
		Expect(deployment(ctx, us, ns).GetLabels()).NotTo(HaveKey("cluster"))

		By("relabelling the us cluster into the eu: it is rendered again, the broken rule no longer its")
		Expect(c.Delete(ctx, broken)).To(Succeed())
		Eventually(worksOf).WithContext(ctx).WithArguments(ns, "web").WithTimeout(eventually).Should(Equal(map[string]string{eu: "3", us: "3"}))
		// Once the status says so, nothing brings the propagation back
		// but a change: the cluster's labels must.
		Eventually(func() int64 { return clusterStatus(ctx, ns, us).Revision }).WithTimeout(eventually).Should(BeEquivalentTo(3))
		mc := &clusterv1.ManagedCluster{}
		Expect(c.Get(ctx, client.ObjectKey{Name: us}, mc)).To(Succeed())
		mc.Labels["region"] = "eu"
		Expect(c.Update(ctx, mc)).To(Succeed())
		Eventually(func(g Gomega) {
			d := deployment(ctx, us, ns)
			g.Expect(d).NotTo(BeNil())
			g.Expect(d.GetLabels()).To(And(HaveKeyWithValue("cluster", us), HaveKeyWithValue("region", "eu")))
			g.Expect(d.GetAnnotations()).To(HaveKeyWithValue("example.com/id", "id-us"))
		}).WithTimeout(eventually).Should(Succeed())
	})
})

// managedCluster makes a cluster namespace and the ManagedCluster of that
// name, with labels and the claim id.k8s.io.
func managedCluster(ctx context.Context, labels map[string]string, id string) string {
	GinkgoHelper()
	name := clusterNamespace(ctx)
	mc := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	Expect(c.Create(ctx, mc)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { Expect(c.Delete(ctx, mc)).To(Succeed()) })
	mc.Status.ClusterClaims = []clusterv1.ManagedClusterClaim{{Name: "id.k8s.io", Value: id}}
	Expect(c.Status().Update(ctx, mc)).To(Succeed())
	return name
}
