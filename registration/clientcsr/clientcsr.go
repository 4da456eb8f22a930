// Package clientcsr decides whether a CertificateSigningRequest is a
// well-formed request for a cluster agent's hub client certificate, as OCM
// defines one: signer kubernetes.io/kube-apiserver-client, the cluster-name
// label, subject CN system:open-cluster-management:<cluster>:<agent> and
// organizations system:open-cluster-management:<cluster> (plus, optionally,
// system:open-cluster-management:managed-clusters), client-auth usage and
// nothing a server certificate would need.
//
// Both the hub's approver and `corral accept` ask it, so that neither can
// approve what the other would refuse, and record their decisions with
// Approve and Deny. The requesters — the registration agent and the addon
// host — make their requests with NewKeyAndRequest and ask for a new
// certificate at RotateAt of the current one's life (RotationTime).
package clientcsr

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"slices"
	"strings"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
)

// Identity prefixes and groups of cluster agents.
const (
	prefix               = "system:open-cluster-management:"
	ManagedClustersGroup = prefix + "managed-clusters"
)

// ClusterGroup is the group every identity of cluster belongs to.
func ClusterGroup(cluster string) string { return prefix + cluster }

// allowedUsages are those of a client certificate.
var allowedUsages = []certificatesv1.KeyUsage{
	certificatesv1.UsageClientAuth, certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment,
}

// Request is a validated agent request.
type Request struct {
	// Cluster is the cluster the request is for.
	Cluster string
	// CommonName is the identity the certificate will carry.
	CommonName string
}

// Validate returns the request csr makes, or an error saying, in one line,
// why it is not a cluster agent's client certificate request.
func Validate(csr *certificatesv1.CertificateSigningRequest) (*Request, error) {
	cluster := csr.Labels[clusterv1.ClusterNameLabelKey]
	if cluster == "" {
		return nil, fmt.Errorf("it has no %s label", clusterv1.ClusterNameLabelKey)
	}
	if csr.Spec.SignerName != certificatesv1.KubeAPIServerClientSignerName {
		return nil, fmt.Errorf("its signer is %q, not %s", csr.Spec.SignerName, certificatesv1.KubeAPIServerClientSignerName)
	}
	if !slices.Contains(csr.Spec.Usages, certificatesv1.UsageClientAuth) {
		return nil, fmt.Errorf("it does not ask for client auth")
	}
	for _, u := range csr.Spec.Usages {
		if !slices.Contains(allowedUsages, u) {
			return nil, fmt.Errorf("it asks for %q, which a client certificate does not need", u)
		}
	}
	block, _ := pem.Decode(csr.Spec.Request)
	if block == nil || block.Type != "CERTIFICATE REQUEST" {
		return nil, fmt.Errorf("its request is not a PEM CERTIFICATE REQUEST")
	}
	req, err := x509.ParseCertificateRequest(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("its request does not parse: %w", err)
	}
	if err := req.CheckSignature(); err != nil {
		return nil, fmt.Errorf("its request is not signed by its key: %w", err)
	}
	if len(req.DNSNames)+len(req.IPAddresses)+len(req.EmailAddresses)+len(req.URIs) > 0 {
		return nil, fmt.Errorf("it asks for subject alternative names, which a client certificate does not need")
	}
	group := ClusterGroup(cluster)
	for _, o := range req.Subject.Organization {
		if o != group && o != ManagedClustersGroup {
			return nil, fmt.Errorf("it asks for group %q: an agent of %s may only be in %s and %s", o, cluster, group, ManagedClustersGroup)
		}
	}
	if !slices.Contains(req.Subject.Organization, group) {
		return nil, fmt.Errorf("it does not ask for group %s", group)
	}
	agent, ok := strings.CutPrefix(req.Subject.CommonName, group+":")
	if !ok || agent == "" || strings.Contains(agent, ":") {
		return nil, fmt.Errorf("its common name %q is not %s:<agent>", req.Subject.CommonName, group)
	}
	return &Request{Cluster: cluster, CommonName: req.Subject.CommonName}, nil
}

// Pending reports whether csr awaits a decision.
func Pending(csr *certificatesv1.CertificateSigningRequest) bool {
	for _, c := range csr.Status.Conditions {
		if c.Type == certificatesv1.CertificateApproved || c.Type == certificatesv1.CertificateDenied || c.Type == certificatesv1.CertificateFailed {
			return false
		}
	}
	return true
}

// Approve records on csr that reason approved it, saying message; the
// caller then writes it with UpdateApproval.
func Approve(csr *certificatesv1.CertificateSigningRequest, reason, message string) {
	decide(csr, certificatesv1.CertificateApproved, reason, message)
}

// Deny records on csr that reason denied it, saying message; the caller
// then writes it with UpdateApproval.
func Deny(csr *certificatesv1.CertificateSigningRequest, reason, message string) {
	decide(csr, certificatesv1.CertificateDenied, reason, message)
}

func decide(csr *certificatesv1.CertificateSigningRequest, typ certificatesv1.RequestConditionType, reason, message string) {
	csr.Status.Conditions = append(csr.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
		Type: typ, Status: corev1.ConditionTrue, Reason: reason, Message: message, LastUpdateTime: metav1.Now(),
	})
}

// NewKeyAndRequest makes a fresh ECDSA P-256 key, as OCM's agents do, and a
// certificate request for subject (and dnsNames, which OCM's addon
// requests carry); both PEM-encoded.
func NewKeyAndRequest(subject pkix.Name, dnsNames ...string) (keyPEM, requestPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: subject, DNSNames: dnsNames}, key)
	if err != nil {
		return nil, nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}), nil
}

// RotateAt is the share of a certificate's life after which its holder
// asks for a new one.
const RotateAt = 0.8

// RotationTime is when the holder of a certificate valid from notBefore to
// notAfter asks for a new one: once RotateAt of its life is over.
func RotationTime(notBefore, notAfter time.Time) time.Time {
	return notBefore.Add(time.Duration(float64(notAfter.Sub(notBefore)) * RotateAt))
}
