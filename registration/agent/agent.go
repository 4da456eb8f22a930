package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/clock"
	clusterclient "open-cluster-management.io/api/client/cluster/clientset/versioned"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/registration/common"
)

// OCM's defaults for where the hub kubeconfig lives on the managed cluster.
const (
	DefaultSecretNamespace = "open-cluster-management-agent"
	DefaultSecretName      = "hub-kubeconfig-secret"
)

// Options configure an agent.
type Options struct {
	// ClusterName names the cluster on the hub (a DNS-1123 label).
	ClusterName string
	// AgentID is the agent's part of its identity; empty means the stored
	// one, else a new random one.
	AgentID string
	// Bootstrap is the hub client configuration of the bootstrap identity.
	Bootstrap *rest.Config
	// Managed is the client configuration of the managed cluster.
	Managed *rest.Config
	// ClientConfigs are the managed cluster's API server addresses the hub
	// may use (managedClusterClientConfigs).
	ClientConfigs []clusterv1.ClientConfig
	// ClusterLabels and ClusterAnnotations (each key prefixed
	// ClusterAnnotationPrefix) are set on the ManagedCluster when the agent
	// creates it, and only then: others may change them afterwards.
	ClusterLabels, ClusterAnnotations map[string]string
	// SecretNamespace and SecretName locate the stored hub kubeconfig on
	// the managed cluster.
	SecretNamespace, SecretName string
	// KubeconfigFile, if set, also receives the hub kubeconfig.
	KubeconfigFile string
	// LeaseDurationSeconds is the lease period a ManagedCluster the agent
	// creates asks for; after that the agent renews the lease as often as
	// the ManagedCluster's spec.leaseDurationSeconds says, as the hub
	// judges it by that.
	LeaseDurationSeconds int32
	// PollInterval is how often a pending join is looked at.
	PollInterval time.Duration
	// Clock is injected for tests.
	Clock clock.WithTicker
}

func (o *Options) complete() error {
	if err := common.ValidateClusterName(o.ClusterName); err != nil {
		return err
	}
	if o.Bootstrap == nil || o.Managed == nil {
		return errors.New("the agent needs a bootstrap kubeconfig for the hub and a kubeconfig for the managed cluster")
	}
	if o.SecretNamespace == "" {
		o.SecretNamespace = DefaultSecretNamespace
	}
	if o.SecretName == "" {
		o.SecretName = DefaultSecretName
	}
	if o.LeaseDurationSeconds <= 0 {
		o.LeaseDurationSeconds = common.DefaultLeaseDurationSeconds
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 2 * time.Second
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	return nil
}

// Agent joins its cluster to a hub and keeps it reported.
type Agent struct {
	opts    Options
	managed kubernetes.Interface
	// clockOutOfSync is what the hub last said of this cluster's clock
	// (ClockSynced False), as the heartbeat saw it.
	clockOutOfSync bool
}

// New checks opts and returns an agent.
func New(opts Options) (*Agent, error) {
	if err := opts.complete(); err != nil {
		return nil, err
	}
	managed, err := kubernetes.NewForConfig(opts.Managed)
	if err != nil {
		return nil, err
	}
	return &Agent{opts: opts, managed: managed}, nil
}

// Run joins (or reuses a stored identity) and then heartbeats until ctx
// ends.
func (a *Agent) Run(ctx context.Context) error {
	if err := a.ForgetOtherHub(ctx); err != nil {
		return err
	}
	s, err := a.identity(ctx)
	if err != nil {
		return err
	}
	return a.heartbeat(ctx, s)
}

// session is the agent's current hub identity and its clients.
type session struct {
	id       Identity
	cert     *certificate
	clusters clusterclient.Interface
	kube     kubernetes.Interface
}

// newSession builds the clients of an identity, once.
func newSession(id Identity, hub *rest.Config, cert *certificate) (*session, error) {
	clusters, err := clusterclient.NewForConfig(hub)
	if err != nil {
		return nil, err
	}
	kube, err := kubernetes.NewForConfig(hub)
	if err != nil {
		return nil, err
	}
	return &session{id: id, cert: cert, clusters: clusters, kube: kube}, nil
}

// stored is what the hub kubeconfig Secret holds.
type stored struct {
	agentID    string
	kubeconfig []byte
	cert       *certificate
}

// load reads the stored identity of this cluster, if any.
func (a *Agent) load(ctx context.Context) (*stored, error) {
	secret, err := a.managed.CoreV1().Secrets(a.opts.SecretNamespace).Get(ctx, a.opts.SecretName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s/%s on the managed cluster: %w", a.opts.SecretNamespace, a.opts.SecretName, err)
	}
	if string(secret.Data[KeyClusterName]) != a.opts.ClusterName {
		return nil, nil // another cluster's identity: start afresh
	}
	s := &stored{agentID: string(secret.Data[KeyAgentName]), kubeconfig: secret.Data[KeyKubeconfig]}
	if c, err := parseCertificate(secret.Data[KeyCert]); err == nil {
		s.cert = c
	}
	return s, nil
}

// ClusterAnnotationPrefix is the prefix of the annotations an agent may
// set on its ManagedCluster, OCM's.
const ClusterAnnotationPrefix = "agent.open-cluster-management.io/"

// ForgetOtherHub forgets a stored identity for another hub (server or CA)
// than the bootstrap kubeconfig names, keeping only the cluster and agent
// names (and removes the kubeconfig file of it, if one is kept): the hub
// moved, or the cluster is being moved to another one, and
// the agent joins the hub the bootstrap kubeconfig names, as OCM's agent
// does. Nothing beside the agent (the addon host) then acts on the old hub
// while the new one has not accepted the cluster. Run does it first; who
// starts such a thing beside the agent calls it before.
func (a *Agent) ForgetOtherHub(ctx context.Context) error {
	s, err := a.load(ctx)
	if err != nil {
		return err
	}
	cfg := a.otherHub(s)
	if cfg == nil {
		return nil
	}
	log(ctx).Info("The stored hub identity is for another hub than the bootstrap kubeconfig names; joining that one",
		"cluster", a.opts.ClusterName, "stored", cfg.Host, "bootstrap", a.opts.Bootstrap.Host)
	if a.opts.KubeconfigFile != "" {
		if err := os.Remove(a.opts.KubeconfigFile); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("removing %s, the old hub's kubeconfig: %w", a.opts.KubeconfigFile, err)
		}
	}
	return a.putIdentity(ctx, map[string][]byte{KeyClusterName: []byte(a.opts.ClusterName), KeyAgentName: []byte(s.agentID)})
}

