package webhook

import (
	"context"
	"crypto/x509"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	kubefake "k8s.io/client-go/kubernetes/fake"
	certutil "k8s.io/client-go/util/cert"
	clocktesting "k8s.io/utils/clock/testing"
)

// secretHub is a registrar that keeps its certificate in a Secret, on fake
// clients, with a second source beside it that only serves, as another
// replica would.
type secretHub struct {
	kube    *kubefake.Clientset
	crds    *apiextensionsfake.Clientset
	clock   *clocktesting.FakePassiveClock
	r       *registrar
	leader  *secretSource
	replica *secretSource
}

var testSecret = types.NamespacedName{Namespace: "ocm", Name: DefaultCertSecretName}

func newSecretHub(t *testing.T, ctx context.Context) *secretHub {
	t.Helper()
	// No addon CRDs: the fake cannot server-side apply them.
	h := &secretHub{kube: kubefake.NewClientset(), crds: apiextensionsfake.NewClientset(), clock: clocktesting.NewFakePassiveClock(now)}
	changed := make(chan struct{}, 1)
	h.leader = newSecretSource(h.kube, testSecret, svcHosts, h.clock, changed)
	h.replica = newSecretSource(h.kube, testSecret, svcHosts, h.clock, make(chan struct{}, 1))
	h.r = &registrar{
		kube: h.kube, crds: h.crds, certs: certSource{secret: h.leader},
		endpoint: endpoint{service: &ServiceRef{Namespace: "ocm", Name: "hub-webhook", Port: 443}},
		clock:    h.clock, changed: changed, trusted: published{},
	}
	for _, s := range []*secretSource{h.leader, h.replica} {
		done := make(chan error, 1)
		go func() { done <- s.Start(ctx) }()
		t.Cleanup(func() {
			if err := <-done; err != nil {
				t.Error(err)
			}
		})
	}
	return h
}

// secret is the Secret as stored.
func (h *secretHub) secret(t *testing.T) *corev1.Secret {
	t.Helper()
	s, err := h.kube.CoreV1().Secrets(testSecret.Namespace).Get(context.Background(), testSecret.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// bundles are the caBundles of every configuration.
func (h *secretHub) bundles(t *testing.T) map[string][]byte {
	t.Helper()
	ctx := context.Background()
	out := map[string][]byte{}
	m, err := h.kube.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx, ClusterMutatingName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out[m.Name] = m.Webhooks[0].ClientConfig.CABundle
	for _, name := range []string{ClusterValidatingName, BindingValidatingName} {
		v, err := h.kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out[name] = v.Webhooks[0].ClientConfig.CABundle
	}
	return out
}

// applyAt runs the leader's apply at the given time, then checks what
// must hold after every apply: every configuration trusts ca.crt, and the
// serving certificate in the Secret verifies against what they trust.
func (h *secretHub) applyAt(t *testing.T, ctx context.Context, at time.Time) (leaf *x509.Certificate, bundle []*x509.Certificate) {
	t.Helper()
	h.clock.SetTime(at)
	if err := h.r.apply(ctx); err != nil {
		t.Fatal(err)
	}
	secret := h.secret(t)
	leaf = parseKept(secret.Data).leaf
	if leaf == nil {
		t.Fatal("the Secret holds no serving certificate")
	}
	for name, b := range h.bundles(t) {
		if string(b) != string(secret.Data[CAFile]) {
			t.Errorf("%s trusts other CAs than the Secret's ca.crt", name)
		}
		roots := x509.NewCertPool()
		roots.AppendCertsFromPEM(b)
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: svcHosts[0], CurrentTime: at}); err != nil {
			t.Errorf("the serving certificate does not verify against what %s trusts: %v", name, err)
		}
	}
	bundle, err := certutil.ParseCertsPEM(secret.Data[CAFile])
	if err != nil {
		t.Fatal(err)
	}
	return leaf, bundle
}

