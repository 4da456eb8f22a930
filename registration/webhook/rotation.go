package webhook

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"net"
	"slices"
	"time"

	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

// CAKeyFile is the key of the webhook certificate Secret that holds the
// current CA's private key; the Secret's other keys are the files of a
// certificate directory (tls.crt, tls.key, ca.crt).
const CAKeyFile = "ca.key"

// rotation says how long the CA and the serving certificate kept in a
// Secret last, and when they are renewed.
type rotation struct {
	caValidity, leafValidity time.Duration
	// renewAfter is the part of a certificate's life after which it is
	// renewed.
	renewAfter float64
	// publishGrace is how long the webhook configurations must have
	// trusted a new CA before a serving certificate signed by it is
	// served: the API server takes up a changed configuration, and a CRD's
	// conversion, a moment after it is written.
	publishGrace time.Duration
}

// defaultRotation renews the serving certificate every 24 days and the CA
// every 292 days.
var defaultRotation = rotation{
	caValidity:   365 * 24 * time.Hour,
	leafValidity: 30 * 24 * time.Hour,
	renewAfter:   0.8,
	publishGrace: 30 * time.Second,
}

// backdate is how far before their issue certificates start to be valid,
// for clocks a little behind the hub's.
const backdate = time.Hour

// dueAt is when c is to be renewed.
func (p rotation) dueAt(c *x509.Certificate) time.Time {
	life := c.NotAfter.Sub(c.NotBefore)
	return c.NotBefore.Add(time.Duration(float64(life) * p.renewAfter))
}

// published records since when the webhook configurations, as this
// process applied them while leading, trust each CA (by its DER).
type published map[string]time.Time

// record notes that the configurations now trust the CAs in bundle (PEM):
// new ones since now; those no longer in it are forgotten.
func (p published) record(bundle []byte, now time.Time) {
	certs, _ := certutil.ParseCertsPEM(bundle)
	in := map[string]bool{}
	for _, c := range certs {
		in[string(c.Raw)] = true
		if _, ok := p[string(c.Raw)]; !ok {
			p[string(c.Raw)] = now
		}
	}
	for raw := range p {
		if !in[raw] {
			delete(p, raw)
		}
	}
}

// trusts says whether the configurations have trusted ca for grace.
func (p published) trusts(ca *x509.Certificate, now time.Time, grace time.Duration) bool {
	since, ok := p[string(ca.Raw)]
	return ok && !now.Before(since.Add(grace))
}

// kept is what a webhook certificate Secret holds, parsed: the current CA
// and its key (nil when missing or unusable), the CAs trusted beside it,
// and the serving certificate (nil when missing or unusable).
type kept struct {
	ca       *x509.Certificate
	caKey    crypto.Signer
	previous []*x509.Certificate
	leaf     *x509.Certificate
}

// parseKept reads a Secret's data. ca.crt is the current CA, the one
// ca.key belongs to, then the CAs still trusted beside it; whatever does
// not parse is left out.
func parseKept(data map[string][]byte) kept {
	var k kept
	cas, _ := certutil.ParseCertsPEM(data[CAFile])
	key, _ := keyutil.ParsePrivateKeyPEM(data[CAKeyFile])
	if signer, ok := key.(crypto.Signer); ok && len(cas) > 0 && cas[0].IsCA && publicKeysEqual(cas[0].PublicKey, signer.Public()) {
		k.ca, k.caKey, cas = cas[0], signer, cas[1:]
	}
	k.previous = slices.DeleteFunc(cas, func(c *x509.Certificate) bool { return !c.IsCA })
	if pair, err := tls.X509KeyPair(data[CertFile], data[KeyFile]); err == nil {
		k.leaf, _ = x509.ParseCertificate(pair.Certificate[0])
	}
	return k
}

func publicKeysEqual(a, b crypto.PublicKey) bool {
	eq, ok := a.(interface{ Equal(crypto.PublicKey) bool })
	return ok && eq.Equal(b)
}

// bundle is the PEM the configurations trust: the current CA, then the
// previous ones that have not expired by now.
func (k kept) bundle(now time.Time) []byte {
	out := pemCert(k.ca)
	seen := []*x509.Certificate{k.ca}
	for _, c := range k.previous {
		if now.Before(c.NotAfter) && !slices.ContainsFunc(seen, c.Equal) {
			out = append(out, pemCert(c)...)
			seen = append(seen, c)
		}
	}
	return out
}

func pemCert(c *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: certutil.CertificateBlockType, Bytes: c.Raw})
}