// otherHub is the configuration of the stored identity s when it is for
// another hub (server or CA) than the bootstrap kubeconfig names; nil when
// there is none, it is unusable, or it is for that hub.
func (a *Agent) otherHub(s *stored) *rest.Config {
	if s == nil || len(s.kubeconfig) == 0 {
		return nil
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(s.kubeconfig)
	if err != nil || sameHub(cfg, a.opts.Bootstrap) {
		return nil
	}
	return cfg
}

// identity returns a working hub configuration for the agent's own
// identity: the stored one while its certificate is valid, else a new one
// through the bootstrap handshake.
func (a *Agent) identity(ctx context.Context) (*session, error) {
	s, err := a.load(ctx)
	if err != nil {
		return nil, err
	}
	id := Identity{Cluster: a.opts.ClusterName, AgentID: a.opts.AgentID}
	if id.AgentID == "" && s != nil {
		id.AgentID = s.agentID
	}
	if id.AgentID == "" {
		id.AgentID = NewAgentID()
	}
	if s != nil && s.cert != nil && s.cert.CommonName == id.CommonName() && a.opts.Clock.Now().Before(s.cert.NotAfter) {
		if cfg, err := clientcmd.RESTConfigFromKubeConfig(s.kubeconfig); err == nil {
			log(ctx).Info("Using the stored hub identity", "cluster", id.Cluster, "agent", id.AgentID, "expires", s.cert.NotAfter)
			return newSession(id, cfg, s.cert)
		}
	}
	return a.join(ctx, id, s != nil && s.agentID == id.AgentID)
}

// save stores the hub kubeconfig: the file first, if asked for, so that
// whoever sees the Secret (the record of the identity) finds the file too.
func (a *Agent) save(ctx context.Context, id Identity, kubeconfig, certPEM, keyPEM []byte) error {
	if a.opts.KubeconfigFile != "" {
		if err := writeFileAtomically(a.opts.KubeconfigFile, kubeconfig); err != nil {
			return fmt.Errorf("writing %s: %w", a.opts.KubeconfigFile, err)
		}
	}
	return a.putIdentity(ctx, map[string][]byte{
		KeyKubeconfig: kubeconfig, KeyCert: certPEM, KeyKey: keyPEM,
		KeyClusterName: []byte(id.Cluster), KeyAgentName: []byte(id.AgentID),
	})
}

// putIdentity replaces the hub kubeconfig Secret's data with data.
func (a *Agent) putIdentity(ctx context.Context, data map[string][]byte) error {
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: a.opts.SecretNamespace, Name: a.opts.SecretName}, Data: data}
	if err := putSecret(ctx, a.managed, secret); err != nil {
		return fmt.Errorf("storing the hub identity: %w", err)
	}
	return nil
}

// putSecret writes secret on the managed cluster, creating its namespace
// and replacing a Secret of the same name.
func putSecret(ctx context.Context, managed kubernetes.Interface, secret *corev1.Secret) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: secret.Namespace}}
	if _, err := managed.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s on the managed cluster: %w", secret.Namespace, err)
	}
	secrets := managed.CoreV1().Secrets(secret.Namespace)
	_, err := secrets.Update(ctx, secret, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) {
		_, err = secrets.Create(ctx, secret, metav1.CreateOptions{})
	}
	if err != nil {
		return fmt.Errorf("writing %s/%s on the managed cluster: %w", secret.Namespace, secret.Name, err)
	}
	return nil
}

// writeFileAtomically replaces path with data, never leaving half of it.
func writeFileAtomically(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
