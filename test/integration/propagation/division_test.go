package propagation_test

import (
	"context"
	"fmt"

	placementapi "github.com/corral-dev/corral/placement/api"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/testenv"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/distribute"
)

var _ = Describe("replica division", Ordered, func() {
	BeforeAll(startHubHalf)

	// delivered is, on each cluster, "<Kind>=<replicas>" of what the
	// propagation's work carries, by the kind's replica path.
	delivered := func(ctx context.Context, ns string, clusters ...string) map[string][]string {
		GinkgoHelper()
		out := map[string][]string{}
		for _, cluster := range clusters {
			w := &workv1.ManifestWork{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: cluster, Name: distribute.WorkName(ns, "web", 0)}, w); err != nil {
				continue
			}
			for _, m := range w.Spec.Workload.Manifests {
				obj := decode(m)
				var n any
				switch obj.GetKind() {
				case "Deployment":
					n = obj.Object["spec"].(map[string]any)["replicas"]
				case "Job":
					n = obj.Object["spec"].(map[string]any)["parallelism"]
				case "Gadget":
					n = obj.Object["spec"].(map[string]any)["size"].(map[string]any)["count"]
				default:
					continue
				}
				out[cluster] = append(out[cluster], fmt.Sprintf("%s=%v", obj.GetKind(), n))
			}
		}
		return out
	}
	setScheduling := func(ctx context.Context, ns string, rs *v1alpha1.ReplicaScheduling) {
		GinkgoHelper()
		p := &v1alpha1.Propagation{}
		Expect(c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, p)).To(Succeed())
		updatePropagation(ctx, p, func(p *v1alpha1.Propagation) { p.Spec.ReplicaScheduling = rs })
	}

	It("divides Deployments, Jobs and a kind by its replica path, by every kind of weight, moving the fewest", func(ctx context.Context) {
		ns := freshNamespace(ctx)
		big, small := sizedCluster(ctx, "true", "4"), sizedCluster(ctx, "false", "2")
		group := testenv.UniqueName("gadgets") + ".example.com"
		crd := object(fmt.Sprintf(`{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: {name: gadgets.%s},
			spec: {group: %s, scope: Namespaced, names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList},
			versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}]}}`, group, group))
		Expect(c.Create(ctx, crd)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(c.Delete(ctx, crd)).To(Succeed()) })
		Eventually(func() error {
			return client.IgnoreAlreadyExists(c.Create(ctx, object(fmt.Sprintf(`{apiVersion: %s/v1, kind: Gadget, metadata: {name: web, namespace: %s}, spec: {size: {count: 5}}}`, group, ns))))
		}).WithContext(ctx).WithTimeout(eventually).Should(Succeed(), "the CRD is served")
		web := webDeployment(ns)
		web.Spec.Replicas = ptr.To[int32](6)
		Expect(c.Create(ctx, web)).To(Succeed())
		Expect(c.Create(ctx, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}, Spec: batchv1.JobSpec{
			Parallelism: ptr.To[int32](3), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
				Containers: []corev1.Container{{Name: "run", Image: "busybox:1.36"}}}}}})).To(Succeed())

		decide(ctx, ns, "all", big, small)
		p := newPropagation(ns, "web", nil,
			v1alpha1.ResourceSelector{Group: "apps", Version: "v1", Kind: "Deployment", Name: "web"},
			v1alpha1.ResourceSelector{Group: "batch", Version: "v1", Kind: "Job", Name: "web"},
			v1alpha1.ResourceSelector{Group: group, Version: "v1", Kind: "Gadget", Name: "web"})
		p.Spec.ReplicaScheduling = &v1alpha1.ReplicaScheduling{Type: v1alpha1.ReplicaSchedulingDivided,
			Weights: []v1alpha1.ClusterWeight{
				{Weight: 2, ClusterSelector: clusterv1beta1.ClusterSelector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"big": "true"}}}},
				{Weight: 1}},
			ReplicaPaths: []v1alpha1.ReplicaPath{{Group: group, Kind: "Gadget", Path: "/spec/size/count"}}}
		Expect(c.Create(ctx, p)).To(Succeed())

		By("static weights 2:1: 6 → 4/2, parallelism 3 → 2/1, a Gadget's 5 → 3/2")
		Eventually(delivered).WithContext(ctx).WithArguments(ns, big, small).WithTimeout(eventually).Should(Equal(map[string][]string{
			big: {"Deployment=4", "Job=2", "Gadget=3"}, small: {"Deployment=2", "Job=1", "Gadget=2"}}))
		Eventually(func(g Gomega) {
			got := &v1alpha1.Propagation{}
			g.Expect(c.Get(ctx, client.ObjectKeyFromObject(p), got)).To(Succeed())
			g.Expect(got.Status.Clusters).To(HaveLen(2))
			g.Expect(got.Status.Clusters[0].Replicas).To(ContainElement(And(HaveField("Kind", "Deployment"), HaveField("Replicas", BeEquivalentTo(map[string]int32{big: 4, small: 2}[got.Status.Clusters[0].Cluster])))))
		}).WithTimeout(eventually).Should(Succeed())

		By("no weights: equal, the odd replicas staying where they run")
		setScheduling(ctx, ns, &v1alpha1.ReplicaScheduling{Type: v1alpha1.ReplicaSchedulingDivided,
			ReplicaPaths: []v1alpha1.ReplicaPath{{Group: group, Kind: "Gadget", Path: "/spec/size/count"}}})
		Eventually(delivered).WithContext(ctx).WithArguments(ns, big, small).WithTimeout(eventually).Should(Equal(map[string][]string{
			big: {"Deployment=3", "Job=2", "Gadget=3"}, small: {"Deployment=3", "Job=1", "Gadget=2"}}))

		By("dynamic, without resource-usage scores: by allocatable CPU, 4000m:2000m; the Gadget, without its path, whole")
		setScheduling(ctx, ns, &v1alpha1.ReplicaScheduling{Type: v1alpha1.ReplicaSchedulingDivided, Dynamic: &v1alpha1.DynamicWeight{Resource: "cpu"}})
		Eventually(delivered).WithContext(ctx).WithArguments(ns, big, small).WithTimeout(eventually).Should(Equal(map[string][]string{
			big: {"Deployment=4", "Job=2", "Gadget=5"}, small: {"Deployment=2", "Job=1", "Gadget=5"}}))

		By("dynamic, with the placement addon's scores: the small cluster has more free, 1:2")
		placementScore(ctx, big, 0)
		placementScore(ctx, small, 100)
		setScheduling(ctx, ns, &v1alpha1.ReplicaScheduling{Type: v1alpha1.ReplicaSchedulingDivided, Dynamic: &v1alpha1.DynamicWeight{}})
		Eventually(delivered).WithContext(ctx).WithArguments(ns, big, small).WithTimeout(eventually).Should(Equal(map[string][]string{
			big: {"Deployment=2", "Job=1", "Gadget=5"}, small: {"Deployment=4", "Job=2", "Gadget=5"}}))

		By("Duplicated: every cluster the template's")
		setScheduling(ctx, ns, nil)
		Eventually(delivered).WithContext(ctx).WithArguments(ns, big, small).WithTimeout(eventually).Should(Equal(map[string][]string{
			big: {"Deployment=6", "Job=3", "Gadget=5"}, small: {"Deployment=6", "Job=3", "Gadget=5"}}))
	})

	It("refuses weights and dynamic together, or either under Duplicated", func(ctx context.Context) {
		ns := freshNamespace(ctx)
		p := newPropagation(ns, "web", nil, v1alpha1.ResourceSelector{Group: "apps", Version: "v1", Kind: "Deployment", Name: "web"})
		p.Spec.ReplicaScheduling = &v1alpha1.ReplicaScheduling{Type: v1alpha1.ReplicaSchedulingDivided, Weights: []v1alpha1.ClusterWeight{{Weight: 1}}, Dynamic: &v1alpha1.DynamicWeight{}}
		Expect(c.Create(ctx, p.DeepCopy())).To(MatchError(ContainSubstring("give weights or dynamic, not both")))
		p.Spec.ReplicaScheduling = &v1alpha1.ReplicaScheduling{Weights: []v1alpha1.ClusterWeight{{Weight: 1}}}
		Expect(c.Create(ctx, p.DeepCopy())).To(MatchError(ContainSubstring("weights and dynamic are for type Divided")))
	})
})

