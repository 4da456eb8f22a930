package agent

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
)

// guard bounds every wait of these tests; the loop is driven by the fake
// clock, so none comes near it unless the loop is stuck.
const guard = 30 * time.Second

// fakeLoop runs a loop whose scores and publish the test controls; every
// publish is reported on calls with the fake time it happened at.
type fakeLoop struct {
	clock   *clocktesting.FakeClock
	changed chan struct{}
	calls   chan time.Time

	mu      sync.Mutex
	cpu     int32
	failing bool
	last    []clusterv1alpha1.AddOnPlacementScoreItem
}

const (
	minInterval = 10 * time.Second
	refresh     = 5 * time.Minute
)

func startLoop(t *testing.T) *fakeLoop {
	t.Helper()
	f := &fakeLoop{clock: clocktesting.NewFakeClock(t0), changed: make(chan struct{}, 1), calls: make(chan time.Time, 10)}
	l := &loop{
		clock: f.clock, minInterval: minInterval, changed: f.changed,
		scores: func() ([]clusterv1alpha1.AddOnPlacementScoreItem, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			return items(f.cpu, 0), nil
		},
		publish: func(_ context.Context, s []clusterv1alpha1.AddOnPlacementScoreItem) (time.Time, bool, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			now := f.clock.Now()
			f.calls <- now
			if f.failing {
				return time.Time{}, false, errors.New("the hub is down")
			}
			wrote := f.last == nil || f.last[0] != s[0]
			f.last = s
			return now.Add(refresh), wrote, nil
		},
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { l.run(ctx); close(done) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(guard):
			t.Error("the loop did not end with its context")
		}
	})
	return f
}

// expectCall waits for the next publish and returns its time.
func (f *fakeLoop) expectCall(t *testing.T) time.Time {
	t.Helper()
	select {
	case at := <-f.calls:
		return at
	case <-time.After(guard):
		t.Fatal("no publish")
		return time.Time{}
	}
}

// expectNoCall says no publish happened so far.
func (f *fakeLoop) expectNoCall(t *testing.T) {
	t.Helper()
	select {
	case at := <-f.calls:
		t.Fatalf("a publish at %s, want none", at)
	default:
	}
}

// waitUntilWaiting waits until the loop waits on the fake clock.
func (f *fakeLoop) waitUntilWaiting(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(guard)
	for !f.clock.HasWaiters() {
		if time.Now().After(deadline) {
			t.Fatal("the loop never waited on the clock")
		}
		time.Sleep(time.Millisecond) // polling the loop's state, not waiting for it to act
	}
}

func (f *fakeLoop) change(cpu int32) {
	f.mu.Lock()
	f.cpu = cpu
	f.mu.Unlock()
	select {
	case f.changed <- struct{}{}:
	default:
	}
}

func TestLoopPublishesAtOnceThenNotBeforeTheFloor(t *testing.T) {
	f := startLoop(t)
	if at := f.expectCall(t); !at.Equal(t0) {
		t.Fatalf("first publish at %s, want at once (%s)", at, t0)
	}
	f.waitUntilWaiting(t)
	f.clock.Step(4 * time.Second)
	f.change(1) // 4s after a write: must wait until 10s
	f.waitUntilWaiting(t)
	f.expectNoCall(t)
	f.clock.Step(5 * time.Second) // 9s
	f.waitUntilWaiting(t)
	f.expectNoCall(t)
	f.clock.Step(time.Second) // 10s
	if at := f.expectCall(t); at.Before(t0.Add(minInterval)) {
		t.Errorf("second publish at %s, before the floor %s", at, t0.Add(minInterval))
	}
}

func TestLoopPublishesAChangeAtOnceLongAfterTheLastWrite(t *testing.T) {
	f := startLoop(t)
	f.expectCall(t)
	f.waitUntilWaiting(t)
	f.clock.Step(time.Minute)
	f.change(2)
	if at := f.expectCall(t); !at.Equal(t0.Add(time.Minute)) {
		t.Errorf("publish at %s, want at once (%s)", at, t0.Add(time.Minute))
	}
}

func TestLoopRepublishesWhenPublishSaysSo(t *testing.T) {
	f := startLoop(t)
	f.expectCall(t)
	f.waitUntilWaiting(t)
	f.clock.Step(refresh - time.Second)
	f.waitUntilWaiting(t)
	f.expectNoCall(t)
	f.clock.Step(time.Second)
	if at := f.expectCall(t); !at.Equal(t0.Add(refresh)) {
		t.Errorf("refresh at %s, want %s", at, t0.Add(refresh))
	}
}

func TestLoopRetriesAFailedPublishWithBackoff(t *testing.T) {
	f := startLoop(t)
	f.mu.Lock()
	f.failing = true
	f.mu.Unlock()
	f.expectCall(t)
	for _, wait := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
		f.waitUntilWaiting(t)
		f.clock.Step(wait - time.Millisecond)
		f.waitUntilWaiting(t)
		f.expectNoCall(t)
		f.clock.Step(time.Millisecond)
		f.expectCall(t)
	}
	f.mu.Lock()
	f.failing = false
	f.mu.Unlock()
	f.waitUntilWaiting(t)
	f.clock.Step(8 * time.Second)
	f.expectCall(t)
}
