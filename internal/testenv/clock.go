package testenv

import (
	"slices"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// WaitsClock is a clock (fake or real) that records the timers started on
// it: an agent's waits, which a suite checks follow the agent's settings
// without a restart.
type WaitsClock struct {
	clock.WithTicker
	mu    sync.Mutex
	waits []time.Duration
}

// NewTimer records d and starts the timer on the clock underneath.
func (c *WaitsClock) NewTimer(d time.Duration) clock.Timer {
	c.mu.Lock()
	c.waits = append(c.waits, d)
	c.mu.Unlock()
	return c.WithTicker.NewTimer(d)
}

// Waits are the waits started so far.
func (c *WaitsClock) Waits() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.waits)
}
