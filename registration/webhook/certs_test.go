package webhook

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
)

func TestGeneratedCertificateVerifiesForItsHost(t *testing.T) {
	for _, host := range []string{"127.0.0.1", "hub.example.com"} {
		t.Run(host, func(t *testing.T) {
			caPEM, cert, err := generateCerts(host)
			if err != nil {
				t.Fatal(err)
			}
			roots := x509.NewCertPool()
			if !roots.AppendCertsFromPEM(caPEM) {
				t.Fatal("the CA is not PEM")
			}
			leaf, err := x509.ParseCertificate(cert.Certificate[0])
			if err != nil {
				t.Fatal(err)
			}
			if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: host, CurrentTime: time.Now().Add(24 * time.Hour)}); err != nil {
				t.Errorf("the serving certificate does not verify for %s: %v", host, err)
			}
			if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: "other.example", CurrentTime: time.Now()}); err == nil {
				t.Error("the serving certificate verifies for a host it was not issued for")
			}
			if lasts := time.Until(leaf.NotAfter); lasts < generatedValidity-2*time.Hour {
				t.Errorf("the serving certificate lasts %s, want about %s", lasts, generatedValidity)
			}
		})
	}
}

// writeCertDir writes a generated pair for 127.0.0.1 to a directory, with
// the CA given (the right one when nil).
func writeCertDir(t *testing.T, caPEM []byte) string {
	t.Helper()
	ownCA, cert, err := generateCerts("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	if caPEM == nil {
		caPEM = ownCA
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		CertFile: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}),
		KeyFile:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
		CAFile:   caPEM,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCertDir(t *testing.T) {
	otherCA, _, err := generateCerts("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	good := writeCertDir(t, nil)
	noCA := writeCertDir(t, nil)
	if err := os.Remove(filepath.Join(noCA, CAFile)); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		dir  string
		want string // in the error; "" for none
	}{
		"a pair and the CA that signed it":  {dir: good},
		"a pair signed by another CA":       {dir: writeCertDir(t, otherCA), want: "tls.crt does not verify against ca.crt"},
		"no ca.crt":                         {dir: noCA, want: "needs ca.crt, the CA that signed tls.crt"},
		"a ca.crt that is not PEM":          {dir: writeCertDir(t, []byte("nope")), want: "ca.crt holds no PEM certificate"},
		"a directory without a certificate": {dir: t.TempDir(), want: "tls.crt"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			src, err := newCertSource(tc.dir, "127.0.0.1", time.Now())
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				ca, err := src.caBundle()
				want, readErr := os.ReadFile(filepath.Join(tc.dir, CAFile))
				if readErr != nil {
					t.Fatal(readErr)
				}
				if err != nil || string(ca) != string(want) {
					t.Errorf("caBundle = %q, %v; want the directory's CA %q", ca, err, want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestGeneratedSourceServesItsCertificate(t *testing.T) {
	src, err := newCertSource("", "127.0.0.1", now)
	if err != nil {
		t.Fatal(err)
	}
	var cfg tls.Config
	var opts ctrlwebhook.Options
	src.apply(&opts)
	for _, f := range opts.TLSOpts {
		f(&cfg)
	}
	got, err := cfg.GetCertificate(nil)
	if err != nil || got != src.cert {
		t.Errorf("GetCertificate = %v, %v; want the generated certificate", got, err)
	}
	if ca, _ := src.caBundle(); string(ca) != string(src.ca) {
		t.Error("caBundle is not the generated CA")
	}
}
