package agent

import (
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
