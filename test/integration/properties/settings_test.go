package properties_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	clocktesting "k8s.io/utils/clock/testing"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"

	"github.com/corral-dev/corral/addons/configmapchannel"
	"github.com/corral-dev/corral/addons/settings"
	"github.com/corral-dev/corral/internal/testenv"
	"github.com/corral-dev/corral/properties"
	"github.com/corral-dev/corral/properties/agent"
	"github.com/corral-dev/corral/properties/api"
)

// settingsConfig is the AddOnDeploymentConfig of a settings spec's cluster.
const settingsConfig = "properties-settings"

// enableWithConfig registers a cluster of its own and enables the addon
// on it with an AddOnDeploymentConfig of vars (name, value pairs), as
// `corral addon enable properties --config` does; it returns the
// cluster's name.
func enableWithConfig(ctx context.Context, vars ...string) string {
	GinkgoHelper()
	name := "settings-" + rand.String(5)
	Expect(hubClient.Create(ctx, newCluster(name))).To(Succeed())
	Expect(hubClient.Create(ctx, &corev1.Namespace{ObjectMeta: objectMeta("", name)})).To(Succeed())
	Expect(hubClient.Create(ctx, &addonv1alpha1.AddOnDeploymentConfig{ObjectMeta: objectMeta(name, settingsConfig), Spec: addonv1alpha1.AddOnDeploymentConfigSpec{
		CustomizedVariables: customizedVariables(vars...),
	}})).To(Succeed())
	Expect(hubClient.Create(ctx, &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: objectMeta(name, api.AddonName), Spec: addonv1alpha1.ManagedClusterAddOnSpec{
		Configs: []addonv1alpha1.AddOnConfig{{
			ConfigGroupResource: addonv1alpha1.ConfigGroupResource{Group: addonv1alpha1.GroupName, Resource: "addondeploymentconfigs"},
			ConfigReferent:      addonv1alpha1.ConfigReferent{Namespace: name, Name: settingsConfig},
		}},
	}})).To(Succeed())
	return name
}

func customizedVariables(kv ...string) []addonv1alpha1.CustomizedVariable {
	var out []addonv1alpha1.CustomizedVariable
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, addonv1alpha1.CustomizedVariable{Name: kv[i], Value: kv[i+1]})
	}
	return out
}

// setVars replaces the variables of cluster's config.
func setVars(ctx context.Context, cluster string, vars ...string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		adc := &addonv1alpha1.AddOnDeploymentConfig{}
		g.Expect(hubClient.Get(ctx, types.NamespacedName{Namespace: cluster, Name: settingsConfig}, adc)).To(Succeed())
		adc.Spec.CustomizedVariables = customizedVariables(vars...)
		g.Expect(hubClient.Update(ctx, adc)).To(Succeed())
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}

// expectConfigValid waits for the addon's ConfigValid condition on
// cluster to have status and reason and say message.
func expectConfigValid(ctx context.Context, cluster string, status metav1.ConditionStatus, reason string, message ...string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		mca := &addonv1alpha1.ManagedClusterAddOn{}
		g.Expect(hubClient.Get(ctx, types.NamespacedName{Namespace: cluster, Name: api.AddonName}, mca)).To(Succeed())
		cond := meta.FindStatusCondition(mca.Status.Conditions, settings.ConditionConfigValid)
		g.Expect(cond).NotTo(BeNil())
		g.Expect(cond.Status).To(Equal(status), cond.Message)
		g.Expect(cond.Reason).To(Equal(reason), cond.Message)
		for _, m := range message {
			g.Expect(cond.Message).To(ContainSubstring(m))
		}
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}

// storedInterval is the interval in cluster's settings ConfigMap.
func storedInterval(g Gomega, ctx context.Context, cluster string) time.Duration {
	var s api.Settings
	found, err := configmapchannel.Read(ctx, kube, cluster, api.ConfigName, &s)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(found).To(BeTrue(), "no settings ConfigMap")
	return s.CollectInterval.Duration
}

// expectSettingsGone waits until cluster has no settings ConfigMap.
func expectSettingsGone(ctx context.Context, cluster string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		var s api.Settings
		found, err := configmapchannel.Read(ctx, kube, cluster, api.ConfigName, &s)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(found).To(BeFalse(), "the settings ConfigMap is still there")
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}

// maxWait is the longest wait of interval, with jitter.
func maxWait(interval time.Duration) time.Duration {
	return interval + time.Duration(agent.Jitter*float64(interval))
}

