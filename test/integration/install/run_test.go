package install_test

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	placementapi "github.com/corral-dev/corral/placement/api"

	"github.com/go-logr/logr"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	cpv1alpha1 "sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/addons/builtin"
	addoncli "github.com/corral-dev/corral/addons/cli"
	corralagent "github.com/corral-dev/corral/agent"
	"github.com/corral-dev/corral/deploy/charts"
	healthapi "github.com/corral-dev/corral/health/api"
	"github.com/corral-dev/corral/internal/testenv"
	"github.com/corral-dev/corral/internal/testing/builder"
	propertiesapi "github.com/corral-dev/corral/properties/api"
	"github.com/corral-dev/corral/properties/hub/clusterprofile"
	regagent "github.com/corral-dev/corral/registration/agent"
	registrationcli "github.com/corral-dev/corral/registration/cli"
	"github.com/corral-dev/corral/registration/common"
	"github.com/corral-dev/corral/registration/webhook"
)

const (
	// agentLeaseSeconds is the cluster's lease period: short, so that a
	// renewal is seen soon and a revoked identity falls back soon.
	agentLeaseSeconds = 5
	// appsNamespace is the hub namespace of the suite's Placement and
	// ManifestWorkReplicaSet.
	appsNamespace = "lp-apps"
	// executor is the managed cluster's service account the fanned-out
	// work is applied as (default/executor).
	executor = "lp-executor"
)

