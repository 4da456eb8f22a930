package host

import (
	"context"
	"crypto/x509/pkix"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	clocktesting "k8s.io/utils/clock/testing"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
)

func TestSecretName(t *testing.T) {
	cases := map[string]struct{ signer, want string }{
		"kube-client":   {kubeClientSigner, "hello-hub-kubeconfig"},
		"custom signer": {"example.com/signer", "hello-example.com-signer-client-cert"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := SecretName("hello", tc.signer); got != tc.want {
				t.Errorf("SecretName = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestWants(t *testing.T) {
	h := &Host{opts: Options{ClusterName: "c1", AgentName: "a1"}}
	org := "system:open-cluster-management:cluster:c1:addon:hello"
	cases := map[string]struct {
		status addonv1beta1.ManagedClusterAddOnStatus
		want   []want
	}{
		"kube-client with its subject, in the status namespace": {
			status: addonv1beta1.ManagedClusterAddOnStatus{Namespace: "ns1", Registrations: []addonv1beta1.RegistrationConfig{{
				Type: addonv1beta1.KubeClient, KubeClient: &addonv1beta1.KubeClientConfig{Subject: addonv1beta1.KubeClientSubject{
					BaseSubject: addonv1beta1.BaseSubject{User: "u", Groups: []string{"g"}},
				}},
			}}},
			want: []want{{addon: "hello", signer: kubeClientSigner, subject: pkix.Name{CommonName: "u", Organization: []string{"g"}},
				namespace: "ns1", secretName: "hello-hub-kubeconfig"}},
		},
		"kube-client with no subject gets OCM's default, in the default namespace": {
			status: addonv1beta1.ManagedClusterAddOnStatus{Registrations: []addonv1beta1.RegistrationConfig{{Type: addonv1beta1.KubeClient}}},
			want: []want{{addon: "hello", signer: kubeClientSigner, subject: pkix.Name{CommonName: org + ":agent:a1", Organization: []string{org}},
				namespace: DefaultInstallNamespace, secretName: "hello-hub-kubeconfig"}},
		},
		"custom signer with no groups gets none": {
			status: addonv1beta1.ManagedClusterAddOnStatus{Registrations: []addonv1beta1.RegistrationConfig{{
				Type: addonv1beta1.CustomSigner, CustomSigner: &addonv1beta1.CustomSignerConfig{SignerName: "example.com/s", Subject: addonv1beta1.Subject{
					BaseSubject: addonv1beta1.BaseSubject{User: "u"}, OrganizationUnits: []string{"ou"},
				}},
			}}},
			want: []want{{addon: "hello", signer: "example.com/s", subject: pkix.Name{CommonName: "u", OrganizationalUnit: []string{"ou"}},
				namespace: DefaultInstallNamespace, secretName: "hello-example.com-s-client-cert"}},
		},
		"a registration of no known type is skipped": {
			status: addonv1beta1.ManagedClusterAddOnStatus{Registrations: []addonv1beta1.RegistrationConfig{{Type: "other"}, {Type: addonv1beta1.CustomSigner}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			mca := &addonv1beta1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: "hello"}, Status: tc.status}
			if diff := cmp.Diff(tc.want, h.wants(mca), cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("wants (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnconverted(t *testing.T) {
	cases := map[string]struct {
		regs []addonv1beta1.RegistrationConfig
		want bool
	}{
		"no registrations yet":         {},
		"typed registrations":          {regs: []addonv1beta1.RegistrationConfig{{Type: addonv1beta1.KubeClient}, {Type: addonv1beta1.CustomSigner}}},
		"an unknown type is v1beta1's": {regs: []addonv1beta1.RegistrationConfig{{Type: "other"}}},
		// v1alpha1's {signerName, subject} decoded as v1beta1.
		"a registration with no type": {regs: []addonv1beta1.RegistrationConfig{{Type: addonv1beta1.KubeClient}, {}}, want: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			mca := &addonv1beta1.ManagedClusterAddOn{Status: addonv1beta1.ManagedClusterAddOnStatus{Registrations: tc.regs}}
			if got := unconverted(mca); got != tc.want {
				t.Errorf("unconverted = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSetDriver(t *testing.T) {
	subject := addonv1beta1.KubeClientSubject{BaseSubject: addonv1beta1.BaseSubject{User: "u"}}
	custom := addonv1beta1.RegistrationConfig{Type: addonv1beta1.CustomSigner, CustomSigner: &addonv1beta1.CustomSignerConfig{SignerName: "example.com/s"}}
	cases := map[string]struct {
		regs, want  []addonv1beta1.RegistrationConfig
		wantChanged bool
	}{
		"no registrations": {},
		"a custom signer only: nothing to declare": {
			regs: []addonv1beta1.RegistrationConfig{custom}, want: []addonv1beta1.RegistrationConfig{custom},
		},
		"kubeClient with no config": {
			regs:        []addonv1beta1.RegistrationConfig{{Type: addonv1beta1.KubeClient}, custom},
			want:        []addonv1beta1.RegistrationConfig{{Type: addonv1beta1.KubeClient, KubeClient: &addonv1beta1.KubeClientConfig{Driver: "csr"}}, custom},
			wantChanged: true,
		},
		"kubeClient saying token (another agent's): the host's own driver, subject kept": {
			regs:        []addonv1beta1.RegistrationConfig{{Type: addonv1beta1.KubeClient, KubeClient: &addonv1beta1.KubeClientConfig{Subject: subject, Driver: "token"}}},
			want:        []addonv1beta1.RegistrationConfig{{Type: addonv1beta1.KubeClient, KubeClient: &addonv1beta1.KubeClientConfig{Subject: subject, Driver: "csr"}}},
			wantChanged: true,
		},
		"already declared": {
			regs: []addonv1beta1.RegistrationConfig{{Type: addonv1beta1.KubeClient, KubeClient: &addonv1beta1.KubeClientConfig{Driver: "csr"}}},
			want: []addonv1beta1.RegistrationConfig{{Type: addonv1beta1.KubeClient, KubeClient: &addonv1beta1.KubeClientConfig{Driver: "csr"}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			mca := &addonv1beta1.ManagedClusterAddOn{Status: addonv1beta1.ManagedClusterAddOnStatus{Registrations: tc.regs}}
			if changed := setDriver(mca); changed != tc.wantChanged {
				t.Errorf("setDriver changed = %v, want %v", changed, tc.wantChanged)
			}
			if diff := cmp.Diff(tc.want, mca.Status.Registrations); diff != "" {
				t.Errorf("registrations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAvailableCondition(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	fresh, stale := now.Add(-time.Minute), now.Add(-10*time.Minute)
	cases := map[string]struct {
		renewed *time.Time
		status  metav1.ConditionStatus
		reason  string
	}{
		"no lease":      {nil, metav1.ConditionUnknown, ReasonLeaseNotFound},
		"renewed":       {&fresh, metav1.ConditionTrue, ReasonLeaseUpdated},
		"renewal stale": {&stale, metav1.ConditionFalse, ReasonLeaseStopped},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := availableCondition("hello", tc.renewed, now, 5*time.Minute)
			if c.Status != tc.status || c.Reason != tc.reason || c.Type != "Available" {
				t.Errorf("got %s=%s (%s), want Available=%s (%s)", c.Type, c.Status, c.Reason, tc.status, tc.reason)
			}
		})
	}
}

// TestNextLeaseCheck: an addon that is not available has its lease looked
// at after 1s, then twice as long each time, never longer than the resync.
func TestNextLeaseCheck(t *testing.T) {
	st := &addonState{}
	var got []time.Duration
	for range 7 {
		got = append(got, st.nextLeaseCheck(30*time.Second))
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	if w := (&addonState{}).nextLeaseCheck(500 * time.Millisecond); w != 500*time.Millisecond {
		t.Errorf("with a resync of 500ms, the first wait = %v, want 500ms", w)
	}
}

func TestRotateAt(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := &credentials{notBefore: start, notAfter: start.Add(100 * time.Minute)}
	if got, want := c.rotateAt(), start.Add(80*time.Minute); !got.Equal(want) {
		t.Errorf("rotateAt = %s, want %s", got, want)
	}
}

// recorder is a crashReporter that remembers what it was told.
type recorder struct {
	mu         sync.Mutex
	crashes    []time.Duration
	recoveries int
}

func (r *recorder) crashed(_ context.Context, _ string, _ error, _ int, restartIn time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.crashes = append(r.crashes, restartIn)
}

func (r *recorder) recovered(context.Context, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recoveries++
}

func (r *recorder) counts() (int, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.crashes), r.recoveries
}

// TestSupervise: a panic is recovered and reported, the run is restarted
// after the backoff (by the injected clock), and once it has run for
// stableAfter the recovery is reported.
func TestSupervise(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	backoff := wait.Backoff{Duration: time.Second, Factor: 2, Steps: 10, Cap: time.Minute}
	runs := make(chan int, 10)
	var n int
	run := func(ctx context.Context) error {
		n++
		runs <- n
		switch n {
		case 1:
			panic("boom")
		case 2:
			return errors.New("failed")
		}
		<-ctx.Done()
		return nil
	}
	rec := &recorder{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		supervise(ctx, clk, backoff, time.Minute, "hello", run, rec)
	}()
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		if err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, 10*time.Second, true,
			func(context.Context) (bool, error) { return cond(), nil }); err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
	}
	<-runs
	waitFor("the panic reported", func() bool { c, _ := rec.counts(); return c == 1 })
	waitFor("the restart timer", func() bool { return clk.HasWaiters() })
	clk.Step(time.Second)
	<-runs
	waitFor("the error reported", func() bool { c, _ := rec.counts(); return c == 2 })
	waitFor("the restart timer", func() bool { return clk.HasWaiters() })
	clk.Step(2 * time.Second)
	<-runs
	waitFor("the stable timer", func() bool { return clk.HasWaiters() })
	clk.Step(time.Minute)
	waitFor("the recovery reported", func() bool { _, r := rec.counts(); return r == 1 })
	cancel()
	<-done
	if diff := cmp.Diff([]time.Duration{time.Second, 2 * time.Second}, rec.crashes); diff != "" {
		t.Errorf("restart delays (-want +got):\n%s", diff)
	}
}
