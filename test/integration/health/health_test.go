package health_test

import (
	"context"
	"fmt"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/addons/settings"
	"github.com/corral-dev/corral/health/agent"
	"github.com/corral-dev/corral/health/api"
)

func objectMeta(ns, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: ns, Name: name}
}

func namespace(name string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: objectMeta("", name)}
}

// baseVars probe every second, count a cluster stale after 10s without a
// report and want three quarters of the nodes Ready; extra (name, value
// pairs) adds or replaces variables.
func baseVars(extra ...string) []addonv1alpha1.CustomizedVariable {
	vars := []addonv1alpha1.CustomizedVariable{
		{Name: api.VarProbeInterval, Value: "1s"},
		{Name: api.VarStaleAfter, Value: "10s"},
		{Name: api.VarMinReadyNodeShare, Value: "0.75"},
	}
	for i := 0; i+1 < len(extra); i += 2 {
		v := addonv1alpha1.CustomizedVariable{Name: extra[i], Value: extra[i+1]}
		if j := slices.IndexFunc(vars, func(have addonv1alpha1.CustomizedVariable) bool { return have.Name == v.Name }); j >= 0 {
			vars[j] = v
		} else {
			vars = append(vars, v)
		}
	}
	return vars
}

// setVars replaces the config's variables, and puts the base ones back
// when the spec ends.
func setVars(ctx context.Context, vars []addonv1alpha1.CustomizedVariable) {
	GinkgoHelper()
	set := func(ctx context.Context, vars []addonv1alpha1.CustomizedVariable) {
		Eventually(func(g Gomega) {
			adc := &addonv1alpha1.AddOnDeploymentConfig{}
			g.Expect(hubClient.Get(ctx, types.NamespacedName{Namespace: clusterName, Name: configName}, adc)).To(Succeed())
			adc.Spec.CustomizedVariables = vars
			g.Expect(hubClient.Update(ctx, adc)).To(Succeed())
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	}
	set(ctx, vars)
	DeferCleanup(func(ctx context.Context) { set(ctx, baseVars()) })
}

// healthOf is the cluster's Healthy condition and whether it is tainted.
func healthOf(g Gomega, ctx context.Context) (*metav1.Condition, bool) {
	mc := &clusterv1.ManagedCluster{}
	g.Expect(hubClient.Get(ctx, types.NamespacedName{Name: clusterName}, mc)).To(Succeed())
	tainted := false
	for _, t := range mc.Spec.Taints {
		tainted = tainted || (t.Key == api.TaintUnhealthy && t.Effect == clusterv1.TaintEffectNoSelect)
	}
	return meta.FindStatusCondition(mc.Status.Conditions, api.ConditionHealthy), tainted
}

// expectHealth waits for the condition's status, a reason and message
// saying so, and the taint exactly while it is False.
func expectHealth(ctx context.Context, status metav1.ConditionStatus, reason string, message ...string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		cond, tainted := healthOf(g, ctx)
		g.Expect(cond).NotTo(BeNil())
		g.Expect(cond.Status).To(Equal(status), cond.Message)
		g.Expect(cond.Reason).To(Equal(reason), cond.Message)
		for _, m := range message {
			g.Expect(cond.Message).To(ContainSubstring(m))
		}
		g.Expect(tainted).To(Equal(status == metav1.ConditionFalse), "the unhealthy taint is there exactly while the cluster is unhealthy")
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}

func createNodes(ctx context.Context, n int) []*corev1.Node {
	GinkgoHelper()
	var nodes []*corev1.Node
	for i := range n {
		node := &corev1.Node{ObjectMeta: objectMeta("", fmt.Sprintf("node-%d", i)), Status: corev1.NodeStatus{
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady"}},
		}}
		Expect(managed.Create(ctx, node)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(client.IgnoreNotFound(managed.Delete(ctx, node))).To(Succeed()) })
		nodes = append(nodes, node)
	}
	return nodes
}

func setReady(ctx context.Context, node *corev1.Node, ready corev1.ConditionStatus) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		g.Expect(managed.Get(ctx, client.ObjectKeyFromObject(node), node)).To(Succeed())
		node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready, Reason: "Test"}}
		g.Expect(managed.Status().Update(ctx, node)).To(Succeed())
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}

// expectWaiting waits until the running agent's last wait is of the
// order of interval: at most interval and its jitter, and more than half
// of it (the wait may have been woken, by the change to interval, some
// way into a shorter one, and counts from its start).
func expectWaiting(ctx context.Context, interval time.Duration) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		waits := agentClock.Waits()
		g.Expect(waits).NotTo(BeEmpty())
		last := waits[len(waits)-1]
		g.Expect(last).To(And(BeNumerically(">", interval/2), BeNumerically("<=", interval+time.Duration(agent.Jitter*float64(interval)))), "last of %d waits", len(waits))
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}

func configCondition(g Gomega, ctx context.Context) *metav1.Condition {
	mca := &addonv1alpha1.ManagedClusterAddOn{}
	g.Expect(hubClient.Get(ctx, types.NamespacedName{Namespace: clusterName, Name: api.AddonName}, mca)).To(Succeed())
	return meta.FindStatusCondition(mca.Status.Conditions, settings.ConditionConfigValid)
}

