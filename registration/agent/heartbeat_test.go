package agent

import (
	"slices"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

func TestRotationDue(t *testing.T) {
	issued := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cert := &certificate{NotBefore: issued, NotAfter: issued.Add(100 * time.Hour)}
	for name, tc := range map[string]struct {
		at   time.Duration
		want bool
	}{
		"just issued":        {at: 0},
		"at 79%":             {at: 79 * time.Hour},
		"at 80%":             {at: 80 * time.Hour, want: true},
		"expired":            {at: 101 * time.Hour, want: true},
		"clock before issue": {at: -time.Hour},
	} {
		t.Run(name, func(t *testing.T) {
			a := &Agent{opts: Options{Clock: clocktesting.NewFakeClock(issued.Add(tc.at))}}
			if got := a.rotationDue(cert); got != tc.want {
				t.Errorf("rotationDue at %v = %t, want %t", tc.at, got, tc.want)
			}
		})
	}
}

func TestFreshnessGracesOnlyANewIdentitysFirstPeriod(t *testing.T) {
	start := time.Now()
	period := 4 * time.Second
	f := newFreshness(start, period)
	if !f.graced(start.Add(time.Second)) {
		t.Error("a rejection within the first period of a new identity is not graced")
	}
	if f.graced(start.Add(period)) {
		t.Error("a rejection a whole period after joining is graced")
	}
	var waits []time.Duration
	for range 5 {
		waits = append(waits, f.retry())
	}
	if want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second}; !slices.Equal(waits, want) {
		t.Errorf("retries %v, want %v (doubling, at most a period)", waits, want)
	}
	f.beaten()
	if f.graced(start.Add(time.Second)) {
		t.Error("a rejection after a successful heartbeat is graced")
	}
}
