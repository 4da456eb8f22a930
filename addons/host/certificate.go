package host

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/registration/clientcsr"
	"github.com/corral-dev/corral/registration/common"
)

// failureBackoff is how the host retries a registration that failed.
var failureBackoff = wait.Backoff{Duration: time.Second, Factor: 2, Jitter: 0.1, Steps: 1 << 30, Cap: time.Minute}

// credentials are a registration's current key and certificate.
type credentials struct {
	certPEM, keyPEM     []byte
	notBefore, notAfter time.Time
	// hub reaches the hub with them (kube-client registrations only).
	hub *rest.Config
}

// rotateAt is when a new certificate is asked for.
func (c *credentials) rotateAt() time.Time { return clientcsr.RotationTime(c.notBefore, c.notAfter) }

// registration is the certificate loop of one registration.
type registration struct {
	want   want
	cancel context.CancelFunc
	done   chan struct{}
	kicks  chan struct{}

	mu    sync.Mutex
	creds *credentials
}

func (r *registration) stop() {
	r.cancel()
	<-r.done
}

// kick makes the loop look at its Secret again now.
func (r *registration) kick() {
	select {
	case r.kicks <- struct{}{}:
	default:
	}
}

func (r *registration) current() *credentials {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.creds
}

func (r *registration) publish(c *credentials) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.creds != nil && bytes.Equal(r.creds.certPEM, c.certPEM) {
		return false
	}
	r.creds = c
	return true
}

func (h *Host) startRegistration(ctx context.Context, w want) *registration {
	ctx, cancel := context.WithCancel(ctx)
	r := &registration{want: w, cancel: cancel, done: make(chan struct{}), kicks: make(chan struct{}, 1)}
	go func() {
		defer close(r.done)
		h.keepCertificate(ctx, r)
	}()
	return r
}

// keepCertificate keeps a valid certificate in the registration's Secret
// until ctx ends: it looks again when the certificate is due, when kicked
// and, after a failure, with backoff.
func (h *Host) keepCertificate(ctx context.Context, r *registration) {
	ctx = withValues(ctx, "addon", r.want.addon, "signer", r.want.signer)
	backoff := failureBackoff
	for {
		due, err := h.ensureCertificate(ctx, r)
		var after time.Duration
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			after = backoff.Step()
			log(ctx).Info("Obtaining the addon's client certificate failed; retrying", "in", after, "err", err)
			h.reportCertificate(ctx, r.want, metav1.ConditionFalse, common.ReasonCertificateUpdateFailed,
				fmt.Sprintf("Failed to obtain a client certificate for signer %s: %v", r.want.signer, err))
		} else {
			backoff = failureBackoff
			after = due.Sub(h.opts.Clock.Now())
			log(ctx).V(4).Info("The addon's client certificate is valid", "rotateAt", due)
		}
		timer := h.opts.Clock.NewTimer(after)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C():
		case <-r.kicks:
			timer.Stop()
		}
	}
}

// ensureCertificate keeps the Secret's certificate while it is valid for
// the registration's subject and not due, else obtains a new one. It
// returns when the certificate is due.
func (h *Host) ensureCertificate(ctx context.Context, r *registration) (time.Time, error) {
	w := r.want
	secret, err := h.managed.CoreV1().Secrets(w.namespace).Get(ctx, w.secretName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		secret = nil
	case err != nil:
		return time.Time{}, fmt.Errorf("reading Secret %s/%s: %w", w.namespace, w.secretName, err)
	}
	if secret != nil {
		if c, err := h.credentialsOf(w, secret.Data[KeyCert], secret.Data[KeyKey]); err == nil &&
			h.opts.Clock.Now().Before(c.rotateAt()) && secretComplete(w, secret, h.opts.ClusterName) {
			h.publish(ctx, r, c)
			return c.rotateAt(), nil
		}
	}
	c, err := h.obtain(ctx, w)
	if err != nil {
		return time.Time{}, err
	}
	if err := h.writeSecret(ctx, w, c); err != nil {
		return time.Time{}, err
	}
	log(ctx).Info("Wrote the addon's client certificate", "secret", w.namespace+"/"+w.secretName, "expires", c.notAfter)
	h.reportCertificate(ctx, w, metav1.ConditionTrue, common.ReasonCertificateUpdated,
		fmt.Sprintf("Client certificate for signer %s rotated; valid from %s to %s", w.signer,
			c.notBefore.UTC().Format(time.RFC3339), c.notAfter.UTC().Format(time.RFC3339)))
	h.publish(ctx, r, c)
	return c.rotateAt(), nil
}

