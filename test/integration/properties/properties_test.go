package properties_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/discovery"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	cpv1alpha1 "sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/addons/configmapchannel"
	"github.com/corral-dev/corral/internal/testenv"
	"github.com/corral-dev/corral/internal/testing/builder"
	"github.com/corral-dev/corral/properties"
	"github.com/corral-dev/corral/properties/api"
	"github.com/corral-dev/corral/properties/hub/clusterstatus"
)

func objectMeta(ns, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: ns, Name: name}
}

func newCluster(name string) *clusterv1.ManagedCluster {
	return builder.Cluster(name).Accepted().Obj()
}

// createNode creates a node on the managed cluster with that much of
// each resource, in region and zone.
func createNode(ctx context.Context, region, zone string, res corev1.ResourceList) *corev1.Node {
	GinkgoHelper()
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "node-" + rand.String(6), Labels: map[string]string{
			corev1.LabelTopologyRegion: region, corev1.LabelTopologyZone: zone,
		}},
		Status: corev1.NodeStatus{Capacity: res, Allocatable: res},
	}
	Expect(managed.Create(ctx, n)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { Expect(client.IgnoreNotFound(managed.Delete(ctx, n))).To(Succeed()) })
	return n
}

func cluster(g Gomega, ctx context.Context, name string) *clusterv1.ManagedCluster {
	mc := &clusterv1.ManagedCluster{}
	g.Expect(hubClient.Get(ctx, types.NamespacedName{Name: name}, mc)).To(Succeed())
	return mc
}

