package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	clusterclient "open-cluster-management.io/api/client/cluster/clientset/versioned"

	"github.com/corral-dev/corral/registration/common"
)

// DefaultBootstrapSecretName is OCM's name for the Secret, beside the hub
// kubeconfig Secret, that holds the bootstrap kubeconfig.
const DefaultBootstrapSecretName = "bootstrap-hub-kubeconfig"

// PreflightTimeout bounds the checks before a join.
const PreflightTimeout = 15 * time.Second

// BootstrapKubeconfig is the kubeconfig of a bootstrap token for the hub
// at server, trusting caData.
func BootstrapKubeconfig(server string, caData []byte, token string) ([]byte, error) {
	hub := clientcmdapi.Cluster{Server: server, CertificateAuthorityData: caData}
	return hubOnlyKubeconfig(hub, "bootstrap", "bootstrap", clientcmdapi.AuthInfo{Token: token})
}

// StoreBootstrap keeps the bootstrap kubeconfig on the managed cluster so
// that a restarted agent can ask to join again.
func StoreBootstrap(ctx context.Context, managed kubernetes.Interface, namespace string, kubeconfig []byte) error {
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: DefaultBootstrapSecretName},
		Data:       map[string][]byte{KeyKubeconfig: kubeconfig},
	}
	if err := putSecret(ctx, managed, secret); err != nil {
		return fmt.Errorf("storing the bootstrap kubeconfig: %w", err)
	}
	return nil
}

// LoadBootstrap reads the bootstrap kubeconfig StoreBootstrap kept.
func LoadBootstrap(ctx context.Context, managed kubernetes.Interface, namespace string) (*rest.Config, error) {
	secret, err := managed.CoreV1().Secrets(namespace).Get(ctx, DefaultBootstrapSecretName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("the managed cluster holds no bootstrap kubeconfig (%s/%s): pass --bootstrap-kubeconfig, or join with 'corral join'",
			namespace, DefaultBootstrapSecretName)
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s/%s on the managed cluster: %w", namespace, DefaultBootstrapSecretName, err)
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(secret.Data[KeyKubeconfig])
	if err != nil {
		return nil, fmt.Errorf("%s/%s on the managed cluster holds no usable kubeconfig: %w", namespace, DefaultBootstrapSecretName, err)
	}
	return cfg, nil
}

// Preflight checks, within PreflightTimeout and changing nothing, what a
// join needs: the managed cluster answers, the hub answers and takes the
// bootstrap credentials, and no live agent holds the cluster name (unless
// this managed cluster holds an identity for it), nor runs this cluster
// for another hub.
func (a *Agent) Preflight(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, PreflightTimeout)
	defer cancel()
	s, err := a.load(ctx)
	if err != nil {
		return fmt.Errorf("cannot use the managed cluster: %w", err)
	}
	clusters, err := clusterclient.NewForConfig(a.opts.Bootstrap)
	if err != nil {
		return err
	}
	hub := a.opts.Bootstrap.Host
	mc, err := clusters.ClusterV1().ManagedClusters().Get(ctx, a.opts.ClusterName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		mc = nil
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("%w (%w): get a fresh token with 'corral get token' on the hub", ErrBootstrapRefused, err)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("the hub at %s does not let the bootstrap token read ManagedClusters (%w): is it a hub prepared with 'corral init'?", hub, err)
	case errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil:
		return fmt.Errorf("cannot reach the hub at %s within %s: check the address and that the hub is running", hub, PreflightTimeout)
	case err != nil:
		return fmt.Errorf("cannot reach the hub at %s: %w", hub, err)
	}
	if s != nil {
		// This cluster holds an identity for the name: its own, unless
		// its agent still runs it for another hub.
		return a.notRunningForAnotherHub(ctx, s)
	}
	if mc == nil {
		return nil
	}
	return notHeld(mc)
}

// ErrAgentRunning is the error of a join to another hub while the
// cluster's agent still heartbeats to the hub it joined before.
var ErrAgentRunning = errors.New("an agent may still run the cluster for another hub")

// notRunningForAnotherHub refuses a join to another hub than the stored
// identity's while an agent with that identity still renews the cluster's
// lease there: two agents would then run one managed cluster for two hubs.
// An old hub that does not answer, or no longer lets the identity in, has
// no such agent.
func (a *Agent) notRunningForAnotherHub(ctx context.Context, s *stored) error {
	old := a.otherHub(s)
	if old == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, oldHubTimeout)
	defer cancel()
	kube, err := kubernetes.NewForConfig(old)
	if err != nil {
		return nil
	}
	lease, err := kube.CoordinationV1().Leases(a.opts.ClusterName).Get(ctx, common.LeaseName, metav1.GetOptions{})
	if err != nil || lease.Spec.RenewTime == nil {
		return nil
	}
	period := common.LeasePeriod(a.opts.LeaseDurationSeconds)
	if clusters, err := clusterclient.NewForConfig(old); err == nil {
		if mc, err := clusters.ClusterV1().ManagedClusters().Get(ctx, a.opts.ClusterName, metav1.GetOptions{}); err == nil {
			period = common.LeasePeriod(mc.Spec.LeaseDurationSeconds)
		}
	}
	since := a.opts.Clock.Since(lease.Spec.RenewTime.Time)
	if since >= period+leaseSlack {
		return nil
	}
	return fmt.Errorf("%w: the lease of %s on %s was renewed %s ago (its agent renews it every %s); stop that agent first "+
		"('corral unjoin' also takes the cluster off that hub), or, if it is stopped, try again in %s",
		ErrAgentRunning, a.opts.ClusterName, old.Host, since.Round(time.Second), period, (period + leaseSlack - since).Round(time.Second))
}

// oldHubTimeout bounds the look at the hub a cluster is moving away from;
// leaseSlack is how late past its period a live agent's renewal may be.
const (
	oldHubTimeout = 5 * time.Second
	leaseSlack    = 10 * time.Second
)