// sizedCluster makes a cluster namespace and its ManagedCluster, labelled
// big, with cpu allocatable.
func sizedCluster(ctx context.Context, big, cpu string) string {
	GinkgoHelper()
	name := clusterNamespace(ctx)
	mc := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"big": big}}}
	Expect(c.Create(ctx, mc)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { Expect(c.Delete(ctx, mc)).To(Succeed()) })
	mc.Status.Allocatable = clusterv1.ResourceList{clusterv1.ResourceCPU: resource.MustParse(cpu), clusterv1.ResourceMemory: resource.MustParse("8Gi")}
	mc.Status.Capacity = mc.Status.Allocatable
	Expect(c.Status().Update(ctx, mc)).To(Succeed())
	return name
}

// placementScore publishes the placement addon's resource-usage score
// of cluster, cpuAvailable.
func placementScore(ctx context.Context, cluster string, cpu int32) {
	GinkgoHelper()
	score := &clusterv1alpha1.AddOnPlacementScore{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: placementapi.ScoreName}}
	Expect(c.Create(ctx, score)).To(Succeed())
	score.Status.Scores = []clusterv1alpha1.AddOnPlacementScoreItem{{Name: placementapi.ScoreCPU, Value: cpu}, {Name: placementapi.ScoreMemory, Value: 0}}
	Expect(c.Status().Update(ctx, score)).To(Succeed())
}
