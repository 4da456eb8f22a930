package propagation_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/distribute"
	"github.com/corral-dev/corral/work/adoption"
)

var _ = Describe("adoption, from the hub", Ordered, func() {
	BeforeAll(startHubHalf)

	deployments := v1alpha1.ResourceSelector{Group: "apps", Version: "v1", Kind: "Deployment", Name: "web"}
	theWork := func(ctx context.Context, cluster, ns string) *workv1.ManifestWork {
		GinkgoHelper()
		w := &workv1.ManifestWork{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: cluster, Name: distribute.WorkName(ns, "web", 0)}, w); err != nil {
			return nil
		}
		return w
	}
	deploymentConfig := func(w *workv1.ManifestWork, ns string) *workv1.ManifestConfigOption {
		for i, mc := range w.Spec.ManifestConfigs {
			if mc.ResourceIdentifier == (workv1.ResourceIdentifier{Group: "apps", Resource: "deployments", Namespace: ns, Name: "web"}) {
				return &w.Spec.ManifestConfigs[i]
			}
		}
		return nil
	}

	It("tells the work agent the policy, leaves ignoreFields to the clusters, and reports what the agent finds", func(ctx context.Context) {
		ns := freshNamespace(ctx)
		cluster := clusterNamespace(ctx)
		Expect(c.Create(ctx, webDeployment(ns))).To(Succeed())
		decide(ctx, ns, "all", cluster)
		p := newPropagation(ns, "web", nil, deployments)
		Expect(c.Create(ctx, p)).To(Succeed())

		By("unset: takeOver IfNoDiff, drift Always, Apply; no update strategy")
		Eventually(func(g Gomega) {
			w := theWork(ctx, cluster, ns)
			g.Expect(w).NotTo(BeNil())
			pol, err := adoption.Parse(w.Annotations[adoption.Annotation])
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(pol).To(Equal(adoption.Policy{TakeOver: adoption.TakeOverIfNoDiff, Drift: adoption.DriftAlways, Mode: adoption.ModeApply}))
			g.Expect(deploymentConfig(w, ns).UpdateStrategy).To(BeNil())
		}).WithTimeout(eventually).Should(Succeed())

		By("drift IfNotDrifted, the replicas ignored: server-side apply leaving them to the cluster")
		updatePropagation(ctx, p, func(p *v1alpha1.Propagation) {
			p.Spec.Adoption = &v1alpha1.Adoption{Drift: "IfNotDrifted", IgnoreFields: []v1alpha1.IgnoreFields{{Group: "apps", Kind: "Deployment", JSONPaths: []string{".spec.replicas"}}}}
		})
		Eventually(func(g Gomega) {
			w := theWork(ctx, cluster, ns)
			g.Expect(w.Annotations[adoption.Annotation]).To(ContainSubstring(`"drift":"IfNotDrifted"`))
			st := deploymentConfig(w, ns).UpdateStrategy
			g.Expect(st).NotTo(BeNil())
			g.Expect(st.Type).To(Equal(workv1.UpdateStrategyTypeServerSideApply))
			g.Expect(st.ServerSideApply.Force).To(BeTrue())
			g.Expect(st.ServerSideApply.IgnoreFields).To(Equal([]workv1.IgnoreField{{Condition: workv1.IgnoreFieldsConditionOnSpokePresent, JSONPaths: []string{".spec.replicas"}}}))
			g.Expect(deploymentConfig(w, ns).FeedbackRules).NotTo(BeEmpty(), "the feedback rules stay")
		}).WithTimeout(eventually).Should(Succeed())

		By("the agent reporting a change left on the cluster: in the cluster's status")
		Eventually(func() error {
			w := theWork(ctx, cluster, ns)
			w.Status.ResourceStatus.Manifests = []workv1.ManifestCondition{{
				ResourceMeta: workv1.ManifestResourceMeta{Ordinal: 1, Group: "apps", Version: "v1", Kind: "Deployment", Resource: "deployments", Namespace: ns, Name: "web"},
				Conditions: []metav1.Condition{{Type: adoption.ConditionType, Status: metav1.ConditionTrue, Reason: adoption.ReasonDrifted, LastTransitionTime: metav1.Now(),
					Message: adoption.Message("changed", []adoption.Field{{Path: ".spec.template.spec.containers[0].image", Hub: []byte(`"nginx:1.27"`), Cluster: []byte(`"nginx:1.26"`)}})}},
			}}
			return c.Status().Update(ctx, w)
		}).WithContext(ctx).WithTimeout(eventually).Should(Succeed())
		Eventually(func(g Gomega) {
			got := &v1alpha1.Propagation{}
			g.Expect(c.Get(ctx, client.ObjectKeyFromObject(p), got)).To(Succeed())
			g.Expect(got.Status.Clusters).To(HaveLen(1))
			g.Expect(got.Status.Clusters[0].Drift).To(ConsistOf(And(
				HaveField("Kind", "Deployment"), HaveField("Name", "web"), HaveField("Reason", adoption.ReasonDrifted),
				HaveField("Fields", Equal([]v1alpha1.FieldDiff{{Path: ".spec.template.spec.containers[0].image", Hub: `"nginx:1.27"`, Cluster: `"nginx:1.26"`}})))))
		}).WithTimeout(eventually).Should(Succeed())

		By("ReportDiff: every object read only, and the cluster not applied")
		updatePropagation(ctx, p, func(p *v1alpha1.Propagation) { p.Spec.Adoption = &v1alpha1.Adoption{Mode: "ReportDiff"} })
		Eventually(func(g Gomega) {
			w := theWork(ctx, cluster, ns)
			g.Expect(w.Spec.ManifestConfigs).To(HaveLen(2), "the namespace's and the Deployment's")
			for _, mc := range w.Spec.ManifestConfigs {
				g.Expect(mc.UpdateStrategy).To(Equal(&workv1.UpdateStrategy{Type: workv1.UpdateStrategyTypeReadOnly}), "%s", mc.ResourceIdentifier)
			}
			got := &v1alpha1.Propagation{}
			g.Expect(c.Get(ctx, client.ObjectKeyFromObject(p), got)).To(Succeed())
			applied := meta.FindStatusCondition(got.Status.Clusters[0].Conditions, v1alpha1.ConditionApplied)
			g.Expect(applied).NotTo(BeNil())
			g.Expect(applied.Reason).To(Equal(distribute.ReasonReportDiff))
		}).WithTimeout(eventually).Should(Succeed())
	})

	It("refuses an adoption policy the schema knows to be wrong", func(ctx context.Context) {
		ns := freshNamespace(ctx)
		p := newPropagation(ns, "web", nil, deployments)
		p.Spec.Adoption = &v1alpha1.Adoption{TakeOver: "Sometimes"}
		Expect(c.Create(ctx, p.DeepCopy())).To(MatchError(ContainSubstring(`spec.adoption.takeOver: Unsupported value: "Sometimes"`)))
		p.Spec.Adoption = &v1alpha1.Adoption{IgnoreFields: []v1alpha1.IgnoreFields{{Kind: "Deployment"}}}
		Expect(c.Create(ctx, p.DeepCopy())).To(MatchError(ContainSubstring("spec.adoption.ignoreFields[0].jsonPaths")))
	})
})
