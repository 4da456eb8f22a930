package webhook

import (
	"bytes"
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

const day = 24 * time.Hour

var svcHosts = Options{Service: &ServiceRef{Namespace: "ocm", Name: "hub-webhook", Port: 443}}.hosts()

// testCA is a CA issued at the given time, with its key.
type testCA struct {
	cert *x509.Certificate
	key  crypto.Signer
}

func issueCA(t *testing.T, at time.Time) testCA {
	t.Helper()
	cert, key, err := newCA(at, defaultRotation.caValidity)
	if err != nil {
		t.Fatal(err)
	}
	return testCA{cert: cert, key: key}
}

func issueLeaf(t *testing.T, ca testCA, hosts []string, at time.Time) *tls.Certificate {
	t.Helper()
	leaf, err := newLeaf(ca.cert, ca.key, hosts, at, defaultRotation.leafValidity)
	if err != nil {
		t.Fatal(err)
	}
	return leaf
}

// secretData is what a Secret holds with ca as the current CA, previous
// trusted beside it, and leaf.
func secretData(t *testing.T, ca testCA, leaf *tls.Certificate, previous ...testCA) map[string][]byte {
	t.Helper()
	caKey, err := keyutil.MarshalPrivateKeyToPEM(ca.key)
	if err != nil {
		t.Fatal(err)
	}
	key, err := keyutil.MarshalPrivateKeyToPEM(leaf.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	bundle := pemCert(ca.cert)
	for _, p := range previous {
		bundle = append(bundle, pemCert(p.cert)...)
	}
	return map[string][]byte{CertFile: pemCert(leaf.Leaf), KeyFile: key, CAFile: bundle, CAKeyFile: caKey}
}

func with(data map[string][]byte, key string, value []byte) map[string][]byte {
	out := map[string][]byte{}
	for k, v := range data {
		out[k] = v
	}
	out[key] = value
	return out
}

func TestRenew(t *testing.T) {
	t0 := now
	caA, caB, other := issueCA(t, t0), issueCA(t, t0.Add(293*day)), issueCA(t, t0)
	leafA := issueLeaf(t, caA, svcHosts, t0)
	fresh := secretData(t, caA, leafA)
	otherKey, err := keyutil.MarshalPrivateKeyToPEM(issueLeaf(t, caA, svcHosts, t0).PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	caDueLeaf := issueLeaf(t, caA, svcHosts, t0.Add(290*day))
	// rotated: B is current, A still trusted, the leaf still A's.
	rotated := secretData(t, caB, caDueLeaf, caA)
	trustedSince := func(ca testCA, at time.Time) published { return published{string(ca.cert.Raw): at} }

	cases := map[string]struct {
		data    map[string][]byte
		trusted published
		at      time.Time
		// wantBundle names the CAs of ca.crt in order: A, B, or new.
		wantBundle []string
		// wantLeafBy names the CA that signed the leaf; wantNewLeaf says
		// whether it was re-issued.
		wantLeafBy  string
		wantNewLeaf bool
		wantWhy     string // in why; "" for no change
		wantWaiting string // in waiting; "" for none
	}{
		"missing: a CA and a serving certificate at once": {
			data: nil, at: t0,
			wantBundle: []string{"new"}, wantLeafBy: "new", wantNewLeaf: true, wantWhy: "there was no usable CA; there was no usable serving certificate",
		},
		"fresh: nothing to do": {
			data: fresh, trusted: trustedSince(caA, t0), at: t0.Add(day),
			wantBundle: []string{"A"}, wantLeafBy: "A",
		},
		"a serving certificate at 79% of its life is kept": {
			data: fresh, trusted: trustedSince(caA, t0), at: t0.Add(23 * day),
			wantBundle: []string{"A"}, wantLeafBy: "A",
		},
		"a serving certificate past 80% of its life is renewed by the trusted CA": {
			data: fresh, trusted: trustedSince(caA, t0), at: t0.Add(25 * day),
			wantBundle: []string{"A"}, wantLeafBy: "A", wantNewLeaf: true, wantWhy: "the serving certificate was due for renewal",
		},
		"a due serving certificate waits until the configurations have trusted its CA for the grace": {
			data: fresh, trusted: trustedSince(caA, t0.Add(25*day-10*time.Second)), at: t0.Add(25 * day),
			wantBundle: []string{"A"}, wantLeafBy: "A", wantWaiting: "due for renewal",
		},
		"a due serving certificate waits for a new leader's first apply": {
			data: fresh, trusted: published{}, at: t0.Add(25 * day),
			wantBundle: []string{"A"}, wantLeafBy: "A", wantWaiting: "waiting until the webhook configurations trust the current CA",
		},
		"a CA past 80% of its life is renewed and the old one stays trusted; the serving certificate waits": {
			data: secretData(t, caA, caDueLeaf), trusted: trustedSince(caA, t0), at: t0.Add(293 * day),
			wantBundle: []string{"new", "A"}, wantLeafBy: "A", wantWhy: "the CA was due for renewal", wantWaiting: "signed by the previous CA",
		},
		"after a CA renewal, the serving certificate waits while the new CA is trusted for less than the grace": {
			data: rotated, trusted: trustedSince(caB, t0.Add(293*day-5*time.Second)), at: t0.Add(293 * day),
			wantBundle: []string{"B", "A"}, wantLeafBy: "A", wantWaiting: "signed by the previous CA",
		},
		"after a CA renewal, the serving certificate switches once the new CA is trusted for the grace": {
			data: rotated, trusted: trustedSince(caB, t0.Add(293*day-31*time.Second)), at: t0.Add(293 * day),
			wantBundle: []string{"B", "A"}, wantLeafBy: "B", wantNewLeaf: true, wantWhy: "signed by the previous CA",
		},
		"the previous CA leaves ca.crt once it expired": {
			data: secretData(t, caB, issueLeaf(t, caB, svcHosts, t0.Add(360*day)), caA), trusted: trustedSince(caB, t0), at: t0.Add(366 * day),
			wantBundle: []string{"B"}, wantLeafBy: "B", wantWhy: "ca.crt held expired or unusable CAs",
		},
		"a serving certificate for other names is re-issued at once": {
			data: secretData(t, caA, issueLeaf(t, caA, []string{"hub.example"}, t0)), at: t0.Add(day),
			wantBundle: []string{"A"}, wantLeafBy: "A", wantNewLeaf: true, wantWhy: "the serving certificate was not for",
		},
		"an expired serving certificate is re-issued at once": {
			data: fresh, at: t0.Add(31 * day),
			wantBundle: []string{"A"}, wantLeafBy: "A", wantNewLeaf: true, wantWhy: "did not verify against the CAs trusted",
		},
		"a garbage serving certificate is re-issued at once": {
			data: with(fresh, CertFile, []byte("garbage")), at: t0.Add(day),
			wantBundle: []string{"A"}, wantLeafBy: "A", wantNewLeaf: true, wantWhy: "there was no usable serving certificate",
		},
		"a serving key that is not the certificate's is re-issued at once": {
			data: with(fresh, KeyFile, otherKey), at: t0.Add(day),
			wantBundle: []string{"A"}, wantLeafBy: "A", wantNewLeaf: true, wantWhy: "there was no usable serving certificate",
		},
		"a garbage CA is replaced, and the serving certificate it no longer verifies is re-issued at once": {
			data: with(with(fresh, CAFile, []byte("garbage")), CAKeyFile, []byte("garbage")), at: t0.Add(day),
			wantBundle: []string{"new"}, wantLeafBy: "new", wantNewLeaf: true, wantWhy: "there was no usable CA; the serving certificate did not verify",
		},
		"a CA key that is not the CA's: a new CA, the old one trusted beside it, the serving certificate waits": {
			data: with(fresh, CAKeyFile, secretData(t, other, leafA)[CAKeyFile]), at: t0.Add(day),
			wantBundle: []string{"new", "A"}, wantLeafBy: "A", wantWhy: "there was no usable CA", wantWaiting: "signed by the previous CA",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out, why, waiting, err := defaultRotation.renew(tc.data, svcHosts, tc.trusted, tc.at)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(why, "; "); !strings.Contains(got, tc.wantWhy) || (tc.wantWhy == "") != (got == "") {
				t.Errorf("why = %q, want %q", got, tc.wantWhy)
			}
			if !strings.Contains(waiting, tc.wantWaiting) || (tc.wantWaiting == "") != (waiting == "") {
				t.Errorf("waiting = %q, want %q", waiting, tc.wantWaiting)
			}
			if tc.wantWhy == "" && !maps.EqualFunc(tc.data, out, bytes.Equal) {
				t.Error("the data changed with no reason given")
			}
			k := parseKept(out)
			if k.ca == nil || k.leaf == nil {
				t.Fatalf("the result has no usable CA (%v) or serving certificate (%v)", k.ca != nil, k.leaf != nil)
			}
			name := func(c *x509.Certificate) string {
				switch {
				case c.Equal(caA.cert):
					return "A"
				case c.Equal(caB.cert):
					return "B"
				case c.Equal(k.ca):
					return "new"
				}
				return "unknown " + c.Subject.CommonName
			}
			bundle, err := certutil.ParseCertsPEM(out[CAFile])
			if err != nil {
				t.Fatal(err)
			}
			var gotBundle []string
			for _, c := range bundle {
				gotBundle = append(gotBundle, name(c))
			}
			if diff := cmp.Diff(tc.wantBundle, gotBundle); diff != "" {
				t.Errorf("ca.crt (-want +got):\n%s", diff)
			}
			by := "none of ca.crt"
			for _, c := range bundle {
				if k.leaf.CheckSignatureFrom(c) == nil {
					by = name(c)
				}
			}
			if by != tc.wantLeafBy {
				t.Errorf("the serving certificate is signed by %s, want %s", by, tc.wantLeafBy)
			}
			old := parseKept(tc.data).leaf
			if gotNew := old == nil || !old.Equal(k.leaf); gotNew != tc.wantNewLeaf {
				t.Errorf("serving certificate re-issued = %v, want %v", gotNew, tc.wantNewLeaf)
			}
			if _, err := tls.X509KeyPair(out[CertFile], out[KeyFile]); err != nil {
				t.Errorf("tls.crt and tls.key are not a pair: %v", err)
			}
			if !sameHosts(k.leaf, svcHosts) {
				t.Errorf("the serving certificate is for %v and %v, want %v", k.leaf.DNSNames, k.leaf.IPAddresses, svcHosts)
			}
		})
	}
}

func TestNewLeafNeverOutlivesItsCA(t *testing.T) {
	ca := issueCA(t, now)
	leaf := issueLeaf(t, ca, []string{"127.0.0.1"}, now.Add(360*day))
	if !leaf.Leaf.NotAfter.Equal(ca.cert.NotAfter) {
		t.Errorf("the serving certificate ends %s, want its CA's end %s", leaf.Leaf.NotAfter, ca.cert.NotAfter)
	}
	if len(leaf.Leaf.IPAddresses) != 1 || len(leaf.Leaf.DNSNames) != 0 {
		t.Errorf("a certificate for 127.0.0.1 has IPs %v and DNS names %v", leaf.Leaf.IPAddresses, leaf.Leaf.DNSNames)
	}
}

func TestPublished(t *testing.T) {
	caA, caB := issueCA(t, now), issueCA(t, now)
	p := published{}
	p.record(pemCert(caA.cert), now)
	p.record(append(pemCert(caB.cert), pemCert(caA.cert)...), now.Add(time.Minute))
	cases := map[string]struct {
		ca   testCA
		at   time.Time
		want bool
	}{
		"trusted since the first apply":   {ca: caA, at: now.Add(time.Minute), want: true},
		"trusted for less than the grace": {ca: caB, at: now.Add(time.Minute + 29*time.Second)},
		"trusted for the grace":           {ca: caB, at: now.Add(time.Minute + 30*time.Second), want: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := p.trusts(tc.ca.cert, tc.at, defaultRotation.publishGrace); got != tc.want {
				t.Errorf("trusts = %v, want %v", got, tc.want)
			}
		})
	}
	p.record(pemCert(caB.cert), now.Add(time.Hour))
	if p.trusts(caA.cert, now.Add(time.Hour), 0) {
		t.Error("a CA no longer in the bundle is still trusted")
	}
}
