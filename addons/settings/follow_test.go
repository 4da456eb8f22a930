package settings

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/corral-dev/corral/addons/configmapchannel"
)

const testJitter = 0.1

// validTestSettings passes intervals of a second or more.
func validTestSettings(s testSettings) error {
	if s.Interval.Duration < time.Second {
		return fmt.Errorf("interval %s is shorter than 1s", s.Interval.Duration)
	}
	return nil
}

func testInterval(s testSettings) time.Duration { return s.Interval.Duration }

// testFollower follows test-config in c1, from the default interval, on clk.
func testFollower(clk *clocktesting.FakeClock) (*Follower[testSettings], *kubefake.Clientset) {
	hub := kubefake.NewClientset()
	return NewFollower(hub, "c1", testAddon.ConfigName, testAddon.Defaults(), validTestSettings, clk), hub
}

func every(d time.Duration) testSettings { return testSettings{Interval: metav1.Duration{Duration: d}} }

func settingsConfigMap(t *testing.T, name string, s any) *corev1.ConfigMap {
	t.Helper()
	cm, err := configmapchannel.Object("c1", name, testAddon.Name, s)
	if err != nil {
		t.Fatal(err)
	}
	return cm
}

func TestFollowerApply(t *testing.T) {
	bare := func(data map[string]string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: testAddon.ConfigName}, Data: data}
	}
	cases := map[string]struct {
		obj  any
		want time.Duration
	}{
		"valid settings are followed":                {obj: settingsConfigMap(t, testAddon.ConfigName, every(10*time.Second)), want: 10 * time.Second},
		"not JSON: the settings are kept":            {obj: bare(map[string]string{configmapchannel.Key: "{not json"})},
		"no data: the settings are kept":             {obj: bare(nil)},
		"not a duration: the settings are kept":      {obj: bare(map[string]string{configmapchannel.Key: `{"interval":"often"}`})},
		"no interval: the settings are kept":         {obj: settingsConfigMap(t, testAddon.ConfigName, struct{}{})},
		"refused by validate: the settings are kept": {obj: settingsConfigMap(t, testAddon.ConfigName, every(time.Millisecond))},
		"another ConfigMap is not settings":          {obj: settingsConfigMap(t, "test-report", every(10*time.Second))},
		"a tombstone is no ConfigMap, and ignored":   {obj: "c1/" + testAddon.ConfigName},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f, _ := testFollower(clocktesting.NewFakeClock(time.Unix(1000, 0)))
			f.apply(context.Background(), tc.obj)
			want := tc.want
			if want == 0 {
				want = defaultInterval
			}
			if got := f.Current().Interval.Duration; got != want {
				t.Errorf("interval %s, want %s", got, want)
			}
		})
	}
}

// TestFollowerKeepsLastValid checks settings that cannot be read leave
// the last valid ones, not the defaults.
func TestFollowerKeepsLastValid(t *testing.T) {
	f, _ := testFollower(clocktesting.NewFakeClock(time.Unix(1000, 0)))
	ctx := context.Background()
	f.apply(ctx, settingsConfigMap(t, testAddon.ConfigName, every(10*time.Second)))
	f.apply(ctx, settingsConfigMap(t, testAddon.ConfigName, every(time.Millisecond)))
	if got := f.Current().Interval.Duration; got != 10*time.Second {
		t.Errorf("interval %s after bad settings, want the last valid 10s", got)
	}
}

