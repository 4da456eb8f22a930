// Package health_test runs the health addon's two halves against two real
// API servers: the agent (agent.Run, with no more than the addon's
// HubRules on the hub) probing a managed cluster through a proxy the
// suite can cut, and the hub half as `corral hub --addons health` runs it
// (the addon manager with the lifecycle, which resolves the addon's
// AddOnDeploymentConfig, and the addon's SetupHub), without the
// registration controllers.
package health_test

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/dev/localcluster"
	"github.com/corral-dev/corral/health"
	"github.com/corral-dev/corral/health/agent"
	"github.com/corral-dev/corral/health/api"
	"github.com/corral-dev/corral/internal/testenv"
)

func TestHealth(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "health addon")
}

const (
	timeout     = 60 * time.Second
	clusterName = "cluster1"
	configName  = "health-settings"
)

var (
	hubCluster, managedCluster *localcluster.Cluster
	hubClient, managed         client.Client
	kube                       kubernetes.Interface
	// identity is the addon agent's hub identity.
	identity *rest.Config
	// apiProxy stands between the agent and the managed API server.
	apiProxy *proxy
	// stopAgent stops the running agent.
	stopAgent func(time.Duration) error
	// agentClock is the running agent's: the real clock, recording the
	// agent's waits.
	agentClock *testenv.WaitsClock
)

var _ = BeforeSuite(func(ctx context.Context) {
	ctrl.SetLogger(GinkgoLogr)
	var err error
	hubCluster, managedCluster = testenv.HubAndManaged(ctx)

	hubClient = testenv.MustClient(hubCluster.Config)
	managed = testenv.MustClient(managedCluster.Config)
	kube = kubernetes.NewForConfigOrDie(hubCluster.Config)

	By("registering the cluster, and enabling the addon with a config that probes every second")
	Expect(hubClient.Create(ctx, &clusterv1.ManagedCluster{ObjectMeta: objectMeta("", clusterName), Spec: clusterv1.ManagedClusterSpec{HubAcceptsClient: true}})).To(Succeed())
	Expect(hubClient.Create(ctx, namespace(clusterName))).To(Succeed())
	Expect(hubClient.Create(ctx, &addonv1alpha1.AddOnDeploymentConfig{ObjectMeta: objectMeta(clusterName, configName), Spec: addonv1alpha1.AddOnDeploymentConfigSpec{
		CustomizedVariables: baseVars(),
	}})).To(Succeed())
	Expect(hubClient.Create(ctx, &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: objectMeta(clusterName, api.AddonName), Spec: addonv1alpha1.ManagedClusterAddOnSpec{
		Configs: []addonv1alpha1.AddOnConfig{{
			ConfigGroupResource: addonv1alpha1.ConfigGroupResource{Group: addonv1alpha1.GroupName, Resource: "addondeploymentconfigs"},
			ConfigReferent:      addonv1alpha1.ConfigReferent{Namespace: clusterName, Name: configName},
		}},
	}})).To(Succeed())

	By("running the hub half as corral hub does")
	testenv.RunHub(testenv.AddonHubOptions(hubCluster.Config, health.Addon()))

	By("running the agent as the addon's hub identity, through a proxy to the managed API server")
	identity, err = testenv.AddonIdentity(ctx, hubCluster.Config, clusterName, health.Addon())
	Expect(err).NotTo(HaveOccurred())
	apiProxy, err = startProxy(managedCluster.Config.Host)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(apiProxy.Close)
	startAgent()
	DeferCleanup(func() { Expect(stopAgent(timeout)).To(Succeed()) })
}, NodeTimeout(localcluster.DefaultStartTimeout+120e9))

// startAgent runs the agent, on agentClock, until stopAgent.
func startAgent() {
	probed := rest.CopyConfig(managedCluster.Config)
	probed.Host = apiProxy.URL()
	agentClock = &testenv.WaitsClock{WithTicker: clock.RealClock{}}
	clk := agentClock
	stopAgent = testenv.Go(context.Background(), func(ctx context.Context) error {
		return agent.Run(ctx, agent.Options{ClusterName: clusterName, Hub: identity, Managed: probed, Clock: clk})
	})
}
