package rollout

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
)

func TestRechecker(t *testing.T) {
	key := types.NamespacedName{Namespace: "apps", Name: "web"}
	for name, tc := range map[string]struct {
		// at are the times asked for, from now, in order.
		at []time.Duration
		// step is how far the clock moves before the object is due back.
		step time.Duration
	}{
		// sooner replaces the hour, later is ignored
		"the soonest time asked for": {at: []time.Duration{time.Hour, time.Minute, 2 * time.Hour}, step: time.Minute},
		// the clock moved past it while the rollout was decided
		"at once for a time passed": {at: []time.Duration{-time.Second}},
	} {
		t.Run(name, func(t *testing.T) {
			clock := clocktesting.NewFakeClock(time.Now())
			r := NewRechecker(clock)
			for _, d := range tc.at {
				r.At(key, clock.Now().Add(d))
			}
			if tc.step > 0 {
				clock.Step(tc.step)
			}
			select {
			case ev := <-r.events:
				if ev.Object.GetName() != "web" || ev.Object.GetNamespace() != "apps" {
					t.Errorf("event for %s/%s, want apps/web", ev.Object.GetNamespace(), ev.Object.GetName())
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no event when the object was due back")
			}
			if clock.HasWaiters() {
				t.Error("a replaced timer is still waiting")
			}
		})
	}
}
