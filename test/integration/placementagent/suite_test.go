// Package placementagent_test runs the placement addon's agent half
// (agent.Options.Run, the seam the placement addon's RunAgent calls) against
// two real API servers: a hub, where it publishes its AddOnPlacementScore
// with an identity that has only agent.HubRules in its cluster namespace,
// and a managed cluster whose Nodes and Pods the specs create.
package placementagent_test

import (
	"context"
	"testing"
	"time"

	placementapi "github.com/corral-dev/corral/placement/api"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/dev/localcluster"
	"github.com/corral-dev/corral/internal/testenv"
	"github.com/corral-dev/corral/placement/agent"
)

func TestPlacementAgent(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "placement agent")
}

const (
	timeout = 60 * time.Second
	// installNamespace is where the agent's lease goes on the managed cluster.
	installNamespace = "open-cluster-management-agent-addon"
)

var (
	hubCluster, managedCluster *localcluster.Cluster
	hub                        client.WithWatch
	managed                    kubernetes.Interface
)

var _ = BeforeSuite(func(ctx context.Context) {
	ctrl.SetLogger(GinkgoLogr)
	var err error
	hubCluster, managedCluster = testenv.HubAndManaged(ctx)

	scheme := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(clusterv1alpha1.Install(scheme)).To(Succeed())
	hub, err = client.NewWithWatch(hubCluster.Config, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	managed, err = kubernetes.NewForConfig(managedCluster.Config)
	Expect(err).NotTo(HaveOccurred())
	_, err = managed.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: installNamespace}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
}, NodeTimeout(localcluster.DefaultStartTimeout+60e9))

// newClusterNamespace makes a cluster namespace on the hub for a spec and
// returns the cluster's name.
func newClusterNamespace(ctx context.Context) string {
	GinkgoHelper()
	cluster := "cluster-" + rand.String(6)
	Expect(hub.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: cluster}})).To(Succeed())
	return cluster
}

// agentUser is the placement agent's hub identity for cluster.
func agentUser(cluster string) string {
	return "system:open-cluster-management:cluster:" + cluster + ":addon:placement:agent:placement"
}

// grantHubRules gives cluster's placement agent agent.HubRules in its
// cluster namespace, as the addon manager does.
func grantHubRules(ctx context.Context, cluster string) {
	GinkgoHelper()
	Expect(hub.Create(ctx, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: "placement-agent"},
		Rules:      agent.HubRules,
	})).To(Succeed())
	Expect(hub.Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: "placement-agent"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "placement-agent"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: agentUser(cluster)}},
	})).To(Succeed())
}

// startAgent runs the agent for cluster, as its own hub identity, until
// the spec ends.
func startAgent(cluster string) {
	GinkgoHelper()
	hubAsAgent := rest.CopyConfig(hubCluster.Config)
	hubAsAgent.Impersonate = rest.ImpersonationConfig{UserName: agentUser(cluster), Groups: []string{"system:authenticated"}}
	env := addons.AgentEnv{ClusterName: cluster, InstallNamespace: installNamespace, Hub: hubAsAgent, Managed: managedCluster.Config}
	stop := testenv.Go(context.Background(), func(ctx context.Context) error {
		return agent.Options{MinInterval: 200 * time.Millisecond}.Run(ctx, env)
	})
	DeferCleanup(func() { Expect(stop(timeout)).To(Succeed()) })
}

// createNode makes a schedulable Node with that allocatable on the managed
// cluster, removed when the spec ends, and returns its name.
func createNode(ctx context.Context, cpu, memory string) string {
	GinkgoHelper()
	n, err := managed.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-" + rand.String(6)}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func(ctx context.Context) {
		Expect(managed.CoreV1().Nodes().Delete(ctx, n.Name, metav1.DeleteOptions{})).To(Succeed())
	})
	list := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}
	n.Status.Capacity, n.Status.Allocatable = list, list
	_, err = managed.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
	Expect(err).NotTo(HaveOccurred())
	return n.Name
}

// createPod makes a pod bound to node in a namespace of its own, asking for
// cpu and memory, removed when the spec ends.
func createPod(ctx context.Context, node, cpu, memory string) *corev1.Pod {
	GinkgoHelper()
	ns := "pods-" + rand.String(6)
	_, err := managed.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	// No controller makes the default ServiceAccount on this API server.
	_, err = managed.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func(ctx context.Context) {
		Expect(managed.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})).To(Succeed())
	})
	p, err := managed.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "work"},
		Spec: corev1.PodSpec{
			NodeName:                     node,
			AutomountServiceAccountToken: ptr.To(false),
			Containers: []corev1.Container{{Name: "c", Image: "example.com/work", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)},
			}}},
		},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	return p
}

// scores reads the cluster's AddOnPlacementScore resource-usage.
func scores(ctx context.Context, cluster string) (*clusterv1alpha1.AddOnPlacementScore, error) {
	s := &clusterv1alpha1.AddOnPlacementScore{}
	err := hub.Get(ctx, client.ObjectKey{Namespace: cluster, Name: placementapi.ScoreName}, s)
	return s, err
}

// expectScores waits until the cluster's scores are cpu and memory.
func expectScores(ctx context.Context, cluster string, cpu, memory int32) *clusterv1alpha1.AddOnPlacementScore {
	GinkgoHelper()
	var s *clusterv1alpha1.AddOnPlacementScore
	Eventually(func(g Gomega) {
		var err error
		s, err = scores(ctx, cluster)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(s.Status.Scores).To(Equal([]clusterv1alpha1.AddOnPlacementScoreItem{
			{Name: placementapi.ScoreCPU, Value: cpu}, {Name: placementapi.ScoreMemory, Value: memory},
		}))
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	return s
}