// expectServed waits until both sources serve leaf.
func (h *secretHub) expectServed(t *testing.T, ctx context.Context, leaf *x509.Certificate) {
	t.Helper()
	for name, s := range map[string]*secretSource{"the leader": h.leader, "the other replica": h.replica} {
		err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
			c, err := s.getCertificate(nil)
			return err == nil && string(c.Certificate[0]) == string(leaf.Raw), nil
		})
		if err != nil {
			t.Errorf("%s does not serve the Secret's certificate: %v", name, err)
		}
	}
}

func TestSecretSourceCreatesAndRotates(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := newSecretHub(t, ctx)
	if _, err := h.replica.getCertificate(nil); err == nil {
		t.Fatal("a certificate is served before the Secret exists")
	}

	first, bundle := h.applyAt(t, ctx, now)
	secret := h.secret(t)
	if secret.Type != corev1.SecretTypeTLS || secret.Labels[ManagedByLabel] != ManagedByValue {
		t.Errorf("the Secret is of type %s with labels %v", secret.Type, secret.Labels)
	}
	if len(bundle) != 1 || first.CheckSignatureFrom(bundle[0]) != nil {
		t.Fatalf("a new Secret holds %d CAs; want the one that signed the serving certificate", len(bundle))
	}
	h.expectServed(t, ctx, first)
	caA := bundle[0]

	if leaf, _ := h.applyAt(t, ctx, now.Add(10*day)); !leaf.Equal(first) {
		t.Error("the serving certificate changed before it was due")
	}

	// Every 24 days the serving certificate is renewed; the CA is due after
	// 292 days.
	leaf := first
	for at := now.Add(25 * day); at.Before(now.Add(292 * day)); at = at.Add(24 * day) {
		next, _ := h.applyAt(t, ctx, at)
		if next.Equal(leaf) || next.CheckSignatureFrom(caA) != nil {
			t.Fatalf("at %s the serving certificate was not renewed by the same CA", at)
		}
		leaf = next
	}
	h.expectServed(t, ctx, leaf)

	caDue := now.Add(293 * day)
	kept, bundle := h.applyAt(t, ctx, caDue)
	if len(bundle) != 2 || !bundle[1].Equal(caA) {
		t.Fatalf("after the CA renewal ca.crt holds %d CAs; want the new one, then the old", len(bundle))
	}
	caB := bundle[0]
	if !kept.Equal(leaf) {
		t.Error("the serving certificate switched to the new CA in the apply that published it")
	}
	if kept, _ = h.applyAt(t, ctx, caDue.Add(10*time.Second)); !kept.Equal(leaf) {
		t.Error("the serving certificate switched to the new CA before the configurations trusted it for the grace")
	}
	switched, _ := h.applyAt(t, ctx, caDue.Add(defaultRotation.publishGrace))
	if switched.CheckSignatureFrom(caB) != nil {
		t.Fatal("the serving certificate did not switch to the new CA once the configurations trusted it")
	}
	h.expectServed(t, ctx, switched)

	_, bundle = h.applyAt(t, ctx, caA.NotAfter.Add(time.Second))
	if len(bundle) != 1 || !bundle[0].Equal(caB) {
		t.Errorf("once the old CA expired ca.crt holds %d CAs; want the new one alone", len(bundle))
	}
}

func TestSecretSourceServesTheLastUsableCertificate(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := newSecretHub(t, ctx)
	leaf, _ := h.applyAt(t, ctx, now)
	h.expectServed(t, ctx, leaf)

	secret := h.secret(t)
	secret.Data[CertFile] = []byte("garbage")
	if _, err := h.kube.CoreV1().Secrets(testSecret.Namespace).Update(ctx, secret, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := h.kube.CoreV1().Secrets(testSecret.Namespace).Delete(ctx, testSecret.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	h.expectServed(t, ctx, leaf)

	renewed, _ := h.applyAt(t, ctx, now.Add(day))
	if renewed.Equal(leaf) {
		t.Error("the leader did not make a new certificate for a deleted Secret")
	}
	h.expectServed(t, ctx, renewed)
}