var _ = Describe("health", func() {
	It("reports the share of Ready nodes: a node NotReady drops it, below the threshold the cluster is unhealthy and tainted, and recovers", func(ctx context.Context) {
		nodes := createNodes(ctx, 4)
		expectHealth(ctx, metav1.ConditionTrue, api.ReasonHealthy, "API server live and ready", "4/4 nodes Ready")

		By("one node NotReady: the share drops and is reported, still above 75%")
		setReady(ctx, nodes[0], corev1.ConditionFalse)
		expectHealth(ctx, metav1.ConditionTrue, api.ReasonHealthy, "3/4 nodes Ready (75%), not Ready: node-0")
		Eventually(func(g Gomega) {
			cm := &corev1.ConfigMap{}
			g.Expect(hubClient.Get(ctx, types.NamespacedName{Namespace: clusterName, Name: api.ReportName}, cm)).To(Succeed())
			g.Expect(cm.Data).To(HaveKeyWithValue("report.json", And(ContainSubstring(`"total":4`), ContainSubstring(`"ready":3`))))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		By("two NotReady: below the threshold")
		setReady(ctx, nodes[1], corev1.ConditionFalse)
		expectHealth(ctx, metav1.ConditionFalse, api.ReasonNodesNotReady, "2/4 nodes Ready (50%)", "below the 75% required")

		By("Ready again")
		setReady(ctx, nodes[0], corev1.ConditionTrue)
		setReady(ctx, nodes[1], corev1.ConditionTrue)
		expectHealth(ctx, metav1.ConditionTrue, api.ReasonHealthy, "4/4 nodes Ready")
	})

	It("marks a cluster whose API server is unreachable unhealthy and taints it, and untaints it when it is back", func(ctx context.Context) {
		expectHealth(ctx, metav1.ConditionTrue, api.ReasonHealthy)
		Expect(apiProxy.Cut()).To(Succeed())
		expectHealth(ctx, metav1.ConditionFalse, api.ReasonAPIServerNotLive, "API server not live", "API server not ready")
		Expect(apiProxy.Restore()).To(Succeed())
		expectHealth(ctx, metav1.ConditionTrue, api.ReasonHealthy)
	})

	It("marks a cluster whose reports stop arriving unhealthy after staleAfter, and healthy when they come again", func(ctx context.Context) {
		expectHealth(ctx, metav1.ConditionTrue, api.ReasonHealthy)
		Expect(stopAgent(timeout)).To(Succeed())
		expectHealth(ctx, metav1.ConditionFalse, api.ReasonReportStale, "no health report since", "more than 10s ago")
		startAgent()
		expectHealth(ctx, metav1.ConditionTrue, api.ReasonHealthy)
	})

	It("checks the listed workloads are Available", func(ctx context.Context) {
		setVars(ctx, baseVars(api.VarWorkloads, "Deployment/default/web"))
		expectHealth(ctx, metav1.ConditionFalse, api.ReasonWorkloadsUnavailable, "Deployment/default/web not Available", "not found")

		By("the Deployment Available")
		labels := map[string]string{"app": "web"}
		d := &appsv1.Deployment{ObjectMeta: objectMeta("default", "web"), Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}},
		}}
		Expect(managed.Create(ctx, d)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(client.IgnoreNotFound(managed.Delete(ctx, d))).To(Succeed()) })
		// No controller runs on this API server: the test is the controller.
		d.Status = appsv1.DeploymentStatus{Replicas: 1, UpdatedReplicas: 1, ReadyReplicas: 1, AvailableReplicas: 1, Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable"}}}
		Expect(managed.Status().Update(ctx, d)).To(Succeed())
		expectHealth(ctx, metav1.ConditionTrue, api.ReasonHealthy, "1 workloads Available")
	})

	It("follows a new probe interval at once, without a restart", func(ctx context.Context) {
		nodes := createNodes(ctx, 4)
		expectHealth(ctx, metav1.ConditionTrue, api.ReasonHealthy, "4/4 nodes Ready")

		By("probing every hour: the agent waits an hour")
		setVars(ctx, baseVars(api.VarProbeInterval, "1h", api.VarStaleAfter, "3h"))
		expectWaiting(ctx, time.Hour)

		By("a node NotReady during that hour, and probing every second again: the wait under way ends, and the agent reports it")
		setReady(ctx, nodes[0], corev1.ConditionFalse)
		setVars(ctx, baseVars())
		expectHealth(ctx, metav1.ConditionTrue, api.ReasonHealthy, "3/4 nodes Ready (75%), not Ready: node-0")
	})

	It("rejects a bad config with a message saying what is wrong, and keeps the last valid settings", func(ctx context.Context) {
		Eventually(func(g Gomega) {
			cond := configCondition(g, ctx)
			g.Expect(cond).NotTo(BeNil())
			g.Expect(cond.Status).To(Equal(metav1.ConditionTrue), cond.Message)
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		setVars(ctx, baseVars(api.VarWorkloads, "StatefulSet/db/postgres", api.VarProbeInterval, "-5s"))
		Eventually(func(g Gomega) {
			cond := configCondition(g, ctx)
			g.Expect(cond).NotTo(BeNil())
			g.Expect(cond.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(cond.Reason).To(Equal(settings.ReasonConfigInvalid))
			g.Expect(cond.Message).To(And(
				ContainSubstring(`probeInterval "-5s" is not a positive duration`),
				ContainSubstring(`"StatefulSet/db/postgres" has kind "StatefulSet", which is not supported: use Deployment or DaemonSet`),
			))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		By("the agent goes on with the last valid settings")
		cm := &corev1.ConfigMap{}
		Expect(hubClient.Get(ctx, types.NamespacedName{Namespace: clusterName, Name: api.ConfigName}, cm)).To(Succeed())
		Expect(cm.Data["report.json"]).To(And(ContainSubstring(`"probeInterval":"1s"`), Not(ContainSubstring("StatefulSet"))))
		expectHealth(ctx, metav1.ConditionTrue, api.ReasonHealthy)
	})
})