// renew returns the Secret data as it should be now, and why it changed
// (nothing when it did not). hosts are the names the serving certificate
// is for; trusted says since when the configurations trust each CA.
//
// A CA missing, unusable or past renewAfter of its life is replaced; the
// one it replaces stays in ca.crt until it expires. The serving
// certificate is re-issued at once when it would not be accepted anyway
// (missing, unusable, not for hosts, not verifying against the CAs
// trusted); when it is past renewAfter of its life, or signed by a CA that
// is no longer the current one, it is re-issued only once the
// configurations have trusted the current CA for publishGrace, so that no
// replica serves a certificate the API server cannot verify yet. waiting
// says why a certificate that is due was kept.
func (p rotation) renew(data map[string][]byte, hosts []string, trusted published, now time.Time) (out map[string][]byte, why []string, waiting string, err error) {
	k := parseKept(data)
	out = maps.Clone(data)
	if out == nil {
		out = map[string][]byte{}
	}
	switch {
	case k.ca == nil:
		why = append(why, "there was no usable CA")
	case !now.Before(p.dueAt(k.ca)):
		why = append(why, fmt.Sprintf("the CA was due for renewal at %s", p.dueAt(k.ca).UTC().Format(time.RFC3339)))
		k.previous = append([]*x509.Certificate{k.ca}, k.previous...)
		k.ca = nil
	}
	if k.ca == nil {
		if k.ca, k.caKey, err = newCA(now, p.caValidity); err != nil {
			return nil, nil, "", err
		}
		if out[CAKeyFile], err = keyutil.MarshalPrivateKeyToPEM(k.caKey); err != nil {
			return nil, nil, "", fmt.Errorf("encoding the webhook CA key: %w", err)
		}
	}
	bundle := k.bundle(now)
	if !bytes.Equal(out[CAFile], bundle) && len(why) == 0 {
		why = append(why, "ca.crt held expired or unusable CAs")
	}
	out[CAFile] = bundle
	leafWhy, urgent := p.leafProblem(k, hosts, bundle, now)
	switch {
	case leafWhy == "":
	case urgent || trusted.trusts(k.ca, now, p.publishGrace):
		why = append(why, leafWhy)
		pair, err := newLeaf(k.ca, k.caKey, hosts, now, p.leafValidity)
		if err != nil {
			return nil, nil, "", err
		}
		if out[KeyFile], err = keyutil.MarshalPrivateKeyToPEM(pair.PrivateKey); err != nil {
			return nil, nil, "", fmt.Errorf("encoding the webhook serving key: %w", err)
		}
		out[CertFile] = pemCert(pair.Leaf)
	default:
		waiting = leafWhy + ": waiting until the webhook configurations trust the current CA"
	}
	if len(why) == 0 {
		return data, nil, waiting, nil
	}
	return out, why, waiting, nil
}

// leafProblem says why the serving certificate must be re-issued, and
// whether at once, or "" when it is fine.
func (p rotation) leafProblem(k kept, hosts []string, bundle []byte, now time.Time) (why string, urgent bool) {
	if k.leaf == nil {
		return "there was no usable serving certificate", true
	}
	if !sameHosts(k.leaf, hosts) {
		return fmt.Sprintf("the serving certificate was not for %v", hosts), true
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(bundle)
	if _, err := k.leaf.Verify(x509.VerifyOptions{Roots: roots, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
		return fmt.Sprintf("the serving certificate did not verify against the CAs trusted: %v", err), true
	}
	if k.leaf.CheckSignatureFrom(k.ca) != nil {
		return "the serving certificate was signed by the previous CA", false
	}
	if due := p.dueAt(k.leaf); !now.Before(due) {
		return fmt.Sprintf("the serving certificate was due for renewal at %s", due.UTC().Format(time.RFC3339)), false
	}
	return "", false
}

// sameHosts says whether c names exactly hosts, as DNS names and IP
// addresses.
func sameHosts(c *x509.Certificate, hosts []string) bool {
	var names []string
	names = append(names, c.DNSNames...)
	for _, ip := range c.IPAddresses {
		names = append(names, ip.String())
	}
	want := slices.Clone(hosts)
	slices.Sort(names)
	slices.Sort(want)
	return slices.Equal(names, want)
}

// newCA makes a CA valid from now (less backdate) for validity.
func newCA(now time.Time, validity time.Duration) (*x509.Certificate, crypto.Signer, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("generating the webhook CA key: %w", err)
	}
	template, err := certTemplate(fmt.Sprintf("corral-hub-webhook-ca@%d", now.Unix()), now, now.Add(validity))
	if err != nil {
		return nil, nil, err
	}
	template.IsCA, template.BasicConstraintsValid = true, true
	template.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, template, template, key.Public(), key)
	if err != nil {
		return nil, nil, fmt.Errorf("making the webhook CA: %w", err)
	}
	ca, err := x509.ParseCertificate(der)
	return ca, key, err
}

// newLeaf makes a serving certificate for hosts signed by ca, valid from
// now (less backdate) for validity, but not beyond ca.
func newLeaf(ca *x509.Certificate, caKey crypto.Signer, hosts []string, now time.Time, validity time.Duration) (*tls.Certificate, error) {
	if len(hosts) == 0 {
		return nil, errors.New("issuing the webhook serving certificate: no host to issue it for")
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating the webhook serving key: %w", err)
	}
	notAfter := now.Add(validity)
	if ca.NotAfter.Before(notAfter) {
		notAfter = ca.NotAfter
	}
	template, err := certTemplate(hosts[0], now, notAfter)
	if err != nil {
		return nil, err
	}
	template.KeyUsage = x509.KeyUsageDigitalSignature
	template.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			template.IPAddresses = append(template.IPAddresses, ip)
		} else {
			template.DNSNames = append(template.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, template, ca, key.Public(), caKey)
	if err != nil {
		return nil, fmt.Errorf("issuing the webhook serving certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}

func certTemplate(commonName string, now, notAfter time.Time) (*x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, fmt.Errorf("picking a certificate serial number: %w", err)
	}
	return &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: commonName},
		NotBefore:    now.Add(-backdate).UTC(),
		NotAfter:     notAfter.UTC(),
	}, nil
}