// expectClusterEvent waits for an Event of reason on the ManagedCluster
// named cluster.
func expectClusterEvent(ctx context.Context, cluster, reason string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		events, err := kube.EventsV1().Events(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		var seen []string
		for _, e := range events.Items {
			seen = append(seen, e.Regarding.Kind+"/"+e.Regarding.Name+":"+e.Reason)
		}
		g.Expect(seen).To(ContainElement("ManagedCluster/" + cluster + ":" + reason))
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}

func claims(mc *clusterv1.ManagedCluster) map[string]string {
	out := map[string]string{}
	for _, c := range mc.Status.ClusterClaims {
		out[c.Name] = c.Value
	}
	return out
}

var _ = Describe("properties", func() {
	It("reports version, nodes, capacity with extended resources, region and zones into the ManagedCluster, as ClusterClaims, and in its ClusterProfile", func(ctx context.Context) {
		gpu := corev1.ResourceName("nvidia.com/gpu")
		createNode(ctx, "eu-west", "eu-west-1a", corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("110"), gpu: resource.MustParse("2")})
		createNode(ctx, "eu-west", "eu-west-1b", corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("6"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("110")})
		version, err := discovery.NewDiscoveryClientForConfigOrDie(managedCluster.Config).ServerVersion()
		Expect(err).NotTo(HaveOccurred())

		By("the ManagedCluster's status")
		Eventually(func(g Gomega) {
			mc := cluster(g, ctx, clusterName)
			g.Expect(mc.Status.Version.Kubernetes).To(Equal(version.GitVersion))
			g.Expect(mc.Status.Allocatable).To(HaveKeyWithValue(clusterv1.ResourceName("cpu"), resource.MustParse("10")))
			g.Expect(mc.Status.Allocatable).To(HaveKeyWithValue(clusterv1.ResourceName("pods"), resource.MustParse("220")))
			g.Expect(mc.Status.Capacity).To(HaveKeyWithValue(clusterv1.ResourceName("nvidia.com/gpu"), resource.MustParse("2")))
			g.Expect(claims(mc)).To(And(
				HaveKeyWithValue(api.ClaimKubeVersion, version.GitVersion),
				HaveKeyWithValue(api.ClaimRegion, "eu-west"),
				HaveKeyWithValue(api.ClaimZones, "eu-west-1a,eu-west-1b"),
				HaveKeyWithValue(api.ClaimNodes, "2"),
				HaveKeyWithValue(api.ClaimProduct, "Kubernetes"),
			))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		By("the ClusterClaims on the managed cluster")
		claim := &clusterv1alpha1.ClusterClaim{}
		Expect(managed.Get(ctx, types.NamespacedName{Name: api.ClaimRegion}, claim)).To(Succeed())
		Expect(claim.Spec.Value).To(Equal("eu-west"))

		By("the ClusterProfile, with the cluster's availability as ControlPlaneHealthy")
		Eventually(func(g Gomega) {
			mc := cluster(g, ctx, clusterName)
			meta.SetStatusCondition(&mc.Status.Conditions, metav1.Condition{Type: clusterv1.ManagedClusterConditionAvailable, Status: metav1.ConditionTrue, Reason: "Test", Message: "the test says so"})
			g.Expect(hubClient.Status().Update(ctx, mc)).To(Succeed())
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		Eventually(func(g Gomega) {
			p := &cpv1alpha1.ClusterProfile{}
			g.Expect(hubClient.Get(ctx, types.NamespacedName{Namespace: profileNamespace, Name: clusterName}, p)).To(Succeed())
			g.Expect(p.Spec.ClusterManager.Name).To(Equal("corral"))
			g.Expect(p.Status.Version.Kubernetes).To(Equal(version.GitVersion))
			props := map[string]string{}
			for _, pr := range p.Status.Properties {
				props[pr.Name] = pr.Value
			}
			g.Expect(props).To(And(HaveKeyWithValue(api.ClaimRegion, "eu-west"), HaveKeyWithValue("allocatable.nvidia.com/gpu", "2"), HaveKeyWithValue("allocatable.cpu", "10")))
			g.Expect(meta.IsStatusConditionTrue(p.Status.Conditions, cpv1alpha1.ClusterConditionControlPlaneHealthy)).To(BeTrue())
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		By("a node going: the count and sums follow")
		createNode(ctx, "eu-west", "eu-west-1c", corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")})
		Eventually(func(g Gomega) {
			mc := cluster(g, ctx, clusterName)
			g.Expect(claims(mc)).To(HaveKeyWithValue(api.ClaimNodes, "3"))
			g.Expect(mc.Status.Allocatable).To(HaveKeyWithValue(clusterv1.ResourceName("cpu"), resource.MustParse("12")))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	})

	It("writes no report while nothing changes", func(ctx context.Context) {
		createNode(ctx, "us-east", "us-east-1a", corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")})
		cm := &corev1.ConfigMap{}
		var rv string
		Eventually(func(g Gomega) {
			g.Expect(claims(cluster(g, ctx, clusterName))).To(HaveKeyWithValue(api.ClaimRegion, "us-east"))
			g.Expect(hubClient.Get(ctx, types.NamespacedName{Namespace: clusterName, Name: api.ReportName}, cm)).To(Succeed())
			rv = cm.ResourceVersion
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		// Several collection rounds (one per interval) without a change.
		Consistently(func(g Gomega) {
			g.Expect(hubClient.Get(ctx, types.NamespacedName{Namespace: clusterName, Name: api.ReportName}, cm)).To(Succeed())
			g.Expect(cm.ResourceVersion).To(Equal(rv))
		}).WithContext(ctx).WithTimeout(4 * interval).WithPolling(interval / 2).Should(Succeed())
	})

	It("reports the user's ClusterClaims, and drops those beyond the bound with a condition saying which", func(ctx context.Context) {
		var created []*clusterv1alpha1.ClusterClaim
		for i := range api.MaxClaims + 5 {
			c := &clusterv1alpha1.ClusterClaim{ObjectMeta: objectMeta("", fmt.Sprintf("user-%02d.example.com", i)), Spec: clusterv1alpha1.ClusterClaimSpec{Value: "v"}}
			Expect(managed.Create(ctx, c)).To(Succeed())
			created = append(created, c)
		}
		Eventually(func(g Gomega) {
			mc := cluster(g, ctx, clusterName)
			g.Expect(mc.Status.ClusterClaims).To(HaveLen(api.MaxClaims))
			g.Expect(claims(mc)).To(And(HaveKey(api.ClaimKubeVersion), HaveKey("user-00.example.com")))
			g.Expect(claims(mc)).NotTo(HaveKey(fmt.Sprintf("user-%02d.example.com", api.MaxClaims+4)))
			mca := &addonv1alpha1.ManagedClusterAddOn{}
			g.Expect(hubClient.Get(ctx, types.NamespacedName{Namespace: clusterName, Name: api.AddonName}, mca)).To(Succeed())
			cond := meta.FindStatusCondition(mca.Status.Conditions, clusterstatus.ConditionClaimsWithinLimits)
			g.Expect(cond).NotTo(BeNil())
			g.Expect(cond.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(cond.Reason).To(Equal(clusterstatus.ReasonClaimsTruncated))
			g.Expect(cond.Message).To(ContainSubstring(fmt.Sprintf("user-%02d.example.com", api.MaxClaims+4)))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		expectClusterEvent(ctx, clusterName, clusterstatus.ReasonClaimsTruncated)

		By("removing them: within the bound again")
		for _, c := range created {
			Expect(managed.Delete(ctx, c)).To(Succeed())
		}
		Eventually(func(g Gomega) {
			mca := &addonv1alpha1.ManagedClusterAddOn{}
			g.Expect(hubClient.Get(ctx, types.NamespacedName{Namespace: clusterName, Name: api.AddonName}, mca)).To(Succeed())
			g.Expect(meta.IsStatusConditionTrue(mca.Status.Conditions, clusterstatus.ConditionClaimsWithinLimits)).To(BeTrue())
			for name := range claims(cluster(g, ctx, clusterName)) {
				g.Expect(strings.HasPrefix(name, "user-")).To(BeFalse(), name)
			}
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	})

	It("keeps a ClusterProfile for every cluster and deletes it with the cluster", func(ctx context.Context) {
		name := "other-" + rand.String(5)
		Expect(hubClient.Create(ctx, newCluster(name))).To(Succeed())
		key := types.NamespacedName{Namespace: profileNamespace, Name: name}
		Eventually(func(g Gomega) {
			p := &cpv1alpha1.ClusterProfile{}
			g.Expect(hubClient.Get(ctx, key, p)).To(Succeed())
			g.Expect(p.Labels).To(HaveKeyWithValue(clusterv1.ClusterNameLabelKey, name))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		By("the cluster's status changing: the profile follows")
		Eventually(func(g Gomega) {
			mc := cluster(g, ctx, name)
			mc.Status.Version.Kubernetes = "v9.9.9"
			g.Expect(hubClient.Status().Update(ctx, mc)).To(Succeed())
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		Eventually(func(g Gomega) {
			p := &cpv1alpha1.ClusterProfile{}
			g.Expect(hubClient.Get(ctx, key, p)).To(Succeed())
			g.Expect(p.Status.Version.Kubernetes).To(Equal("v9.9.9"))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		Expect(hubClient.Delete(ctx, newCluster(name))).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(hubClient.Get(ctx, key, &cpv1alpha1.ClusterProfile{}))
		}).WithContext(ctx).WithTimeout(timeout).Should(BeTrue())
	})
})

var _ = Describe("properties of a disabled addon", func() {
	It("go from the cluster with the addon's report when it is disabled, and properties reported by another agent stay", func(ctx context.Context) {
		name := "disabled-" + rand.String(5)
		Expect(hubClient.Create(ctx, newCluster(name))).To(Succeed())
		Expect(hubClient.Create(ctx, &corev1.Namespace{ObjectMeta: objectMeta("", name)})).To(Succeed())
		mca := &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: objectMeta(name, api.AddonName)}
		Expect(hubClient.Create(ctx, mca)).To(Succeed())

		By("a report, written as the agent writes it, is reflected")
		cm, err := configmapchannel.Object(name, api.ReportName, api.AddonName, &api.Report{KubernetesVersion: "v1.35.4",
			Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")}, Claims: []api.Claim{{Name: "region.open-cluster-management.io", Value: "eu"}}})
		Expect(err).NotTo(HaveOccurred())
		Expect(hubClient.Create(ctx, cm)).To(Succeed())
		Eventually(func(g Gomega) {
			mc := cluster(g, ctx, name)
			g.Expect(mc.Status.Version.Kubernetes).To(Equal("v1.35.4"))
			g.Expect(claims(mc)).To(HaveKeyWithValue("region.open-cluster-management.io", "eu"))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		By("disabling the addon removes what it reported, then its report, with an Event")
		Expect(hubClient.Delete(ctx, mca)).To(Succeed())
		Eventually(func(g Gomega) {
			st := cluster(g, ctx, name).Status
			g.Expect(st.Version.Kubernetes).To(BeEmpty())
			g.Expect(st.ClusterClaims).To(BeEmpty())
			g.Expect(st.Allocatable).To(BeEmpty())
			err := hubClient.Get(ctx, client.ObjectKeyFromObject(cm), &corev1.ConfigMap{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the report is deleted: %v", err)
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		expectClusterEvent(ctx, name, clusterstatus.ReasonPropertiesRemoved)

		By("properties another agent reports, with no addon and no report, are left alone")
		mc := &clusterv1.ManagedCluster{}
		Expect(hubClient.Get(ctx, types.NamespacedName{Name: name}, mc)).To(Succeed())
		mc.Status.Version.Kubernetes = "v1.34.0"
		mc.Status.ClusterClaims = []clusterv1.ManagedClusterClaim{{Name: "id.k8s.io", Value: name}}
		Expect(hubClient.Status().Update(ctx, mc)).To(Succeed())
		Consistently(func(g Gomega) {
			st := cluster(g, ctx, name).Status
			g.Expect(st.Version.Kubernetes).To(Equal("v1.34.0"))
			g.Expect(st.ClusterClaims).To(HaveLen(1))
		}).WithContext(ctx).WithTimeout(5 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())
	})
})

var _ = Describe("the hub half's settings", func() {
	It("refuses a ClusterProfile namespace that is not a namespace name, in one line", func(ctx context.Context) {
		o := testenv.AddonHubOptions(hubCluster.Config, properties.Addon())
		flags := pflag.NewFlagSet("corral hub", pflag.ContinueOnError)
		o.AddFlags(flags)
		Expect(flags.Parse([]string{"--cluster-profile-namespace", "Not_A_Namespace"})).To(Succeed())
		_, err := o.Manager(ctx)
		Expect(err).To(MatchError(ContainSubstring(`the ClusterProfiles' namespace "Not_A_Namespace" is not a namespace name`)))
		Expect(err.Error()).NotTo(ContainSubstring("\n"))
	})
})
