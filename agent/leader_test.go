package agent

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

// fast is an election quick enough for a test, slow enough for a busy
// machine.
var fast = timing{leaseDuration: 3 * time.Second, renewDeadline: 2 * time.Second, retryPeriod: 200 * time.Millisecond}

// waitFor fails the test unless ch delivers within a minute.
func waitFor[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(time.Minute):
		t.Fatalf("timed out waiting for %s", what)
		var zero T
		return zero
	}
}

func TestRunElectedRunsOneCopyAndHandsOverOnStop(t *testing.T) {
	kube := fake.NewClientset()
	started := make(chan string, 2)
	run := func(name string) (context.CancelFunc, <-chan error) {
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() {
			done <- runElected(ctx, kube, "agent-ns", fast, func(ctx context.Context) error {
				started <- name
				<-ctx.Done()
				return nil
			})
		}()
		return cancel, done
	}
	stopFirst, firstDone := run("first")
	if got := waitFor(t, started, "the first copy to lead"); got != "first" {
		t.Fatalf("%s leads, want first", got)
	}
	_, secondDone := run("second")
	// A window in which nothing may happen: the second copy must not run
	// while the first holds the Lease, for longer than a lease term.
	select {
	case name := <-started:
		t.Fatalf("%s runs while first holds the Lease", name)
	case <-time.After(fast.leaseDuration + fast.retryPeriod):
	}
	stopFirst()
	if err := waitFor(t, firstDone, "the first copy to stop"); err != nil {
		t.Fatalf("a stopped copy returned %v, want nil", err)
	}
	// Released on stop: the Lease has no holder as soon as the first copy
	// returned, so the second takes over without waiting for expiry.
	lease, err := kube.CoordinationV1().Leases("agent-ns").Get(t.Context(), LeaseName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if holder := lease.Spec.HolderIdentity; holder != nil && *holder != "" {
		t.Fatalf("the stopped copy left the Lease held by %q, want it released", *holder)
	}
	if got := waitFor(t, started, "the second copy to take over"); got != "second" {
		t.Fatalf("%s leads, want second", got)
	}
	select {
	case err := <-secondDone:
		t.Fatalf("the leading copy returned %v while running", err)
	default:
	}
}

func TestRunElectedStopsWhenTheLeaseIsTaken(t *testing.T) {
	kube := fake.NewClientset()
	leading := make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() {
		done <- runElected(t.Context(), kube, "agent-ns", fast, func(ctx context.Context) error {
			leading <- struct{}{}
			<-ctx.Done()
			return ctx.Err()
		})
	}()
	waitFor(t, leading, "the copy to lead")
	leases := kube.CoordinationV1().Leases("agent-ns")
	lease, err := leases.Get(t.Context(), LeaseName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lease.Spec.HolderIdentity = ptr.To("someone-else")
	lease.Spec.LeaseDurationSeconds = ptr.To[int32](3600)
	lease.Spec.RenewTime = &metav1.MicroTime{Time: time.Now().Add(time.Hour)}
	if _, err := leases.Update(t.Context(), lease, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The fake does not check resourceVersions: refuse the copy's renewals
	// as an API server refuses a stale one.
	kube.PrependReactor("update", "leases", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewConflict(coordinationv1.Resource("leases"), LeaseName, errors.New("stale"))
	})
	if err := waitFor(t, done, "the copy to stop"); !errors.Is(err, errLostLease) {
		t.Fatalf("a copy whose Lease was taken returned %v, want errLostLease", err)
	}
}

func TestRunElectedReturnsWhatTheAgentReturns(t *testing.T) {
	boom := errors.New("boom")
	err := runElected(t.Context(), fake.NewClientset(), "agent-ns", fast, func(context.Context) error { return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("runElected returned %v, want the agent's own error", err)
	}
}

func TestStoppedIsNoError(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	boom := errors.New("boom")
	if err := stopped(ctx, context.Canceled); !errors.Is(err, context.Canceled) {
		t.Errorf("a canceled error while running = %v, want it kept", err)
	}
	cancel()
	if err := stopped(ctx, fmt.Errorf("running: %w", context.Canceled)); err != nil {
		t.Errorf("stopped by its context: %v, want no error", err)
	}
	if err := stopped(ctx, boom); !errors.Is(err, boom) {
		t.Errorf("a real failure while stopping = %v, want it kept", err)
	}
}