// publish makes c the registration's credentials and, when they changed,
// has the host look at the addon again (its agent may start or restart).
func (h *Host) publish(ctx context.Context, r *registration, c *credentials) {
	if r.publish(c) && h.queue != nil && ctx.Err() == nil {
		h.queue.Add(r.want.addon)
	}
}

// secretComplete says whether the Secret holds everything OCM's agent
// writes for the registration.
func secretComplete(w want, s *corev1.Secret, cluster string) bool {
	if string(s.Data[KeyClusterName]) != cluster {
		return false
	}
	return !w.kubeClient() || len(s.Data[KeyKubeconfig]) > 0
}

// credentialsOf parses a key and certificate pair and checks it is for the
// registration's subject.
func (h *Host) credentialsOf(w want, certPEM, keyPEM []byte) (*credentials, error) {
	if _, err := tls.X509KeyPair(certPEM, keyPEM); err != nil {
		return nil, fmt.Errorf("the certificate does not match its key: %w", err)
	}
	block, _ := pem.Decode(certPEM)
	if block == nil {
		return nil, fmt.Errorf("the certificate is not PEM")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil, err
	}
	if !subjectMatches(cert.Subject, w.subject) {
		return nil, fmt.Errorf("the certificate is for %q, not %q", cert.Subject.CommonName, w.subject.CommonName)
	}
	c := &credentials{certPEM: certPEM, keyPEM: keyPEM, notBefore: cert.NotBefore, notAfter: cert.NotAfter}
	if w.kubeClient() {
		if c.hub, err = h.addonHubConfig(certPEM, keyPEM); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func subjectMatches(got, want pkix.Name) bool {
	same := func(a, b []string) bool {
		a, b = slices.Clone(a), slices.Clone(b)
		slices.Sort(a)
		slices.Sort(b)
		return slices.Equal(a, b)
	}
	return got.CommonName == want.CommonName && same(got.Organization, want.Organization) &&
		same(got.OrganizationalUnit, want.OrganizationalUnit)
}

// obtain asks the hub, as the registration agent, for a certificate for a
// fresh key and waits until it is issued.
func (h *Host) obtain(ctx context.Context, w want) (*credentials, error) {
	keyPEM, requestPEM, err := newKeyAndRequest(w)
	if err != nil {
		return nil, err
	}
	csr := &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: fmt.Sprintf("addon-%s-%s-", h.opts.ClusterName, w.addon),
			Labels:       map[string]string{clusterv1.ClusterNameLabelKey: h.opts.ClusterName, addonLabelKey: w.addon},
		},
		Spec: certificatesv1.CertificateSigningRequestSpec{
			Request:    requestPEM,
			SignerName: w.signer,
			Usages: []certificatesv1.KeyUsage{
				certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment, certificatesv1.UsageClientAuth,
			},
		},
	}
	if h.opts.ExpirationSeconds > 0 {
		csr.Spec.ExpirationSeconds = &h.opts.ExpirationSeconds
	}
	created, err := h.hubKube.CertificatesV1().CertificateSigningRequests().Create(ctx, csr, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("creating a CSR: %w", err)
	}
	log(ctx).Info("Asked for the addon's client certificate; waiting for the hub to approve and sign it", "csr", created.Name)
	certPEM, err := h.waitForCertificate(ctx, created.Name)
	if err != nil {
		return nil, err
	}
	return h.credentialsOf(w, certPEM, keyPEM)
}

