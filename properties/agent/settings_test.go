package agent

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/corral-dev/corral/addons/report"
	"github.com/corral-dev/corral/properties/api"
)

// testAgent is an agent of cluster c1 collecting every 30s, on clk.
func testAgent(clk *clocktesting.FakeClock) (*Agent, *fake.Clientset) {
	hub := fake.NewClientset()
	return &Agent{opts: Options{ClusterName: "c1", Clock: clk}, hub: hub, interval: api.DefaultCollectInterval, changed: make(chan struct{}, 1)}, hub
}

func settingsConfigMap(t *testing.T, name string, s any) *corev1.ConfigMap {
	t.Helper()
	cm, err := report.Object("c1", name, api.AddonName, s)
	if err != nil {
		t.Fatal(err)
	}
	return cm
}

func TestApplySettings(t *testing.T) {
	valid := api.Settings{CollectInterval: metav1.Duration{Duration: 10 * time.Second}}
	cases := map[string]struct {
		obj  any
		want time.Duration
	}{
		"valid settings are followed": {obj: settingsConfigMap(t, api.ConfigName, valid), want: 10 * time.Second},
		"not JSON: the interval is kept": {
			obj: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: api.ConfigName}, Data: map[string]string{report.Key: "{not json"}},
		},
		"no data: the interval is kept": {obj: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: api.ConfigName}}},
		"not a duration: the interval is kept": {
			obj: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: api.ConfigName}, Data: map[string]string{report.Key: `{"collectInterval":"often"}`}},
		},
		"no interval: the interval is kept":        {obj: settingsConfigMap(t, api.ConfigName, struct{}{})},
		"below the floor: the interval is kept":    {obj: settingsConfigMap(t, api.ConfigName, api.Settings{CollectInterval: metav1.Duration{Duration: time.Millisecond}})},
		"another ConfigMap is not settings":        {obj: settingsConfigMap(t, api.ReportName, valid)},
		"a tombstone is no ConfigMap, and ignored": {obj: "c1/" + api.ConfigName},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			a, _ := testAgent(clocktesting.NewFakeClock(time.Unix(1000, 0)))
			a.applySettings(context.Background(), tc.obj)
			want := tc.want
			if want == 0 {
				want = api.DefaultCollectInterval
			}
			if got := a.Interval(); got != want {
				t.Errorf("interval %s, want %s", got, want)
			}
		})
	}
}

// TestFollowSettings checks the agent follows its settings ConfigMap on
// the hub as it is created, changed and deleted.
func TestFollowSettings(t *testing.T) {
	a, hub := testAgent(clocktesting.NewFakeClock(time.Unix(1000, 0)))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.followSettings(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	expectInterval := func(want time.Duration) {
		t.Helper()
		err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
			return a.Interval() == want, nil
		})
		if err != nil {
			t.Fatalf("interval %s, want %s", a.Interval(), want)
		}
	}
	cms := hub.CoreV1().ConfigMaps("c1")
	cm := settingsConfigMap(t, api.ConfigName, api.Settings{CollectInterval: metav1.Duration{Duration: 10 * time.Second}})
	if _, err := cms.Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	expectInterval(10 * time.Second)
	cm = settingsConfigMap(t, api.ConfigName, api.Settings{CollectInterval: metav1.Duration{Duration: 5 * time.Minute}})
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	expectInterval(5 * time.Minute)
	if err := cms.Delete(ctx, api.ConfigName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	expectInterval(api.DefaultCollectInterval)
}

// TestWait checks a wait lasts the interval, with jitter, and that a
// change of interval applies to the wait under way.
func TestWait(t *testing.T) {
	maxWait := func(d time.Duration) time.Duration { return time.Duration(float64(d) * (1 + Jitter)) }
	cases := map[string]struct {
		// change, when set, is the interval set once the wait began.
		change time.Duration
		// steps are the clock's steps; the wait must still be under way
		// after all but the last, and over after the last.
		steps []time.Duration
	}{
		"the interval, with jitter": {steps: []time.Duration{api.DefaultCollectInterval - time.Second, maxWait(api.DefaultCollectInterval)}},
		"a shorter interval applies at once": {
			change: 5 * time.Second,
			steps:  []time.Duration{maxWait(5 * time.Second)},
		},
		"a longer interval, counted from the same start": {
			change: 2 * time.Minute,
			steps:  []time.Duration{maxWait(api.DefaultCollectInterval), 2*time.Minute - maxWait(api.DefaultCollectInterval) - time.Second, maxWait(2 * time.Minute)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
			a, _ := testAgent(clk)
			ctx := context.Background()
			over := make(chan bool, 1)
			go func() { over <- a.wait(ctx) }()
			waitForTimer(t, clk)
			if tc.change > 0 {
				a.setInterval(ctx, tc.change)
				// The wait under way has taken the change.
				waitFor(t, func() bool { return clk.Waiters() == 1 && len(a.changed) == 0 })
			}
			for i, step := range tc.steps {
				clk.Step(step)
				if i < len(tc.steps)-1 {
					// Still waiting: on a timer, not over.
					waitForTimer(t, clk)
					if len(over) > 0 {
						t.Fatalf("the wait ended after step %d", i)
					}
					continue
				}
				select {
				case ok := <-over:
					if !ok {
						t.Error("wait said ctx ended")
					}
				case <-time.After(30 * time.Second):
					t.Fatal("the wait did not end")
				}
			}
		})
	}
}

func TestWaitEndsWithCtx(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	a, _ := testAgent(clk)
	ctx, cancel := context.WithCancel(context.Background())
	over := make(chan bool, 1)
	go func() { over <- a.wait(ctx) }()
	waitForTimer(t, clk)
	cancel()
	select {
	case ok := <-over:
		if ok {
			t.Error("wait said ctx is still on")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the wait did not end with ctx")
	}
}

func waitForTimer(t *testing.T, clk *clocktesting.FakeClock) {
	t.Helper()
	waitFor(t, clk.HasWaiters)
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