// runHub runs the hub as `corral hub` runs in the chart's Deployment, with
// every built-in addon and leader election in the release namespace, on
// corral-hub's token. The webhooks are served on a loopback port instead
// of through the chart's Service: the API server has no nodes to reach a
// Service's pods on.
func runHub(ctx context.Context) {
	hubSA = serviceAccountConfig(ctx, hubCluster, charts.HubNamespace, charts.HubDeployment)
	o := testenv.HubOptions(hubSA, builtin.All()...)
	o.LeaderElect, o.LeaderElectNamespace = true, charts.HubNamespace
	logsFrom = logs.mark()
	hubCtx := logr.NewContext(context.Background(), logs.logger("hub"))
	mgr, err := o.Manager(hubCtx)
	Expect(err).NotTo(HaveOccurred())
	stopHub = testenv.Go(hubCtx, mgr.Start)

	// The probes are dry-run creates of ManagedClusters, which the hub may
	// not do: an admin sends them.
	probes, err := webhook.AddonWebhooks(hubCluster.Config, builtin.All())
	Expect(err).NotTo(HaveOccurred())
	Expect(webhook.WaitServing(ctx, hubAdmin, timeout, probes...)).To(Succeed())

	By("holding both of the hub's Leases in its release namespace")
	for _, name := range []string{"corral-hub", webhook.LeaseName} {
		Eventually(func(g Gomega) {
			l := &coordinationv1.Lease{}
			g.Expect(hubAdmin.Get(ctx, client.ObjectKey{Namespace: charts.HubNamespace, Name: name}, l)).To(Succeed())
			g.Expect(l.Spec.HolderIdentity).NotTo(BeNil())
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed(), name)
	}
}

// runAgent runs the agent as `corral agent` runs in the chart's
// Deployment, with every built-in addon, on corral-agent's token: it reads
// the bootstrap kubeconfig from the Secret the chart made, joins, and a
// hub admin accepts it.
func runAgent(ctx context.Context) {
	By("a node for the addons to count, score and probe (no kubelet: nothing changes it)")
	createReadyNode(ctx, "lp-node")

	agentSA = serviceAccountConfig(ctx, managedCluster, charts.AgentNamespace, charts.AgentDeployment)
	o := corralagent.NewOptions(GinkgoWriter, builtin.All()...)
	o.ClusterName, o.ManagedConfig, o.LeaderElect, o.LeaseSeconds = clusterName, agentSA, true, agentLeaseSeconds
	stopAgent = testenv.Go(logr.NewContext(context.Background(), logs.logger("agent")), o.Run)

	By("a hub admin accepting it: corral accept --wait")
	accept := registrationcli.NewAcceptOptions(GinkgoWriter)
	accept.Hub.Kubeconfig, accept.Clusters, accept.Wait, accept.Timeout = hubCluster.Kubeconfig, []string{clusterName}, true, timeout
	Expect(accept.Complete()).To(Succeed())
	Expect(accept.Run(ctx)).To(Succeed())

	By("Joined and Available, its lease renewed, its identity kept on the managed cluster")
	Eventually(func(g Gomega) {
		mc := managedClusterOf(g, ctx)
		g.Expect(meta.IsStatusConditionTrue(mc.Status.Conditions, clusterv1.ManagedClusterConditionJoined)).To(BeTrue())
		g.Expect(meta.IsStatusConditionTrue(mc.Status.Conditions, clusterv1.ManagedClusterConditionAvailable)).To(BeTrue())
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	first := leaseRenewed(ctx)
	Eventually(func() time.Time { return leaseRenewed(ctx) }).WithContext(ctx).WithTimeout(timeout).Should(BeTemporally(">", first))
	_, err := managedKube.CoreV1().Secrets(charts.AgentNamespace).Get(ctx, "hub-kubeconfig-secret", metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	l, err := managedKube.CoordinationV1().Leases(charts.AgentNamespace).Get(ctx, corralagent.LeaseName, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	Expect(l.Spec.HolderIdentity).NotTo(BeNil(), "the agent's own leader election")
}

// createReadyNode creates a Ready node with some capacity on the managed
// cluster.
func createReadyNode(ctx context.Context, name string) {
	GinkgoHelper()
	node, err := managedKube.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	resources := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("110")}
	node.Status.Capacity, node.Status.Allocatable = resources, resources
	node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}}
	_, err = managedKube.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{})
	Expect(err).NotTo(HaveOccurred())
}

func managedClusterOf(g Gomega, ctx context.Context) *clusterv1.ManagedCluster {
	mc := &clusterv1.ManagedCluster{}
	g.Expect(hubAdmin.Get(ctx, client.ObjectKey{Name: clusterName}, mc)).To(Succeed())
	return mc
}

// leaseRenewed is when the agent last renewed the cluster's lease on the
// hub.
func leaseRenewed(ctx context.Context) time.Time {
	GinkgoHelper()
	l := &coordinationv1.Lease{}
	Expect(hubAdmin.Get(ctx, client.ObjectKey{Namespace: clusterName, Name: common.LeaseName}, l)).To(Succeed())
	Expect(l.Spec.RenewTime).NotTo(BeNil())
	return l.Spec.RenewTime.Time
}

// enableAddons enables every built-in addon with an agent half, as
// `corral addon enable` does, and waits for what each one's halves
// report. A hub-only addon (propagation) is enabled on no cluster.
func enableAddons(ctx context.Context) {
	names := addons.Names(addons.WithAgents(builtin.All()))
	Expect(addoncli.WaitForAddons(ctx, hubAdmin, names, timeout)).To(Succeed())
	Eventually(func(g Gomega) {
		_, err := addoncli.Enable(ctx, hubAdmin, names, []clusterv1.ManagedCluster{*managedClusterOf(g, ctx)}, addoncli.EnableSpec{})
		g.Expect(err).NotTo(HaveOccurred())
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

	By("every addon Available")
	for _, name := range names {
		Eventually(func(g Gomega) {
			mca := &addonv1alpha1.ManagedClusterAddOn{}
			g.Expect(hubAdmin.Get(ctx, client.ObjectKey{Namespace: clusterName, Name: name}, mca)).To(Succeed())
			available := meta.FindStatusCondition(mca.Status.Conditions, addonv1alpha1.ManagedClusterAddOnConditionAvailable)
			g.Expect(available).NotTo(BeNil())
			g.Expect(available.Status).To(Equal(metav1.ConditionTrue), available.Message)
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed(), name)
	}

	By("properties: ClusterClaims on the managed cluster, reported into the ManagedCluster and its ClusterProfile")
	Eventually(func(g Gomega) {
		claims := map[string]string{}
		for _, c := range managedClusterOf(g, ctx).Status.ClusterClaims {
			claims[c.Name] = c.Value
		}
		g.Expect(claims).To(HaveKeyWithValue(propertiesapi.ClaimNodes, "1"))
		g.Expect(claims).To(HaveKey(propertiesapi.ClaimKubeVersion))
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	Expect(managedAdmin.Get(ctx, client.ObjectKey{Name: propertiesapi.ClaimNodes}, &clusterv1alpha1.ClusterClaim{})).To(Succeed())
	Eventually(func() error {
		return hubAdmin.Get(ctx, client.ObjectKey{Namespace: clusterprofile.DefaultNamespace, Name: clusterName}, &cpv1alpha1.ClusterProfile{})
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

	By("placement: the cluster's AddOnPlacementScore")
	Eventually(func(g Gomega) {
		s := &clusterv1alpha1.AddOnPlacementScore{}
		g.Expect(hubAdmin.Get(ctx, client.ObjectKey{Namespace: clusterName, Name: placementapi.ScoreName}, s)).To(Succeed())
		g.Expect(s.Status.Scores).NotTo(BeEmpty())
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

	By("health: the cluster Healthy")
	Eventually(func(g Gomega) {
		healthy := meta.FindStatusCondition(managedClusterOf(g, ctx).Status.Conditions, healthapi.ConditionHealthy)
		g.Expect(healthy).NotTo(BeNil())
		g.Expect(healthy.Status).To(Equal(metav1.ConditionTrue), healthy.Message)
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}

// applyManifestWork sends a ConfigMap in a ManifestWork and waits for it
// on the managed cluster and for the work's status on the hub.
func applyManifestWork(ctx context.Context) {
	Expect(hubAdmin.Create(ctx, builder.Work(clusterName, "lp-work").Manifests(configMap("lp-work")).Obj())).To(Succeed())
	Eventually(func() error {
		_, err := managedKube.CoreV1().ConfigMaps("default").Get(ctx, "lp-work", metav1.GetOptions{})
		return err
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	Eventually(func(g Gomega) {
		w := &workv1.ManifestWork{}
		g.Expect(hubAdmin.Get(ctx, client.ObjectKey{Namespace: clusterName, Name: "lp-work"}, w)).To(Succeed())
		g.Expect(meta.IsStatusConditionTrue(w.Status.Conditions, workv1.WorkApplied)).To(BeTrue())
		g.Expect(meta.IsStatusConditionTrue(w.Status.Conditions, workv1.WorkAvailable)).To(BeTrue())
		g.Expect(w.Status.ResourceStatus.Manifests).To(HaveLen(1))
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}

// configMap is a manifest of the ConfigMap default/name.
func configMap(name string) workv1.Manifest {
	GinkgoHelper()
	raw, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"namespace": "default", "name": name}, "data": map[string]string{"from": "the hub"}})
	Expect(err).NotTo(HaveOccurred())
	return workv1.Manifest{RawExtension: runtime.RawExtension{Raw: raw}}
}

// fanOut places the cluster with a Placement over the default set and
// fans a ManifestWorkReplicaSet out to it, applied as a service account of
// the managed cluster: the hub must hold execute-as for its own
// ManifestWork to pass the work webhook, and the agent impersonates the
// executor.
func fanOut(ctx context.Context) {
	Expect(hubAdmin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: appsNamespace}})).To(Succeed())
	Expect(hubAdmin.Create(ctx, &clusterv1beta2.ManagedClusterSetBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: appsNamespace, Name: "default"},
		Spec:       clusterv1beta2.ManagedClusterSetBindingSpec{ClusterSet: "default"},
	})).To(Succeed())
	Expect(hubAdmin.Create(ctx, builder.Placement(appsNamespace, "all").Obj())).To(Succeed())

	By("the placement deciding on the cluster")
	Eventually(func(g Gomega) {
		list := &clusterv1beta1.PlacementDecisionList{}
		g.Expect(hubAdmin.List(ctx, list, client.InNamespace(appsNamespace), client.MatchingLabels{clusterv1beta1.PlacementLabel: "all"})).To(Succeed())
		var decided []string
		for _, d := range list.Items {
			for _, c := range d.Status.Decisions {
				decided = append(decided, c.ClusterName)
			}
		}
		g.Expect(decided).To(ConsistOf(clusterName))
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

	By("the executor on the managed cluster, allowed ConfigMaps in default")
	Expect(managedAdmin.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: executor}})).To(Succeed())
	Expect(managedAdmin.Create(ctx, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: executor},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}}},
	})).To(Succeed())
	Expect(managedAdmin.Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: executor},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: executor},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: "default", Name: executor}},
	})).To(Succeed())

	By("the ManifestWorkReplicaSet's work on the cluster, applied and summed up")
	template := builder.Work("", "").Manifests(configMap("lp-fanout")).Executor("default", executor).Obj().Spec
	set := &workv1alpha1.ManifestWorkReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: appsNamespace, Name: "lp-fanout"},
		Spec:       workv1alpha1.ManifestWorkReplicaSetSpec{ManifestWorkTemplate: template, PlacementRefs: []workv1alpha1.LocalPlacementReference{{Name: "all"}}},
	}
	Expect(hubAdmin.Create(ctx, set)).To(Succeed())
	Eventually(func() error {
		_, err := managedKube.CoreV1().ConfigMaps("default").Get(ctx, "lp-fanout", metav1.GetOptions{})
		return err
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	Eventually(func(g Gomega) {
		g.Expect(hubAdmin.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
		g.Expect(set.Status.Summary.Applied).To(Equal(1))
		g.Expect(set.Status.Summary.Available).To(Equal(1))
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}

// noRefusals checks every line the hub, the agent and their libraries
// logged, and every status they wrote, for an API server's refusal: a rule
// the charts lack shows up as one or the other.
func noRefusals(ctx context.Context) {
	lines := logs.since(logsFrom)
	Expect(len(lines)).To(BeNumerically(">", 100), "the recorder hears the hub and the agent")
	Expect(denials(lines)).To(BeEmpty())

	var statuses []any
	mc := &clusterv1.ManagedCluster{}
	Expect(hubAdmin.Get(ctx, client.ObjectKey{Name: clusterName}, mc)).To(Succeed())
	statuses = append(statuses, mc.Status)
	mcas := &addonv1alpha1.ManagedClusterAddOnList{}
	Expect(hubAdmin.List(ctx, mcas, client.InNamespace(clusterName))).To(Succeed())
	for _, a := range mcas.Items {
		statuses = append(statuses, a.Status)
	}
	works := &workv1.ManifestWorkList{}
	Expect(hubAdmin.List(ctx, works, client.InNamespace(clusterName))).To(Succeed())
	for _, w := range works.Items {
		statuses = append(statuses, w.Status)
	}
	reports := &corev1.ConfigMapList{}
	Expect(hubAdmin.List(ctx, reports, client.InNamespace(clusterName))).To(Succeed())
	for _, r := range reports.Items {
		statuses = append(statuses, r.Data)
	}
	sets := &workv1alpha1.ManifestWorkReplicaSetList{}
	Expect(hubAdmin.List(ctx, sets, client.InNamespace(appsNamespace))).To(Succeed())
	for _, s := range sets.Items {
		statuses = append(statuses, s.Status)
	}
	Expect(len(statuses)).To(BeNumerically(">=", 1+4+2))
	for _, s := range statuses {
		b, err := json.Marshal(s)
		Expect(err).NotTo(HaveOccurred())
		Expect(denial.FindString(string(b))).To(BeEmpty(), string(b))
	}
}

// deleteCluster deletes the ManagedCluster as a hub admin: the hub
// removes its addons, works (the agent removes what they applied), RBAC,
// ClusterProfile and namespace. The agent, its identity revoked, records
// so in an Event and asks to join again with the bootstrap kubeconfig.
// Refusals of the revoked identity are expected now; the ServiceAccounts'
// are not.
func deleteCluster(ctx context.Context) {
	mc := &clusterv1.ManagedCluster{}
	Expect(hubAdmin.Get(ctx, client.ObjectKey{Name: clusterName}, mc)).To(Succeed())
	Expect(hubAdmin.Delete(ctx, mc)).To(Succeed())

	By("what the works applied gone from the managed cluster")
	for _, name := range []string{"lp-work", "lp-fanout"} {
		Eventually(func() bool {
			_, err := managedKube.CoreV1().ConfigMaps("default").Get(ctx, name, metav1.GetOptions{})
			return apierrors.IsNotFound(err)
		}).WithContext(ctx).WithTimeout(timeout).Should(BeTrue(), name)
	}
	By("the cluster's namespace, ClusterRole and ClusterProfile gone from the hub")
	for _, obj := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: clusterName}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "open-cluster-management:managedcluster:" + clusterName}},
		&cpv1alpha1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Namespace: clusterprofile.DefaultNamespace, Name: clusterName}},
	} {
		Eventually(func() bool {
			return apierrors.IsNotFound(hubAdmin.Get(ctx, client.ObjectKeyFromObject(obj), obj))
		}).WithContext(ctx).WithTimeout(timeout).Should(BeTrue(), "%T %s", obj, obj.GetName())
	}
	By("the agent recording its rejection and asking to join again")
	Eventually(func(g Gomega) {
		again := managedClusterOf(g, ctx)
		g.Expect(again.UID).NotTo(Equal(mc.UID))
		g.Expect(again.Spec.HubAcceptsClient).To(BeFalse())
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	events, err := managedKube.CoreV1().Events(charts.AgentNamespace).List(ctx, metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	var reasons []string
	for _, e := range events.Items {
		reasons = append(reasons, e.Reason)
	}
	Expect(reasons).To(ContainElement(regagent.ReasonHubKubeconfigRejected))

	Expect(denials(logs.since(logsFrom), hubUser, agentUser)).To(BeEmpty())
}

// stopHubAndAgent stops the agent, then the hub, each within a minute.
// The agent returns its context's end as an error: that is a clean stop.
func stopHubAndAgent() {
	for _, stop := range []func(time.Duration) error{stopAgent, stopHub} {
		if stop == nil {
			continue
		}
		if err := stop(time.Minute); !errors.Is(err, context.Canceled) {
			Expect(err).NotTo(HaveOccurred())
		}
	}
}
