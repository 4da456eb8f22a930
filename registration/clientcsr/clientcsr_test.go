package clientcsr

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"strings"
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
)

func request(t *testing.T, tmpl x509.CertificateRequest) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &tmpl, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

func subject(cn string, orgs ...string) x509.CertificateRequest {
	return x509.CertificateRequest{Subject: pkix.Name{CommonName: cn, Organization: orgs}}
}

func TestValidate(t *testing.T) {
	good := subject("system:open-cluster-management:c1:agent1", "system:open-cluster-management:c1", ManagedClustersGroup)
	clientUsages := []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment, certificatesv1.UsageClientAuth}
	cases := map[string]struct {
		label   string
		signer  string
		usages  []certificatesv1.KeyUsage
		req     []byte
		wantErr string // empty: valid
	}{
		"an agent's request":                 {req: request(t, good)},
		"without the managed-clusters group": {req: request(t, subject("system:open-cluster-management:c1:a", "system:open-cluster-management:c1"))},
		"no cluster label":                   {label: "-", req: request(t, good), wantErr: "label"},
		"another signer":                     {signer: "kubernetes.io/kubelet-serving", req: request(t, good), wantErr: "signer"},
		"server auth":                        {usages: []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth, certificatesv1.UsageServerAuth}, req: request(t, good), wantErr: "server auth"},
		"no client auth":                     {usages: []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature}, req: request(t, good), wantErr: "client auth"},
		"another cluster's name in the CN":   {req: request(t, subject("system:open-cluster-management:c2:agent1", "system:open-cluster-management:c1")), wantErr: "common name"},
		"another cluster's group":            {req: request(t, subject("system:open-cluster-management:c1:agent1", "system:open-cluster-management:c1", "system:open-cluster-management:c2")), wantErr: "system:open-cluster-management:c2"},
		"a group it may not have":            {req: request(t, subject("system:open-cluster-management:c1:agent1", "system:open-cluster-management:c1", "system:masters")), wantErr: "system:masters"},
		"no cluster group":                   {req: request(t, subject("system:open-cluster-management:c1:agent1", ManagedClustersGroup)), wantErr: "does not ask for group"},
		"no agent in the CN":                 {req: request(t, subject("system:open-cluster-management:c1:", "system:open-cluster-management:c1")), wantErr: "common name"},
		"the label names another cluster":    {label: "c2", req: request(t, good), wantErr: "system:open-cluster-management:c1"},
		"a DNS name":                         {req: request(t, x509.CertificateRequest{Subject: good.Subject, DNSNames: []string{"hub.example.com"}}), wantErr: "alternative names"},
		"not PEM":                            {req: []byte("hello"), wantErr: "PEM"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			labels := map[string]string{clusterv1.ClusterNameLabelKey: "c1"}
			switch tc.label {
			case "-":
				labels = nil
			case "":
			default:
				labels[clusterv1.ClusterNameLabelKey] = tc.label
			}
			signer := certificatesv1.KubeAPIServerClientSignerName
			if tc.signer != "" {
				signer = tc.signer
			}
			usages := clientUsages
			if tc.usages != nil {
				usages = tc.usages
			}
			csr := &certificatesv1.CertificateSigningRequest{
				ObjectMeta: metav1.ObjectMeta{Name: "x", Labels: labels},
				Spec:       certificatesv1.CertificateSigningRequestSpec{SignerName: signer, Usages: usages, Request: tc.req},
			}
			got, err := Validate(csr)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want valid", err)
				}
				if got.Cluster != "c1" || !strings.HasPrefix(got.CommonName, "system:open-cluster-management:c1:") {
					t.Errorf("Validate() = %+v", got)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Validate() = %v, want an error about %q", err, tc.wantErr)
			}
		})
	}
}

// TestApproveAndDeny: each records its decision as a True condition with
// the reason and message given, after what the CSR already says, and the
// CSR is no longer pending.
func TestApproveAndDeny(t *testing.T) {
	for name, tc := range map[string]struct {
		decide func(*certificatesv1.CertificateSigningRequest, string, string)
		want   certificatesv1.RequestConditionType
	}{
		"approve": {decide: Approve, want: certificatesv1.CertificateApproved},
		"deny":    {decide: Deny, want: certificatesv1.CertificateDenied},
	} {
		t.Run(name, func(t *testing.T) {
			earlier := certificatesv1.CertificateSigningRequestCondition{Type: "Other", Status: corev1.ConditionTrue}
			csr := &certificatesv1.CertificateSigningRequest{Status: certificatesv1.CertificateSigningRequestStatus{
				Conditions: []certificatesv1.CertificateSigningRequestCondition{earlier},
			}}
			if !Pending(csr) {
				t.Fatal("the CSR should be pending before a decision")
			}
			tc.decide(csr, "SomeReason", "some message")
			if len(csr.Status.Conditions) != 2 || csr.Status.Conditions[0] != earlier {
				t.Fatalf("conditions = %+v, want the earlier one and the decision", csr.Status.Conditions)
			}
			got := csr.Status.Conditions[1]
			if got.Type != tc.want || got.Status != corev1.ConditionTrue || got.Reason != "SomeReason" || got.Message != "some message" || got.LastUpdateTime.IsZero() {
				t.Errorf("decision = %+v", got)
			}
			if Pending(csr) {
				t.Error("the CSR is still pending after a decision")
			}
		})
	}
}

func TestNewKeyAndRequest(t *testing.T) {
	keyPEM, reqPEM, err := NewKeyAndRequest(pkix.Name{CommonName: "system:open-cluster-management:c1:a1", Organization: []string{"g1", "g2"}}, "hello.addon.open-cluster-management.io")
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(reqPEM)
	req, err := x509.ParseCertificateRequest(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if err := req.CheckSignature(); err != nil {
		t.Errorf("request signature: %v", err)
	}
	if req.Subject.CommonName != "system:open-cluster-management:c1:a1" || strings.Join(req.Subject.Organization, ",") != "g1,g2" {
		t.Errorf("subject %v, want CN system:open-cluster-management:c1:a1, O g1,g2", req.Subject)
	}
	if strings.Join(req.DNSNames, ",") != "hello.addon.open-cluster-management.io" {
		t.Errorf("DNS names %v, want hello.addon.open-cluster-management.io", req.DNSNames)
	}
	block, _ = pem.Decode(keyPEM)
	key, err := x509.ParseECPrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if !key.PublicKey.Equal(req.PublicKey) {
		t.Error("the request is not for the key")
	}
}

func TestRotationTime(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if got, want := RotationTime(start, start.Add(100*time.Minute)), start.Add(80*time.Minute); !got.Equal(want) {
		t.Errorf("RotationTime = %s, want %s", got, want)
	}
}
