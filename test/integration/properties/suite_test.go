// Package properties_test runs the properties addon's two halves against
// two real API servers: the agent (agent.Run, with no more than the
// addon's HubRules on the hub) collecting from a managed cluster and
// reporting into its cluster namespace, and the hub half as `corral hub`
// --addons properties runs it (the addon manager with the lifecycle, which
// resolves the addon's AddOnDeploymentConfig, and the addon's SetupHub;
// no registration controllers)
// reflecting the report into the ManagedCluster, keeping ClusterProfiles
// and resolving the addon's settings.
package properties_test

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/deploy/charts/corral-hub/crds"
	"github.com/corral-dev/corral/dev/localcluster"
	"github.com/corral-dev/corral/internal/testenv"
	"github.com/corral-dev/corral/properties"
	"github.com/corral-dev/corral/properties/agent"
	"github.com/corral-dev/corral/properties/api"
)

func TestProperties(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "properties addon")
}

const (
	timeout     = 60 * time.Second
	clusterName = "cluster1"
	// profileNamespace is not the default: the namespace is configurable.
	profileNamespace = "inventory"
	interval         = time.Second
)

var (
	hubCluster, managedCluster *localcluster.Cluster
	hubClient, managed         client.Client
	kube                       kubernetes.Interface
)

var _ = BeforeSuite(func(ctx context.Context) {
	ctrl.SetLogger(GinkgoLogr)
	var err error
	hubCluster, managedCluster = testenv.HubAndManaged(ctx)
	Expect(crds.Install(ctx, managedCluster.Config, properties.ClusterClaimCRD)).To(Succeed())

	hubClient = testenv.MustClient(hubCluster.Config)
	kube = kubernetes.NewForConfigOrDie(hubCluster.Config)
	managed = testenv.MustClient(managedCluster.Config)

	By("registering the cluster and enabling the addon on it")
	Expect(hubClient.Create(ctx, newCluster(clusterName))).To(Succeed())
	Expect(hubClient.Create(ctx, &corev1.Namespace{ObjectMeta: objectMeta("", clusterName)})).To(Succeed())
	Expect(hubClient.Create(ctx, &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: objectMeta(clusterName, api.AddonName)})).To(Succeed())

	By("running the hub half as corral hub --cluster-profile-namespace does")
	o := testenv.AddonHubOptions(hubCluster.Config, properties.Addon())
	flags := pflag.NewFlagSet("corral hub", pflag.ContinueOnError)
	o.AddFlags(flags)
	Expect(flags.Parse([]string{"--cluster-profile-namespace", profileNamespace})).To(Succeed())
	testenv.RunHub(o)

	By("running the agent as the addon's hub identity")
	identity, err := testenv.AddonIdentity(ctx, hubCluster.Config, clusterName, properties.Addon())
	Expect(err).NotTo(HaveOccurred())
	stopAgent := testenv.Go(context.Background(), func(ctx context.Context) error {
		return agent.Run(ctx, agent.Options{ClusterName: clusterName, Hub: identity, Managed: managedCluster.Config, Interval: interval})
	})
	DeferCleanup(func() { Expect(stopAgent(timeout)).To(Succeed()) })
}, NodeTimeout(localcluster.DefaultStartTimeout+120e9))
