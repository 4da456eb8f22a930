package localcluster

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPKIEnsureServingCert(t *testing.T) {
	k := ensuredPKI(t)
	roots := caPoolFor(t, k)
	serving := readCert(t, k.servingCert())
	cases := map[string]struct {
		host    string
		usage   x509.ExtKeyUsage
		wantErr bool
	}{
		"localhost":               {host: "localhost", usage: x509.ExtKeyUsageServerAuth},
		"127.0.0.1":               {host: "127.0.0.1", usage: x509.ExtKeyUsageServerAuth},
		"::1":                     {host: "::1", usage: x509.ExtKeyUsageServerAuth},
		"kubernetes.default.svc":  {host: "kubernetes.default.svc", usage: x509.ExtKeyUsageServerAuth},
		"another host is refused": {host: "example.com", usage: x509.ExtKeyUsageServerAuth, wantErr: true},
		"client usage is refused": {host: "localhost", usage: x509.ExtKeyUsageClientAuth, wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := serving.Verify(x509.VerifyOptions{Roots: roots, DNSName: tc.host, KeyUsages: []x509.ExtKeyUsage{tc.usage}})
			if gotErr := err != nil; gotErr != tc.wantErr {
				t.Errorf("Verify(%s) = %v, want error: %t", tc.host, err, tc.wantErr)
			}
		})
	}
	if _, err := tls.LoadX509KeyPair(k.servingCert(), k.servingKey()); err != nil {
		t.Errorf("serving key does not match its certificate: %v", err)
	}
}

func TestPKIEnsureClientCerts(t *testing.T) {
	k := ensuredPKI(t)
	roots := caPoolFor(t, k)
	type subject struct {
		CN string
		O  []string
	}
	cases := map[string]struct {
		id   identity
		want subject
	}{
		"admin":                   {id: adminIdentity, want: subject{CN: "corral-admin", O: []string{"system:masters"}}},
		"kube-controller-manager": {id: kcmIdentity, want: subject{CN: "system:kube-controller-manager"}},
		"kube-scheduler":          {id: schedulerIdentity, want: subject{CN: "system:kube-scheduler"}},
		"kwok":                    {id: kwokIdentity, want: subject{CN: "kwok", O: []string{"system:masters"}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cert := readCert(t, k.cert(tc.id))
			got := subject{CN: cert.Subject.CommonName, O: cert.Subject.Organization}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("subject (-want +got):\n%s", diff)
			}
			if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
				t.Errorf("client certificate does not verify against the CA for client auth: %v", err)
			}
			if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err == nil {
				t.Error("client certificate verifies for server auth, want only client auth")
			}
			if _, err := tls.LoadX509KeyPair(k.cert(tc.id), k.key(tc.id)); err != nil {
				t.Errorf("key does not match the certificate: %v", err)
			}
		})
	}
}

func TestPKIEnsureTwiceKeepsEverything(t *testing.T) {
	k := ensuredPKI(t)
	files := []string{k.caCert(), k.caKey(), k.servingCert(), k.servingKey(), k.saKey(), k.saPub(), k.cert(adminIdentity), k.key(adminIdentity)}
	before := map[string][]byte{}
	for _, f := range files {
		before[f] = readFile(t, f)
	}
	if err := k.ensure(nil, nil); err != nil {
		t.Fatalf("second ensure() = %v", err)
	}
	for _, f := range files {
		if !bytes.Equal(before[f], readFile(t, f)) {
			t.Errorf("second ensure() rewrote %s, want it reused", filepath.Base(f))
		}
	}
}

func TestPKIEnsureServiceAccountKeys(t *testing.T) {
	k := ensuredPKI(t)
	b, _ := pem.Decode(readFile(t, k.saKey()))
	if b == nil || b.Type != "EC PRIVATE KEY" {
		t.Fatalf("sa.key is not an EC PRIVATE KEY PEM block: %v", b)
	}
	key, err := x509.ParseECPrivateKey(b.Bytes)
	if err != nil {
		t.Fatalf("parsing sa.key: %v", err)
	}
	b, _ = pem.Decode(readFile(t, k.saPub()))
	if b == nil || b.Type != "PUBLIC KEY" {
		t.Fatalf("sa.pub is not a PUBLIC KEY PEM block: %v", b)
	}
	pub, err := x509.ParsePKIXPublicKey(b.Bytes)
	if err != nil {
		t.Fatalf("parsing sa.pub: %v", err)
	}
	if ecPub, ok := pub.(*ecdsa.PublicKey); !ok || !key.PublicKey.Equal(ecPub) {
		t.Error("sa.pub is not the public half of sa.key")
	}
}

func TestPKIEnsureKeysArePrivate(t *testing.T) {
	k := ensuredPKI(t)
	for _, f := range []string{k.caKey(), k.servingKey(), k.saKey(), k.key(adminIdentity)} {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if perm := st.Mode().Perm(); perm != 0o600 {
			t.Errorf("%s has mode %v, want 0600", filepath.Base(f), perm)
		}
	}
}

func ensuredPKI(t *testing.T) pki {
	t.Helper()
	k := pki{dir: filepath.Join(t.TempDir(), pkiDir)}
	if err := k.ensure(nil, nil); err != nil {
		t.Fatalf("ensure() = %v", err)
	}
	return k
}

func caPoolFor(t *testing.T, k pki) *x509.CertPool {
	t.Helper()
	pool, err := caPool(k.caCert())
	if err != nil {
		t.Fatal(err)
	}
	if ca := readCert(t, k.caCert()); !ca.IsCA {
		t.Error("ca.crt is not a CA certificate")
	}
	return pool
}

func readCert(t *testing.T, path string) *x509.Certificate {
	t.Helper()
	b, _ := pem.Decode(readFile(t, path))
	if b == nil {
		t.Fatalf("%s holds no PEM block", path)
	}
	cert, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		t.Fatalf("parsing %s: %v", path, err)
	}
	return cert
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
