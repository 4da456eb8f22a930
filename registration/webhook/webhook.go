package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/addons/conversion"
	"github.com/corral-dev/corral/registration/bootstrap"
	"github.com/corral-dev/corral/registration/hub/clusterset"
)

// DefaultPort is where `corral hub` serves the webhooks unless told.
const DefaultPort = 9443

// DefaultServicePort is the port of a Service given without one.
const DefaultServicePort = 443

// Options configure the webhook server and where the API server reaches it.
type Options struct {
	// Port the server listens on; 0 picks a free one (tests, the embedded
	// hub).
	Port int
	// BindAddress is the address the server listens on. Empty means
	// 127.0.0.1 when URL is a loopback address, else every address.
	BindAddress string
	// CertDir holds tls.crt, tls.key and ca.crt (the CA that signed
	// tls.crt). Empty generates a CA and certificate for this process,
	// unless CertSecret is given.
	CertDir string
	// CertSecret, namespace/name, is a Secret on the hub that the holder
	// of the Lease keeps a CA and a serving certificate in, creating and
	// renewing them, and that every hub process serves from. With a
	// Service and no CertDir it defaults to DefaultCertSecretName in the
	// Service's namespace.
	CertSecret string
	// URL is the base URL the API server calls this process at; the
	// default is https://127.0.0.1:<Port>.
	URL string
	// Service, instead of URL, is the Service the API server calls; its
	// endpoints must be every hub process, sharing CertDir or CertSecret.
	Service *ServiceRef
	// LeaseNamespace holds the Lease that elects the hub process whose
	// endpoint the configurations name; default open-cluster-management.
	LeaseNamespace string
	// Clock is injected for tests; nil means the real clock.
	Clock clock.PassiveClock
	// Addons are the built-in addons whose hub halves run here: their
	// HubWebhooks are served and registered beside the registration ones.
	Addons []addons.Addon
}

// Validate checks the options as given, before defaults.
func (o Options) Validate() error {
	if o.Port < 0 || o.Port > 65535 {
		return fmt.Errorf("webhook port %d is not a port: give 1-65535", o.Port)
	}
	if o.URL != "" && o.Service != nil {
		return errors.New("give the webhook URL or the webhook Service, not both")
	}
	if o.URL != "" {
		u, err := url.Parse(o.URL)
		if err != nil || u.Scheme != "https" || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return fmt.Errorf("webhook URL %q is not an https URL with a host (and no query): the API server calls it", o.URL)
		}
	}
	if o.CertDir != "" && o.CertSecret != "" {
		return errors.New("give the webhook certificate directory or the webhook certificate Secret, not both")
	}
	if o.CertSecret != "" {
		if _, err := ParseSecret(o.CertSecret); err != nil {
			return err
		}
	}
	if o.Service != nil {
		if err := o.Service.validate(); err != nil {
			return err
		}
	}
	return nil
}

