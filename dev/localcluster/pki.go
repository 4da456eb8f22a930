package localcluster

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// certValidity is how long the local certificates live; a local cluster is
// not expected to outlive it.
const certValidity = 365 * 24 * time.Hour

// identity is a client certificate's subject.
type identity struct {
	file   string
	cn     string
	groups []string
}

// Client identities of the components; admin is what the kubeconfig users get.
var (
	adminIdentity     = identity{file: "admin", cn: "corral-admin", groups: []string{"system:masters"}}
	kcmIdentity       = identity{file: "kube-controller-manager", cn: "system:kube-controller-manager"}
	schedulerIdentity = identity{file: "kube-scheduler", cn: "system:kube-scheduler"}
	kwokIdentity      = identity{file: "kwok", cn: "kwok", groups: []string{"system:masters"}}
)

// pki is the paths of a cluster's certificates and keys.
type pki struct{ dir string }

func (p pki) path(name string) string { return filepath.Join(p.dir, name) }
func (p pki) caCert() string          { return p.path("ca.crt") }
func (p pki) caKey() string           { return p.path("ca.key") }
func (p pki) servingCert() string     { return p.path("serving.crt") }
func (p pki) servingKey() string      { return p.path("serving.key") }
func (p pki) saKey() string           { return p.path("sa.key") }
func (p pki) saPub() string           { return p.path("sa.pub") }
func (p pki) cert(id identity) string { return p.path(id.file + ".crt") }
func (p pki) key(id identity) string  { return p.path(id.file + ".key") }

// ensure creates whatever is missing: the cluster CA (which also signs
// CSRs), a serving certificate for 127.0.0.1 and localhost shared by the
// components, the service-account key pair and the client identities.
func (p pki) ensure(extraIPs []net.IP, extraIDs []identity) error {
	if err := os.MkdirAll(p.dir, 0o700); err != nil {
		return err
	}
	ca, caKey, err := p.loadOrCreateCA()
	if err != nil {
		return err
	}
	ips := append([]net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback, net.IPv4(10, 0, 0, 1)}, extraIPs...)
	if !p.serves(ips) {
		tmpl := &x509.Certificate{
			Subject:     pkix.Name{CommonName: "localcluster"},
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			DNSNames:    []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
			IPAddresses: ips,
		}
		if err := p.issue(tmpl, ca, caKey, p.servingCert(), p.servingKey()); err != nil {
			return err
		}
	}
	if !exists(p.saKey()) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return err
		}
		pub, err := x509.MarshalPKIXPublicKey(key.Public())
		if err != nil {
			return err
		}
		if err := writePEM(p.saPub(), "PUBLIC KEY", pub); err != nil {
			return err
		}
		if err := writeKey(p.saKey(), key); err != nil {
			return err
		}
	}
	for _, id := range append([]identity{adminIdentity, kcmIdentity, schedulerIdentity, kwokIdentity}, extraIDs...) {
		if exists(p.cert(id)) {
			continue
		}
		tmpl := &x509.Certificate{
			Subject:     pkix.Name{CommonName: id.cn, Organization: id.groups},
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		}
		if err := p.issue(tmpl, ca, caKey, p.cert(id), p.key(id)); err != nil {
			return err
		}
	}
	return nil
}

// serves says whether the serving certificate exists and covers every one
// of ips: a cluster started again on another address needs a new one.
func (p pki) serves(ips []net.IP) bool {
	cert, _, err := loadPair(p.servingCert(), p.servingKey())
	if err != nil {
		return false
	}
	for _, ip := range ips {
		if !slices.ContainsFunc(cert.IPAddresses, ip.Equal) {
			return false
		}
	}
	return true
}

func (p pki) loadOrCreateCA() (*x509.Certificate, crypto.Signer, error) {
	if exists(p.caCert()) && exists(p.caKey()) {
		return loadPair(p.caCert(), p.caKey())
	}
	// Whatever an earlier CA signed is useless with a new one.
	if err := os.RemoveAll(p.dir); err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(p.dir, 0o700); err != nil {
		return nil, nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "corral-localcluster-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(10 * certValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, nil, err
	}
	if err := writePEM(p.caCert(), "CERTIFICATE", der); err != nil {
		return nil, nil, err
	}
	if err := writeKey(p.caKey(), key); err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	return cert, key, err
}

// issue signs tmpl with the CA and writes the certificate and a fresh key.
func (p pki) issue(tmpl, ca *x509.Certificate, caKey crypto.Signer, certPath, keyPath string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	now := time.Now()
	tmpl.SerialNumber = serial()
	tmpl.NotBefore = now.Add(-time.Hour)
	tmpl.NotAfter = now.Add(certValidity)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, key.Public(), caKey)
	if err != nil {
		return fmt.Errorf("signing %s: %w", filepath.Base(certPath), err)
	}
	if err := writeKey(keyPath, key); err != nil {
		return err
	}
	return writePEM(certPath, "CERTIFICATE", der)
}

func loadPair(certPath, keyPath string) (*x509.Certificate, crypto.Signer, error) {
	certPEM, err := os.ReadFile(certPath)
	if err != nil {
		return nil, nil, err
	}
	keyPEM, err := os.ReadFile(keyPath)
	if err != nil {
		return nil, nil, err
	}
	cb, _ := pem.Decode(certPEM)
	kb, _ := pem.Decode(keyPEM)
	if cb == nil || kb == nil {
		return nil, nil, fmt.Errorf("%s or %s is not PEM", certPath, keyPath)
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return nil, nil, fmt.Errorf("parsing %s: %w", certPath, err)
	}
	key, err := x509.ParseECPrivateKey(kb.Bytes)
	if err != nil {
		return nil, nil, fmt.Errorf("parsing %s: %w", keyPath, err)
	}
	return cert, key, nil
}

func writeKey(path string, key *ecdsa.PrivateKey) error {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	return writePEM(path, "EC PRIVATE KEY", der)
}

func writePEM(path, typ string, der []byte) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600)
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return n
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
