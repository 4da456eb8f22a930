package webhook

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
)

// DefaultCertSecretName is the Secret, in the Service's namespace, that a
// hub reached through a Service keeps its webhook certificate in unless
// told another (Options.CertSecret) or a directory (Options.CertDir).
const DefaultCertSecretName = "corral-hub-webhook-cert"

// ParseSecret reads a Secret reference given as namespace/name.
func ParseSecret(s string) (types.NamespacedName, error) {
	namespace, name, ok := strings.Cut(s, "/")
	if !ok || namespace == "" || name == "" {
		return types.NamespacedName{}, fmt.Errorf("webhook certificate Secret %q is not namespace/name", s)
	}
	if msgs := validation.IsDNS1123Label(namespace); len(msgs) > 0 {
		return types.NamespacedName{}, fmt.Errorf("webhook certificate Secret %q: %q is not a valid namespace: %s", s, namespace, msgs[0])
	}
	if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
		return types.NamespacedName{}, fmt.Errorf("webhook certificate Secret %q: %q is not a valid name: %s", s, name, msgs[0])
	}
	return types.NamespacedName{Namespace: namespace, Name: name}, nil
}

// secretSource is a webhook certificate kept in a Secret on the hub
// (type kubernetes.io/tls: tls.crt, tls.key, ca.crt — the current CA then
// the previous one until it expires — and ca.key, the current CA's key).
//
// Every hub process serves what the Secret holds, watching that one
// Secret (Start; getCertificate returns the latest). Only the holder of
// the Lease LeaseName writes it (keep, called by the registrar): it
// creates it when missing and renews the CA and the serving certificate
// as rotation says, so that replicas behind one Service serve one
// certificate with no cert-manager. One Secret rather than a CA Secret
// beside a serving one: every replica runs as the same identity, so a
// second Secret would hide the CA key from no one, and one write keeps
// the CA, the bundle and the serving certificate consistent.
//
// RBAC the hub needs, in the Secret's namespace (a Role):
//
//	rules:
//	- apiGroups: [""]
//	  resources: [secrets]
//	  resourceNames: [<the Secret's name>]
//	  verbs: [get, list, watch, update]
//	- apiGroups: [""]
//	  resources: [secrets]
//	  verbs: [create]    # create cannot be limited by name
//
// list and watch are asked with the field selector metadata.name=<name>,
// which the API server authorizes against resourceNames.
type secretSource struct {
	kube     kubernetes.Interface
	ref      types.NamespacedName
	hosts    []string
	rotation rotation
	clock    clock.PassiveClock
	// changed is signalled when the Secret changes, so that the registrar
	// re-checks it while leading.
	changed chan<- struct{}

	// serving is the certificate served: the last usable one the Secret
	// held.
	serving atomic.Pointer[tls.Certificate]

	mu sync.Mutex
	// bundle is ca.crt as the leader last read or wrote it.
	bundle []byte
}

func newSecretSource(kube kubernetes.Interface, ref types.NamespacedName, hosts []string, clk clock.PassiveClock, changed chan<- struct{}) *secretSource {
	return &secretSource{kube: kube, ref: ref, hosts: hosts, rotation: defaultRotation, clock: clk, changed: changed}
}

// NeedLeaderElection is false: every hub process serves the certificate.
func (s *secretSource) NeedLeaderElection() bool { return false }

// Start watches the Secret until ctx ends, serving what it holds.
func (s *secretSource) Start(ctx context.Context) error {
	log := ctrl.LoggerFrom(ctx).WithValues("secret", klog.KRef(s.ref.Namespace, s.ref.Name))
	factory := informers.NewSharedInformerFactoryWithOptions(s.kube, 0, informers.WithNamespace(s.ref.Namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", s.ref.Name).String()
		}))
	informer := factory.Core().V1().Secrets().Informer()
	_, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { s.take(log, obj) },
		UpdateFunc: func(_, obj any) { s.take(log, obj) },
		// The last certificate stays served: the leader makes a new one.
		DeleteFunc: func(any) { signal(s.changed) },
	})
	if err != nil {
		return err
	}
	factory.Start(ctx.Done())
	<-ctx.Done()
	factory.Shutdown()
	return nil
}

// take serves the certificate in secret, if it holds a usable one.
func (s *secretSource) take(log klog.Logger, obj any) {
	signal(s.changed)
	secret, ok := obj.(*corev1.Secret)
	if !ok || secret.Name != s.ref.Name {
		return
	}
	pair, err := tls.X509KeyPair(secret.Data[CertFile], secret.Data[KeyFile])
	if err != nil {
		log.Error(err, "The webhook certificate Secret holds no usable certificate; serving the last one")
		return
	}
	if old := s.serving.Load(); old != nil && string(old.Certificate[0]) == string(pair.Certificate[0]) {
		return
	}
	s.serving.Store(&pair)
	log.V(1).Info("Serving the webhook certificate of the Secret", "serial", pair.Leaf.SerialNumber.String(), "notAfter", pair.Leaf.NotAfter)
}

// getCertificate is the webhook server's: the certificate the Secret
// holds now.
func (s *secretSource) getCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	if c := s.serving.Load(); c != nil {
		return c, nil
	}
	return nil, fmt.Errorf("no webhook certificate yet in Secret %s: the hub holding the Lease %s makes it", s.ref, LeaseName)
}

// keep makes the Secret hold what rotation says it should now, creating
// it when missing; trusted says since when the webhook configurations
// trust each CA. Only the registrar's leader calls it.
func (s *secretSource) keep(ctx context.Context, trusted published) error {
	log := ctrl.LoggerFrom(ctx).WithValues("secret", klog.KRef(s.ref.Namespace, s.ref.Name))
	secrets := s.kube.CoreV1().Secrets(s.ref.Namespace)
	secret, err := secrets.Get(ctx, s.ref.Name, metav1.GetOptions{})
	exists := err == nil
	switch {
	case apierrors.IsNotFound(err):
		secret = &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: s.ref.Namespace, Name: s.ref.Name, Labels: map[string]string{ManagedByLabel: ManagedByValue}},
			Type:       corev1.SecretTypeTLS,
		}
	case err != nil:
		return fmt.Errorf("reading the webhook certificate Secret %s: %w", s.ref, err)
	}
	data, why, waiting, err := s.rotation.renew(secret.Data, s.hosts, trusted, s.clock.Now())
	if err != nil {
		return err
	}
	if waiting != "" {
		log.V(1).Info("Keeping the webhook serving certificate for now", "why", waiting)
	}
	if len(why) > 0 {
		secret.Data = data
		if !exists {
			secret, err = secrets.Create(ctx, secret, metav1.CreateOptions{FieldManager: FieldOwner})
		} else {
			secret, err = secrets.Update(ctx, secret, metav1.UpdateOptions{FieldManager: FieldOwner})
		}
		if err != nil {
			return fmt.Errorf("writing the webhook certificate Secret %s: %w", s.ref, err)
		}
		log.Info("Renewed the webhook certificates in the Secret", "why", strings.Join(why, "; "))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bundle = secret.Data[CAFile]
	return nil
}

// caBundle is ca.crt as keep last read or wrote it.
func (s *secretSource) caBundle() ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.bundle) == 0 {
		return nil, errors.New("the webhook certificate Secret has not been read yet")
	}
	return s.bundle, nil
}