// expectWaiting waits until the agent's last wait is interval, with
// jitter, and returns how many waits it started.
func expectWaiting(ctx context.Context, clk *testenv.WaitsClock, interval time.Duration) int {
	GinkgoHelper()
	var n int
	Eventually(func(g Gomega) {
		waits := clk.Waits()
		g.Expect(waits).NotTo(BeEmpty())
		g.Expect(waits[len(waits)-1]).To(And(BeNumerically(">=", interval), BeNumerically("<=", maxWait(interval))), "waits %v", waits)
		n = len(waits)
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	return n
}

var _ = Describe("the addon's settings", func() {
	It("resolves the addon's AddOnDeploymentConfig into its settings, which the agent follows at once", func(ctx context.Context) {
		name := enableWithConfig(ctx, api.VarCollectInterval, "7s")
		expectConfigValid(ctx, name, metav1.ConditionTrue, settings.ReasonConfigValid, "collecting every 7s")
		Eventually(func(g Gomega) {
			g.Expect(storedInterval(g, ctx, name)).To(Equal(7 * time.Second))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		By("an agent, on a clock the test moves, collecting every 7s as its settings say")
		identity, err := testenv.AddonIdentity(ctx, hubCluster.Config, name, properties.Addon())
		Expect(err).NotTo(HaveOccurred())
		fake := clocktesting.NewFakeClock(time.Now())
		clk := &testenv.WaitsClock{WithTicker: fake}
		stop := testenv.Go(context.Background(), func(ctx context.Context) error {
			return agent.Run(ctx, agent.Options{ClusterName: name, Hub: identity, Managed: managedCluster.Config, Clock: clk})
		})
		DeferCleanup(func() { Expect(stop(timeout)).To(Succeed()) })
		expectWaiting(ctx, clk, 7*time.Second)
		Eventually(func(g Gomega) {
			g.Expect(cluster(g, ctx, name).Status.Version.Kubernetes).NotTo(BeEmpty(), "the agent reported")
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		By("a shorter interval: the wait under way follows it, with no restart")
		setVars(ctx, name, api.VarCollectInterval, "5s")
		expectConfigValid(ctx, name, metav1.ConditionTrue, settings.ReasonConfigValid, "collecting every 5s")
		waits := expectWaiting(ctx, clk, 5*time.Second)

		By("5s and its jitter later (not 7s), the agent collects and waits 5s again")
		fake.Step(maxWait(5 * time.Second))
		Eventually(func(g Gomega) {
			g.Expect(len(clk.Waits())).To(BeNumerically(">", waits))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		expectWaiting(ctx, clk, 5*time.Second)
	})

	It("deletes the settings once the addon is disabled on the cluster", func(ctx context.Context) {
		name := enableWithConfig(ctx, api.VarCollectInterval, "7s")
		Eventually(func(g Gomega) {
			g.Expect(storedInterval(g, ctx, name)).To(Equal(7 * time.Second))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		Expect(hubClient.Delete(ctx, &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: objectMeta(name, api.AddonName)})).To(Succeed())
		expectSettingsGone(ctx, name)
	})

	It("deletes settings left in a namespace with no addon, as a hub down while the addon was disabled leaves them", func(ctx context.Context) {
		name := "left-" + rand.String(5)
		Expect(hubClient.Create(ctx, &corev1.Namespace{ObjectMeta: objectMeta("", name)})).To(Succeed())
		Expect(configmapchannel.Write(ctx, kube, name, api.ConfigName, api.AddonName, api.DefaultSettings())).To(Succeed())
		expectSettingsGone(ctx, name)
	})

	It("refuses a bad config with a message saying what is wrong, and keeps the last valid settings", func(ctx context.Context) {
		name := enableWithConfig(ctx, api.VarCollectInterval, "7s")
		expectConfigValid(ctx, name, metav1.ConditionTrue, settings.ReasonConfigValid, "collecting every 7s")

		setVars(ctx, name, api.VarCollectInterval, "1s", "probeInterval", "10s")
		expectConfigValid(ctx, name, metav1.ConditionFalse, settings.ReasonConfigInvalid,
			"AddOnDeploymentConfig "+name+"/"+settingsConfig+" is not valid, keeping the last valid settings",
			"collectInterval 1s is shorter than 5s")
		Eventually(func(g Gomega) {
			g.Expect(storedInterval(g, ctx, name)).To(Equal(7 * time.Second))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		By("a valid config again")
		setVars(ctx, name, api.VarCollectInterval, "10m")
		expectConfigValid(ctx, name, metav1.ConditionTrue, settings.ReasonConfigValid, "collecting every 10m0s")
		Eventually(func(g Gomega) {
			g.Expect(storedInterval(g, ctx, name)).To(Equal(10 * time.Minute))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	})
})