// complete fills in the defaults, picking a free port if Port is 0.
func (o *Options) complete() error {
	if err := o.Validate(); err != nil {
		return err
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.LeaseNamespace == "" {
		o.LeaseNamespace = bootstrap.Namespace
	}
	// A Service reaches every replica, so they share one certificate.
	if o.Service != nil && o.CertDir == "" && o.CertSecret == "" {
		o.CertSecret = o.Service.Namespace + "/" + DefaultCertSecretName
	}
	if o.BindAddress == "" && o.Service == nil && isLoopback(o.host()) {
		o.BindAddress = "127.0.0.1"
	}
	if o.Port == 0 {
		port, err := freePort(o.BindAddress)
		if err != nil {
			return fmt.Errorf("finding a free port for the webhook server: %w", err)
		}
		o.Port = port
	}
	if o.URL == "" && o.Service == nil {
		o.URL = "https://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(o.Port))
	}
	return nil
}

// hosts are the names a serving certificate kept in a Secret is for: a
// Service's DNS names, or the URL's host.
func (o Options) hosts() []string {
	if s := o.Service; s != nil {
		return []string{s.Name + "." + s.Namespace + ".svc", s.Name + "." + s.Namespace + ".svc.cluster.local", s.Name + "." + s.Namespace, s.Name}
	}
	return []string{o.host()}
}

// host is the name the serving certificate is for.
func (o Options) host() string {
	if o.Service != nil {
		return o.Service.Name + "." + o.Service.Namespace + ".svc"
	}
	if o.URL == "" {
		return "127.0.0.1"
	}
	u, _ := url.Parse(o.URL) // Validate parsed it
	return u.Hostname()
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// freePort returns a port free on address a moment ago.
func freePort(address string) (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(address, "0"))
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// ParseService reads a Service reference given as namespace/name[:port].
func ParseService(s string) (*ServiceRef, error) {
	ref, port, hasPort := strings.Cut(s, ":")
	namespace, name, ok := strings.Cut(ref, "/")
	if !ok {
		return nil, fmt.Errorf("webhook Service %q is not namespace/name[:port]", s)
	}
	svc := &ServiceRef{Namespace: namespace, Name: name, Port: DefaultServicePort}
	if hasPort {
		p, err := strconv.ParseInt(port, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("webhook Service %q: port %q is not a number", s, port)
		}
		svc.Port = int32(p)
	}
	return svc, svc.validate()
}

func (s ServiceRef) validate() error {
	for _, part := range []string{s.Namespace, s.Name} {
		if msgs := validation.IsDNS1123Label(part); len(msgs) > 0 {
			return fmt.Errorf("webhook Service %s/%s: %q is not a valid name: %s", s.Namespace, s.Name, part, msgs[0])
		}
	}
	if s.Port < 1 || s.Port > 65535 {
		return fmt.Errorf("webhook Service %s/%s: port %d is not a port", s.Namespace, s.Name, s.Port)
	}
	return nil
}

// SetupWithManager adds to mgr the webhook server, with the three
// admission webhooks and the addon CRDs' conversion webhook, and the registrar that keeps the hub's webhook configurations
// pointing at this process while it holds the Lease.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	if err := opts.complete(); err != nil {
		return err
	}
	kube, err := kubernetes.NewForConfig(mgr.GetConfig())
	if err != nil {
		return err
	}
	// changed wakes the registrar: a configuration, a converted CRD or
	// the certificate Secret changed.
	changed := make(chan struct{}, 1)
	certs, err := certSourceOf(opts, kube, changed)
	if err != nil {
		return err
	}
	if certs.secret != nil {
		if err := mgr.Add(certs.secret); err != nil {
			return err
		}
	}
	crds, err := apiextensionsclient.NewForConfig(mgr.GetConfig())
	if err != nil {
		return err
	}
	serverOpts := ctrlwebhook.Options{Host: opts.BindAddress, Port: opts.Port}
	certs.apply(&serverOpts)
	server := ctrlwebhook.NewServer(serverOpts)
	access := accessReviewer{kube: kube}
	server.Register(MutateClusterPath, &ctrlwebhook.Admission{Handler: &clusterDefaulter{clock: opts.Clock}})
	server.Register(ValidateClusterPath, &ctrlwebhook.Admission{Handler: &clusterValidator{kube: kube, access: access}})
	server.Register(ValidateBindingPath, &ctrlwebhook.Admission{Handler: &bindingValidator{access: access}})
	server.Register(ConvertAddonsPath, conversion.Handler())
	extra, err := AddonWebhooks(mgr.GetConfig(), opts.Addons)
	if err != nil {
		return err
	}
	for _, w := range extra {
		server.Register(w.Path, &ctrlwebhook.Admission{Handler: w.Handler})
	}
	if err := mgr.Add(server); err != nil {
		return err
	}
	started := server.StartedChecker()
	if err := mgr.AddReadyzCheck("webhook", started); err != nil {
		return err
	}
	return mgr.Add(&registrar{
		kube: kube, crds: crds, certs: certs, endpoint: endpoint{url: opts.URL, service: opts.Service},
		leaseNamespace: opts.LeaseNamespace, identity: newIdentity(), extra: extra, clock: opts.Clock, changed: changed,
		serving: func() error { return started(nil) },
	})
}

