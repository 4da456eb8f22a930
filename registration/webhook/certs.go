package webhook

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	certutil "k8s.io/client-go/util/cert"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
)

// Files of a certificate directory.
const (
	CertFile = "tls.crt"
	KeyFile  = "tls.key"
	CAFile   = "ca.crt"
)

// generatedValidity is how long a generated CA and serving certificate
// last. They live in memory for one process, so they are never rotated.
const generatedValidity = 10 * 365 * 24 * time.Hour

// certSource is where the server's certificate and the caBundle the API
// server trusts come from: a directory, a Secret the hub keeps, or a CA
// generated for this process.
type certSource struct {
	dir    string
	secret *secretSource
	// Generated, when there is neither.
	ca   []byte
	cert *tls.Certificate
}

// newCertSource checks the certificates in dir, as of now, or, with no
// dir, generates a CA and a serving certificate for host.
func newCertSource(dir, host string, now time.Time) (certSource, error) {
	if dir != "" {
		return certSource{dir: dir}, checkCertDir(dir, now)
	}
	ca, cert, err := generateCerts(host)
	return certSource{ca: ca, cert: cert}, err
}

// apply sets how the server finds its certificate: the generated one, the
// one the Secret holds now, or the files in dir, reloaded when they
// change.
func (s certSource) apply(o *ctrlwebhook.Options) {
	if s.dir != "" {
		o.CertDir, o.CertName, o.KeyName = s.dir, CertFile, KeyFile
		return
	}
	get := func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return s.cert, nil }
	if s.secret != nil {
		get = s.secret.getCertificate
	}
	o.TLSOpts = append(o.TLSOpts, func(c *tls.Config) { c.GetCertificate = get })
}

// keep, while this process holds the Lease, creates and renews the
// certificates of a Secret source; the other sources need nothing.
func (s certSource) keep(ctx context.Context, trusted published) error {
	if s.secret == nil {
		return nil
	}
	return s.secret.keep(ctx, trusted)
}

// caBundle is the PEM the API server verifies the server with; from a
// directory it is read anew each time, so a rotated CA is picked up, and
// from a Secret it is what keep last saw.
func (s certSource) caBundle() ([]byte, error) {
	if s.secret != nil {
		return s.secret.caBundle()
	}
	if s.dir == "" {
		return s.ca, nil
	}
	ca, err := os.ReadFile(filepath.Join(s.dir, CAFile))
	if err != nil {
		return nil, fmt.Errorf("reading the webhook CA: %w", err)
	}
	return ca, nil
}

// checkCertDir makes sure dir holds a key pair and the CA that signed it.
func checkCertDir(dir string, now time.Time) error {
	pair, err := tls.LoadX509KeyPair(filepath.Join(dir, CertFile), filepath.Join(dir, KeyFile))
	if err != nil {
		return fmt.Errorf("webhook certificate directory %s: %w", dir, err)
	}
	caPEM, err := os.ReadFile(filepath.Join(dir, CAFile))
	if err != nil {
		return fmt.Errorf("webhook certificate directory %s needs %s, the CA that signed %s: %w", dir, CAFile, CertFile, err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		return fmt.Errorf("webhook certificate directory %s: %s holds no PEM certificate", dir, CAFile)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return fmt.Errorf("webhook certificate directory %s: %s: %w", dir, CertFile, err)
	}
	intermediates := x509.NewCertPool()
	for _, der := range pair.Certificate[1:] {
		if c, err := x509.ParseCertificate(der); err == nil {
			intermediates.AddCert(c)
		}
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, Intermediates: intermediates, CurrentTime: now}); err != nil {
		return fmt.Errorf("webhook certificate directory %s: %s does not verify against %s: %w", dir, CertFile, CAFile, err)
	}
	return nil
}

// generateCerts makes a CA and a serving certificate for host (an IP
// address or a DNS name) signed by it, valid from an hour ago for
// generatedValidity; it returns the CA as PEM.
func generateCerts(host string) ([]byte, *tls.Certificate, error) {
	if host == "" {
		return nil, nil, errors.New("generating the webhook certificate: no host to issue it for")
	}
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKeyWithOptions(certutil.SelfSignedCertKeyOptions{Host: host, MaxAge: generatedValidity})
	if err != nil {
		return nil, nil, fmt.Errorf("generating the webhook certificate: %w", err)
	}
	// certPEM is the serving certificate, then the CA that signed it.
	chain, err := certutil.ParseCertsPEM(certPEM)
	if err != nil {
		return nil, nil, fmt.Errorf("generating the webhook certificate: %w", err)
	}
	if len(chain) != 2 {
		return nil, nil, fmt.Errorf("generating the webhook certificate: want a certificate and its CA, got %d certificates", len(chain))
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, nil, fmt.Errorf("generating the webhook certificate: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: certutil.CertificateBlockType, Bytes: chain[1].Raw}), &pair, nil
}
