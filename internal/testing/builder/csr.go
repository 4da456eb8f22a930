package builder

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"

	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CSRBuilder builds a CertificateSigningRequest.
type CSRBuilder struct {
	csr certificatesv1.CertificateSigningRequest
}

// CSR is the CertificateSigningRequest name for a kube-apiserver client
// certificate (the signer of every request a cluster or an addon agent
// makes), with nothing else set.
func CSR(name string) *CSRBuilder {
	return &CSRBuilder{csr: certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: certificatesv1.CertificateSigningRequestSpec{SignerName: certificatesv1.KubeAPIServerClientSignerName}}}
}

// GenerateName has the API server name the request prefix followed by
// random characters; the request's name is best "" then.
func (b *CSRBuilder) GenerateName(prefix string) *CSRBuilder {
	b.csr.GenerateName = prefix
	return b
}

// Label sets the label k to v.
func (b *CSRBuilder) Label(k, v string) *CSRBuilder {
	setKey(&b.csr.Labels, k, v)
	return b
}

// Subject sets the certificate request to one for the subject cn, orgs,
// with a fresh key (see CertificateRequest).
func (b *CSRBuilder) Subject(cn string, orgs ...string) *CSRBuilder {
	return b.Request(CertificateRequest(cn, orgs...))
}

// Request sets the PEM certificate request.
func (b *CSRBuilder) Request(pemRequest []byte) *CSRBuilder {
	b.csr.Spec.Request = pemRequest
	return b
}

// Usages sets the key usages asked for.
func (b *CSRBuilder) Usages(usages ...certificatesv1.KeyUsage) *CSRBuilder {
	b.csr.Spec.Usages = usages
	return b
}

// Requester says who made the request, as the API server records it.
func (b *CSRBuilder) Requester(username string, groups ...string) *CSRBuilder {
	b.csr.Spec.Username, b.csr.Spec.Groups = username, groups
	return b
}

// Obj is a copy of the CertificateSigningRequest built so far.
func (b *CSRBuilder) Obj() *certificatesv1.CertificateSigningRequest { return b.csr.DeepCopy() }

// CertificateRequest is a PEM certificate request for the subject cn,
// orgs, signed with a fresh P-256 key. It panics if the key or request
// cannot be made, which only a broken random source does.
func CertificateRequest(cn string, orgs ...string) []byte {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: cn, Organization: orgs}}, key)
	if err != nil {
		panic(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}