// certSourceOf is the certificate source opts name: a Secret kept by the
// hub, a directory, or a CA generated for this process.
func certSourceOf(opts Options, kube kubernetes.Interface, changed chan<- struct{}) (certSource, error) {
	if opts.CertSecret == "" {
		return newCertSource(opts.CertDir, opts.host(), opts.Clock.Now())
	}
	ref, err := ParseSecret(opts.CertSecret)
	if err != nil {
		return certSource{}, err
	}
	return certSource{secret: newSecretSource(kube, ref, opts.hosts(), opts.Clock, changed)}, nil
}

// AddonWebhooks are the validating webhooks the addons' hub halves
// contribute.
func AddonWebhooks(hub *rest.Config, builtins []addons.Addon) ([]addons.ValidatingWebhook, error) {
	var all []addons.ValidatingWebhook
	for _, a := range builtins {
		if a.HubWebhooks == nil {
			continue
		}
		whs, err := a.HubWebhooks(hub)
		if err != nil {
			return nil, fmt.Errorf("setting up the webhooks of addon %s: %w", a.Name, err)
		}
		all = append(all, whs...)
	}
	return all, nil
}

// ProbeClusterName names the ManagedCluster WaitServing creates in dry run.
const ProbeClusterName = "corral-webhook-probe"

// WaitServing waits until the hub's API server sends ManagedClusters
// through the serving webhooks: a dry-run create of a cluster without a
// set comes back in the default set (the mutating webhook), and one whose
// name is not a DNS-1123 label is refused (the validating webhook applied
// last), and each of the addons' webhooks refuses its Probe: the API
// server takes up each configuration on its own, so one answering says
// nothing of another. c must be allowed to create ManagedClusters and join
// the default set, and create the probes.
func WaitServing(ctx context.Context, c client.Client, timeout time.Duration, addonWebhooks ...addons.ValidatingWebhook) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		last = errors.Join(probeDefaulting(ctx, c), probeValidating(ctx, c))
		for _, w := range addonWebhooks {
			last = errors.Join(last, probeAddon(ctx, c, w))
		}
		return last == nil, nil // not yet: the last error says why
	})
	if err != nil {
		return fmt.Errorf("the hub's admission webhooks did not start answering within %s: %w", timeout, errors.Join(err, last))
	}
	return nil
}

// probeDefaulting creates a cluster without a set in dry run and checks
// that it came back in the default set.
func probeDefaulting(ctx context.Context, c client.Client) error {
	probe := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: ProbeClusterName}}
	if err := c.Create(ctx, probe, client.DryRunAll); err != nil {
		return err
	}
	if probe.Labels[clusterv1beta2.ClusterSetLabel] != clusterset.DefaultSetName {
		return errors.New("a ManagedCluster came back without the default cluster set label")
	}
	return nil
}

// probeValidating creates in dry run a cluster the API server admits by
// its own rules but the validating webhook refuses (its name is a DNS
// subdomain, not a label), and checks that it was refused for that.
func probeValidating(ctx context.Context, c client.Client) error {
	probe := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: ProbeClusterName + ".invalid"}}
	err := c.Create(ctx, probe, client.DryRunAll)
	switch {
	case err == nil:
		return errors.New("a ManagedCluster whose name is not a DNS-1123 label was admitted")
	case !strings.Contains(err.Error(), dnsLabelProblem):
		return err
	}
	return nil
}

// probeAddon creates w's probe in dry run and checks that w refused it.
func probeAddon(ctx context.Context, c client.Client, w addons.ValidatingWebhook) error {
	if w.Probe == nil {
		return nil
	}
	err := c.Create(ctx, w.Probe.DeepCopyObject().(client.Object), client.DryRunAll)
	switch {
	case err == nil:
		return fmt.Errorf("the probe of webhook %s was admitted", w.Name)
	case !strings.Contains(err.Error(), fmt.Sprintf("admission webhook %q denied the request", w.Name)):
		return err
	}
	return nil
}

// forbidden refuses a user what it may not do.
func forbidden(format string, args ...any) admission.Response {
	return admission.Denied(fmt.Sprintf(format, args...))
}
