package addons_test

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/addons/manager/install"
)

var _ = Describe("Install strategy Placements", func() {
	It("enables the addon on the clusters its placements decide on, and removes only what it enabled when a cluster leaves", func(ctx context.Context) {
		c1, c2, byHand := newCluster(ctx, true), newCluster(ctx, true), newCluster(ctx, true)
		ns := newNamespace(ctx)
		placement := &clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "spread"}}
		Expect(admin.Create(ctx, placement)).To(Succeed())
		decision := newDecision(ctx, ns, "spread", 1, c1, c2, byHand)
		enable(ctx, byHand, "third-party") // enabled by hand: the strategy never removes it

		By("installing a third-party addon by placement, with a per-placement config")
		cma := &addonv1alpha1.ClusterManagementAddOn{
			ObjectMeta: metav1.ObjectMeta{Name: "third-party"},
			Spec: addonv1alpha1.ClusterManagementAddOnSpec{
				SupportedConfigs: []addonv1alpha1.ConfigMeta{{
					ConfigGroupResource: addonv1alpha1.ConfigGroupResource{Group: addonv1alpha1.GroupName, Resource: "addondeploymentconfigs"},
					DefaultConfig:       &addonv1alpha1.ConfigReferent{Namespace: ns, Name: "default"},
				}},
				InstallStrategy: addonv1alpha1.InstallStrategy{
					Type: addonv1alpha1.AddonInstallStrategyPlacements,
					Placements: []addonv1alpha1.PlacementStrategy{{
						PlacementRef:    addonv1alpha1.PlacementRef{Namespace: ns, Name: "spread"},
						RolloutStrategy: rolloutAll(),
					}},
				},
			},
		}
		Expect(admin.Create(ctx, cma)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { _ = admin.Delete(ctx, cma) })

		Eventually(func(g Gomega) {
			g.Expect(installedOn(ctx, g, "third-party")).To(ConsistOf(c1, c2, byHand))
			for _, c := range []string{c1, c2} {
				mca := &addonv1alpha1.ManagedClusterAddOn{}
				g.Expect(admin.Get(ctx, client.ObjectKey{Namespace: c, Name: "third-party"}, mca)).To(Succeed())
				g.Expect(mca.Annotations).To(HaveKeyWithValue(install.InstalledByAnnotation, install.InstalledByStrategy))
				g.Expect(mca.OwnerReferences).To(ContainElement(HaveField("UID", cma.UID)))
			}
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		By("reporting the placement's install progression and the default config")
		Eventually(func(g Gomega) {
			got := &addonv1alpha1.ClusterManagementAddOn{}
			g.Expect(admin.Get(ctx, client.ObjectKey{Name: "third-party"}, got)).To(Succeed())
			g.Expect(got.Status.DefaultConfigReferences).To(ConsistOf(HaveField("DesiredConfig.ConfigReferent.Name", "default")))
			g.Expect(got.Status.InstallProgressions).To(ConsistOf(And(
				HaveField("PlacementRef", addonv1alpha1.PlacementRef{Namespace: ns, Name: "spread"}),
				HaveField("ConfigReferences", ConsistOf(HaveField("DesiredConfig.ConfigReferent.Name", "default"))),
			)))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		By("removing the addon from a cluster that leaves the placement, and keeping the one enabled by hand")
		decide(ctx, decision, c1)
		Eventually(func(g Gomega) {
			g.Expect(installedOn(ctx, g, "third-party")).To(ConsistOf(c1, byHand))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		By("installing on a cluster that joins the placement through a second decision")
		newDecision(ctx, ns, "spread", 2, c2)
		Eventually(func(g Gomega) {
			g.Expect(installedOn(ctx, g, "third-party")).To(ConsistOf(c1, c2, byHand))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	})

	It("leaves the work addon of a cluster being deleted to the registration core, which deletes it after the cluster's works", func(ctx context.Context) {
		doomed, witness := newCluster(ctx, true), newCluster(ctx, true)
		agent := asCluster(doomed)
		mc := &clusterv1.ManagedCluster{}
		Expect(agent.Get(ctx, client.ObjectKey{Name: doomed}, mc)).To(Succeed())
		meta.SetStatusCondition(&mc.Status.Conditions, metav1.Condition{Type: clusterv1.ManagedClusterConditionAvailable, Status: metav1.ConditionTrue, Reason: "ManagedClusterAvailable"})
		Expect(agent.Status().Update(ctx, mc)).To(Succeed(), "the agent heartbeating")

		ns := newNamespace(ctx)
		Expect(admin.Create(ctx, &clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "fleet"}})).To(Succeed())
		decision := newDecision(ctx, ns, "fleet", 1, doomed, witness)
		cma := &addonv1alpha1.ClusterManagementAddOn{ObjectMeta: metav1.ObjectMeta{Name: "work"}, Spec: addonv1alpha1.ClusterManagementAddOnSpec{
			InstallStrategy: addonv1alpha1.InstallStrategy{Type: addonv1alpha1.AddonInstallStrategyPlacements, Placements: []addonv1alpha1.PlacementStrategy{{
				PlacementRef: addonv1alpha1.PlacementRef{Namespace: ns, Name: "fleet"}, RolloutStrategy: rolloutAll(),
			}}},
		}}
		Expect(admin.Create(ctx, cma)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { _ = admin.Delete(ctx, cma) })
		Eventually(func(g Gomega) {
			g.Expect(installedOn(ctx, g, "work")).To(ConsistOf(doomed, witness))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		work := &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: doomed, Name: "app", Finalizers: []string{workv1.ManifestWorkFinalizer}},
			Spec: workv1.ManifestWorkSpec{Workload: workv1.ManifestsTemplate{Manifests: []workv1.Manifest{{RawExtension: runtime.RawExtension{
				Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"app","namespace":"default"}}`),
			}}}}}}
		Expect(admin.Create(ctx, work)).To(Succeed())

		By("deleting the cluster, and its placement letting it go (and the witness)")
		Expect(admin.Delete(ctx, &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: doomed}})).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(admin.Get(ctx, client.ObjectKeyFromObject(work), work)).To(Succeed())
			g.Expect(work.DeletionTimestamp).NotTo(BeNil())
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed(), "the registration core deletes the cluster's works")
		newcomer := newCluster(ctx, true)
		decide(ctx, decision, newcomer)
		Eventually(func(g Gomega) {
			g.Expect(installedOn(ctx, g, "work")).NotTo(ContainElement(witness))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed(), "the strategy removes the witness's addon")
		// A later reconcile installs on the witness again: the one that
		// removed its addon has finished by then, deleted cluster's
		// included.
		decide(ctx, decision, newcomer, witness)
		Eventually(func(g Gomega) {
			g.Expect(installedOn(ctx, g, "work")).To(ContainElement(witness))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		Expect(installedOn(ctx, Default, "work")).To(ConsistOf(doomed, newcomer, witness), "the strategy leaves the deleted cluster's addon to the registration core")

		By("the agent finalizing the work: then the addon and the cluster go")
		Expect(agent.Get(ctx, client.ObjectKeyFromObject(work), work)).To(Succeed())
		work.Finalizers = nil
		Expect(agent.Update(ctx, work)).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(admin.Get(ctx, client.ObjectKey{Name: doomed}, &clusterv1.ManagedCluster{}))
		}).WithContext(ctx).WithTimeout(2 * timeout).Should(BeTrue())
	})

	It("installs nothing for a decision whose placement does not exist, or under Manual", func(ctx context.Context) {
		cluster := newCluster(ctx, true)
		ns := newNamespace(ctx)
		newDecision(ctx, ns, "gone", 1, cluster)
		manual := &clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "manual"}}
		Expect(admin.Create(ctx, manual)).To(Succeed())
		newDecision(ctx, ns, "manual", 1, cluster)

		strategy := func(name, placement string, typ string) *addonv1alpha1.ClusterManagementAddOn {
			cma := &addonv1alpha1.ClusterManagementAddOn{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: addonv1alpha1.ClusterManagementAddOnSpec{
				InstallStrategy: addonv1alpha1.InstallStrategy{Type: typ, Placements: []addonv1alpha1.PlacementStrategy{{
					PlacementRef: addonv1alpha1.PlacementRef{Namespace: ns, Name: placement}, RolloutStrategy: rolloutAll(),
				}}},
			}}
			Expect(admin.Create(ctx, cma)).To(Succeed())
			DeferCleanup(func(ctx context.Context) { _ = admin.Delete(ctx, cma) })
			return cma
		}
		unplaced := strategy("unplaced-"+utilrand.String(4), "gone", addonv1alpha1.AddonInstallStrategyPlacements)
		byHand := strategy("manual-"+utilrand.String(4), "manual", addonv1alpha1.AddonInstallStrategyManual)
		// A witness: a third addon placed on the cluster is installed, so
		// the controller has looked at the other two by then.
		witnessPlacement := &clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "witness"}}
		Expect(admin.Create(ctx, witnessPlacement)).To(Succeed())
		newDecision(ctx, ns, "witness", 1, cluster)
		witness := strategy("witness-"+utilrand.String(4), "witness", addonv1alpha1.AddonInstallStrategyPlacements)
		Eventually(func() error {
			return admin.Get(ctx, client.ObjectKey{Namespace: cluster, Name: witness.Name}, &addonv1alpha1.ManagedClusterAddOn{})
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		for _, cma := range []*addonv1alpha1.ClusterManagementAddOn{unplaced, byHand} {
			err := admin.Get(ctx, client.ObjectKey{Namespace: cluster, Name: cma.Name}, &addonv1alpha1.ManagedClusterAddOn{})
			Expect(apierrors.IsNotFound(err)).To(BeTrue(), "addon %s was installed: %v", cma.Name, err)
		}
	})
})

// decide writes the decision's status: it selects clusters.
func decide(ctx context.Context, decision *clusterv1beta1.PlacementDecision, clusters ...string) {
	GinkgoHelper()
	decision.Status.Decisions = nil
	for _, c := range clusters {
		decision.Status.Decisions = append(decision.Status.Decisions, clusterv1beta1.ClusterDecision{ClusterName: c, Reason: "test"})
	}
	Expect(admin.Status().Update(ctx, decision)).To(Succeed())
}

// newDecision creates the PlacementDecision <placement>-decision-<index>
// of placement in ns, deciding on clusters.
func newDecision(ctx context.Context, ns, placement string, index int, clusters ...string) *clusterv1beta1.PlacementDecision {
	GinkgoHelper()
	decision := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{
		Namespace: ns, Name: fmt.Sprintf("%s-decision-%d", placement, index), Labels: map[string]string{clusterv1beta1.PlacementLabel: placement},
	}}
	Expect(admin.Create(ctx, decision)).To(Succeed())
	decide(ctx, decision, clusters...)
	return decision
}

// installedOn lists the clusters addon is enabled on (and not being
// disabled).
func installedOn(ctx context.Context, g Gomega, addon string) []string {
	list := &addonv1alpha1.ManagedClusterAddOnList{}
	g.Expect(admin.List(ctx, list)).To(Succeed())
	var clusters []string
	for _, mca := range list.Items {
		if mca.Name == addon && mca.DeletionTimestamp == nil {
			clusters = append(clusters, mca.Namespace)
		}
	}
	return clusters
}

// newNamespace is a namespace for one spec, deleted after it.
func newNamespace(ctx context.Context) string {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "spec-" + utilrand.String(6)}}
	Expect(admin.Create(ctx, ns)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { _ = admin.Delete(ctx, ns) })
	return ns.Name
}

// rolloutAll is the rollout strategy that applies a config
// change to every cluster at once.
func rolloutAll() clusterv1alpha1.RolloutStrategy {
	return clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All}
}
