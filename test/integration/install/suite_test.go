// Package install_test proves that the charts of deploy/charts give the
// hub and the agent exactly what they use: every object `corral init` and
// `corral join` render is applied (for real) to a hub and a managed API
// server, and then the hub and the agent run in this process, as `corral
// hub` and `corral agent` run in their pods, on nothing but a token of
// their ServiceAccounts (corral-hub, corral-agent). A cluster joins,
// addons, works, placements and a ManifestWorkReplicaSet run end to end,
// and no log line and no status the two wrote names an RBAC denial; then
// the API servers refuse each ServiceAccount what its roles leave out.
//
// The control planes have no nodes, so the Deployments' pods never run:
// the processes they would run are these in-process ones.
package install_test

import (
	"context"
	"os"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/corral-dev/corral/dev/localcluster"
	"github.com/corral-dev/corral/internal/testenv"
)

func TestInstall(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "install: least privilege")
}

// timeout bounds each wait: generous, for a busy 2-core machine running a
// hub, an agent and two control planes.
const timeout = 3 * time.Minute

var (
	hubCluster, managedCluster *localcluster.Cluster
	// hubAdmin and managedAdmin are cluster-admin clients, for what the
	// user does and the checks.
	hubAdmin, managedAdmin client.Client
	hubKube, managedKube   kubernetes.Interface
	// logs records every line the hub, the agent and the libraries they
	// use log.
	logs = &logRecorder{}
)

var _ = BeforeSuite(func(ctx context.Context) {
	// Everything logged in this process is recorded: the hub's and the
	// agent's contextual loggers are logs' (named hub and agent), and so
	// are klog's and controller-runtime's globals, which client-go's
	// informers and the addon framework log through. A denial logged by
	// a library is as much a missing rule as one the hub logs.
	klog.SetLogger(logs.logger("klog"))
	ctrl.SetLogger(logs.logger("ctrl"))

	By("starting a hub control plane and a managed one")
	hubCluster, managedCluster = testenv.HubAndManaged(ctx)
	hubAdmin, managedAdmin = testenv.MustClient(hubCluster.Config), testenv.MustClient(managedCluster.Config)
	hubKube, managedKube = kubernetes.NewForConfigOrDie(hubCluster.Config), kubernetes.NewForConfigOrDie(managedCluster.Config)
}, NodeTimeout(localcluster.DefaultStartTimeout+2*time.Minute))

var _ = ReportAfterEach(func(r SpecReport) {
	if r.Failed() {
		logs.dump(GinkgoWriter, 400)
	}
})

// serviceAccountConfig is a client configuration for cluster that
// authenticates with nothing but a token of the ServiceAccount
// namespace/name (TokenRequest, as the kubelet mounts one in its pods)
// and trusts the cluster's CA.
func serviceAccountConfig(ctx context.Context, cluster *localcluster.Cluster, namespace, name string) *rest.Config {
	GinkgoHelper()
	kube := kubernetes.NewForConfigOrDie(cluster.Config)
	ttl := int64(time.Hour.Seconds())
	tr, err := kube.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &ttl},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	cfg := rest.AnonymousClientConfig(cluster.Config)
	cfg.BearerToken = tr.Status.Token
	return cfg
}

// caData is the PEM CA the cluster's admin configuration trusts.
func caData(cfg *rest.Config) []byte {
	GinkgoHelper()
	if len(cfg.CAData) > 0 {
		return cfg.CAData
	}
	ca, err := os.ReadFile(cfg.CAFile)
	Expect(err).NotTo(HaveOccurred())
	return ca
}