// waitForCertificate polls the CSR until it has a certificate, or fails
// when it is denied or failed.
func (h *Host) waitForCertificate(ctx context.Context, name string) ([]byte, error) {
	var cert []byte
	err := wait.PollUntilContextCancel(ctx, h.opts.PollInterval, true, func(ctx context.Context) (bool, error) {
		csr, err := h.hubKube.CertificatesV1().CertificateSigningRequests().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			log(ctx).V(4).Info("Cannot read the CSR yet; retrying", "csr", name, "err", err)
			return false, nil
		}
		for _, c := range csr.Status.Conditions {
			if c.Type == certificatesv1.CertificateDenied || c.Type == certificatesv1.CertificateFailed {
				return false, fmt.Errorf("CSR %s is %s: %s", name, c.Type, c.Message)
			}
		}
		cert = csr.Status.Certificate
		return len(cert) > 0, nil
	})
	if err != nil {
		return nil, fmt.Errorf("waiting for CSR %s: %w", name, err)
	}
	return cert, nil
}

// newKeyAndRequest makes a fresh key and a certificate request for the
// registration's subject, with the DNS name OCM's agent puts in.
func newKeyAndRequest(w want) (keyPEM, requestPEM []byte, err error) {
	return clientcsr.NewKeyAndRequest(w.subject, w.addon+".addon.open-cluster-management.io")
}

// writeSecret stores the credentials in the addon's install namespace,
// creating the namespace when missing.
func (h *Host) writeSecret(ctx context.Context, w want, c *credentials) error {
	data := map[string][]byte{KeyCert: c.certPEM, KeyKey: c.keyPEM, KeyClusterName: []byte(h.opts.ClusterName)}
	if w.kubeClient() {
		kubeconfig, err := h.addonKubeconfig()
		if err != nil {
			return err
		}
		data[KeyKubeconfig] = kubeconfig
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: w.namespace}}
	if _, err := h.managed.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s on the managed cluster: %w", w.namespace, err)
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: w.namespace, Name: w.secretName, Labels: map[string]string{addonLabelKey: w.addon}},
		Data:       data,
	}
	secrets := h.managed.CoreV1().Secrets(w.namespace)
	_, err := secrets.Update(ctx, secret, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) {
		_, err = secrets.Create(ctx, secret, metav1.CreateOptions{})
	}
	if err != nil {
		return fmt.Errorf("writing Secret %s/%s on the managed cluster: %w", w.namespace, w.secretName, err)
	}
	return nil
}

// hubCA is the hub's CA bundle, from the registration agent's config.
func (h *Host) hubCA() ([]byte, error) {
	if len(h.opts.Hub.CAData) > 0 || h.opts.Hub.CAFile == "" {
		return h.opts.Hub.CAData, nil
	}
	ca, err := os.ReadFile(h.opts.Hub.CAFile)
	if err != nil {
		return nil, fmt.Errorf("reading the hub's CA: %w", err)
	}
	return ca, nil
}

// addonKubeconfig is the kubeconfig OCM's agent writes for an addon: the
// hub's address and CA, and the client certificate and key as the files
// tls.crt and tls.key beside it (the Secret mounted as a directory).
func (h *Host) addonKubeconfig() ([]byte, error) {
	ca, err := h.hubCA()
	if err != nil {
		return nil, err
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["hub"] = &clientcmdapi.Cluster{Server: h.opts.Hub.Host, CertificateAuthorityData: ca, TLSServerName: h.opts.Hub.ServerName}
	cfg.AuthInfos["default-auth"] = &clientcmdapi.AuthInfo{ClientCertificate: KeyCert, ClientKey: KeyKey}
	cfg.Contexts["default-context"] = &clientcmdapi.Context{Cluster: "hub", AuthInfo: "default-auth"}
	cfg.CurrentContext = "default-context"
	return clientcmd.Write(*cfg)
}

// addonHubConfig reaches the hub as the addon, with its certificate.
func (h *Host) addonHubConfig(certPEM, keyPEM []byte) (*rest.Config, error) {
	ca, err := h.hubCA()
	if err != nil {
		return nil, err
	}
	return &rest.Config{
		Host: h.opts.Hub.Host,
		TLSClientConfig: rest.TLSClientConfig{
			CAData: ca, ServerName: h.opts.Hub.ServerName, CertData: certPEM, KeyData: keyPEM,
		},
	}, nil
}
