package settings

import (
	"context"
	"errors"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
)

// TestRun checks an agent's loop: the first round runs with the hub's
// settings, a failed round does not end the loop, the next round comes
// an interval later, and the loop ends with ctx. A fixed loop never asks
// the hub for its settings.
func TestRun(t *testing.T) {
	cases := map[string]struct {
		fixed bool
		// want is the interval the rounds run with.
		want time.Duration
	}{
		"following the hub's settings": {want: 10 * time.Second},
		"fixed: the defaults":          {fixed: true, want: defaultInterval},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
			f, hub := testFollower(clk)
			if _, err := hub.CoreV1().ConfigMaps("c1").Create(context.Background(), settingsConfigMap(t, testAddon.ConfigName, every(10*time.Second)), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			hub.ClearActions()
			ctx, cancel := context.WithCancel(context.Background())
			rounds := make(chan testSettings, 2)
			done := make(chan struct{})
			go func() {
				f.Run(ctx, Rounds[testSettings]{
					Round:    func(_ context.Context, s testSettings) error { rounds <- s; return errors.New("the hub is down") },
					Interval: testInterval, Jitter: testJitter, Failed: "Test round failed", Fixed: tc.fixed,
				})
				close(done)
			}()
			round := func() testSettings {
				t.Helper()
				select {
				case s := <-rounds:
					return s
				case <-time.After(30 * time.Second):
					t.Fatal("no round in 30s")
					return testSettings{}
				}
			}
			if got := round().Interval.Duration; got != tc.want {
				t.Errorf("the first round ran with interval %s, want %s", got, tc.want)
			}
			waitFor(t, clk.HasWaiters)
			clk.Step(time.Duration(float64(tc.want) * (1 + testJitter)))
			round()
			cancel()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("Run did not return once ctx ended")
			}
			if tc.fixed && len(hub.Actions()) > 0 {
				t.Errorf("a fixed loop asked the hub: %v", hub.Actions())
			}
		})
	}
}