// TestFollow checks the follower follows its ConfigMap as it is created,
// changed, made unreadable and deleted.
func TestFollow(t *testing.T) {
	f, hub := testFollower(clocktesting.NewFakeClock(time.Unix(1000, 0)))
	ctx := follow(t, f)
	expectInterval := func(want time.Duration) {
		t.Helper()
		waitFor(t, func() bool { return f.Current().Interval.Duration == want })
	}
	cms := hub.CoreV1().ConfigMaps("c1")
	if _, err := cms.Create(ctx, settingsConfigMap(t, testAddon.ConfigName, every(10*time.Second)), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	expectInterval(10 * time.Second)
	if _, err := cms.Update(ctx, settingsConfigMap(t, testAddon.ConfigName, every(5*time.Minute)), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	expectInterval(5 * time.Minute)
	// A malformed update, then a valid one: the follower neither crashes
	// nor stalls on the first, and keeps 5m until the second.
	malformed := settingsConfigMap(t, testAddon.ConfigName, nil)
	malformed.Data[configmapchannel.Key] = "{not json"
	if _, err := cms.Update(ctx, malformed, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Update(ctx, settingsConfigMap(t, testAddon.ConfigName, every(7*time.Second)), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	expectInterval(7 * time.Second)
	if err := cms.Delete(ctx, testAddon.ConfigName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	expectInterval(defaultInterval)
}

// TestWait checks a wait lasts the interval, with jitter, and that a
// change of interval applies to the wait under way.
func TestWait(t *testing.T) {
	maxWait := func(d time.Duration) time.Duration { return time.Duration(float64(d) * (1 + testJitter)) }
	cases := map[string]struct {
		// change, when set, is the interval set once the wait began.
		change time.Duration
		// steps are the clock's steps; the wait must still be under way
		// after all but the last, and over after the last.
		steps []time.Duration
	}{
		"the interval, with jitter": {steps: []time.Duration{defaultInterval - time.Second, maxWait(defaultInterval)}},
		"a shorter interval applies at once": {
			change: 5 * time.Second,
			steps:  []time.Duration{maxWait(5 * time.Second)},
		},
		"a longer interval, counted from the same start": {
			change: 2 * time.Minute,
			steps:  []time.Duration{maxWait(defaultInterval), 2*time.Minute - maxWait(defaultInterval) - time.Second, maxWait(2 * time.Minute)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
			f, _ := testFollower(clk)
			ctx := context.Background()
			over := make(chan bool, 1)
			go func() { over <- f.Wait(ctx, testInterval, testJitter) }()
			waitFor(t, clk.HasWaiters)
			if tc.change > 0 {
				f.set(ctx, every(tc.change))
				// The wait under way has taken the change.
				waitFor(t, func() bool { return clk.Waiters() == 1 && len(f.changed) == 0 })
			}
			for i, step := range tc.steps {
				clk.Step(step)
				if i < len(tc.steps)-1 {
					// Still waiting: on a timer, not over.
					waitFor(t, clk.HasWaiters)
					if len(over) > 0 {
						t.Fatalf("the wait ended after step %d", i)
					}
					continue
				}
				if !waitOver(t, over) {
					t.Error("wait said ctx ended")
				}
			}
		})
	}
}

// TestWaitFollowsTheConfigMap checks a shorter interval written into the
// ConfigMap ends the wait under way once it has passed.
func TestWaitFollowsTheConfigMap(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	f, hub := testFollower(clk)
	ctx := follow(t, f)
	over := make(chan bool, 1)
	go func() { over <- f.Wait(ctx, testInterval, testJitter) }()
	waitFor(t, clk.HasWaiters)
	clk.Step(5 * time.Second)
	if _, err := hub.CoreV1().ConfigMaps("c1").Create(ctx, settingsConfigMap(t, testAddon.ConfigName, every(2*time.Second)), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// 5s passed, more than 2s and its jitter: the wait ends, without the
	// clock moving again.
	if !waitOver(t, over) {
		t.Error("wait said ctx ended")
	}
}

func TestWaitEndsWithCtx(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	f, _ := testFollower(clk)
	ctx, cancel := context.WithCancel(context.Background())
	over := make(chan bool, 1)
	go func() { over <- f.Wait(ctx, testInterval, testJitter) }()
	waitFor(t, clk.HasWaiters)
	cancel()
	if waitOver(t, over) {
		t.Error("wait said ctx is still on")
	}
}

// follow runs f.Follow until the test ends, on the context it returns.
func follow(t *testing.T, f *Follower[testSettings]) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { f.Follow(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return ctx
}

// waitOver is what the wait under way, which says so on over, returned;
// it fails the test when the wait does not end within 30s.
func waitOver(t *testing.T, over <-chan bool) bool {
	t.Helper()
	select {
	case ok := <-over:
		return ok
	case <-time.After(30 * time.Second):
		t.Fatal("the wait did not end")
		return false
	}
}

// waitFor polls cond, for at most 30s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err != nil {
		t.Fatal("timed out waiting")
	}
}

// TestWaitSyncedHasTheHubsSettings checks that once WaitSynced returns the
// settings already on the hub are current: an agent's first round runs
// with them, not with the defaults.
func TestWaitSyncedHasTheHubsSettings(t *testing.T) {
	f, hub := testFollower(clocktesting.NewFakeClock(time.Unix(1000, 0)))
	if _, err := hub.CoreV1().ConfigMaps("c1").Create(context.Background(), settingsConfigMap(t, testAddon.ConfigName, every(10*time.Second)), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ctx := follow(t, f)
	synced, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if !f.WaitSynced(synced, time.Minute) {
		t.Fatal("the follower did not sync in 30s")
	}
	if got := f.Current().Interval.Duration; got != 10*time.Second {
		t.Errorf("after WaitSynced the interval is %s, want the hub's 10s", got)
	}
}

// TestWaitSyncedEndsWithCtx checks WaitSynced gives up when ctx ends.
func TestWaitSyncedEndsWithCtx(t *testing.T) {
	f, _ := testFollower(clocktesting.NewFakeClock(time.Unix(1000, 0)))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if f.WaitSynced(ctx, time.Minute) {
		t.Error("WaitSynced said ctx is on after it ended, with no Follow running")
	}
}

// TestWaitSyncedGivesUpAfterWithin checks that a follower that cannot read
// its settings (no Follow running here) lets the agent start with the
// defaults once within has passed, rather than keep it idle.
func TestWaitSyncedGivesUpAfterWithin(t *testing.T) {
	f, _ := testFollower(clocktesting.NewFakeClock(time.Unix(1000, 0)))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if !f.WaitSynced(ctx, time.Millisecond) {
		t.Fatal("WaitSynced said ctx ended; it should have given up after 1ms and gone on")
	}
	if got := f.Current().Interval.Duration; got != defaultInterval {
		t.Errorf("interval %s, want the defaults' %s", got, defaultInterval)
	}
}
