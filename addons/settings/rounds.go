package settings

import (
	"context"
	"sync"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
)

// Rounds are an addon agent's work under its settings, of type T: a
// round, then a wait of one interval, until the agent stops.
type Rounds[T any] struct {
	// Round is one round under the settings now.
	Round func(context.Context, T) error
	// Interval is the wait after a round under the settings now, with up
	// to Jitter of it more (Wait).
	Interval func(T) time.Duration
	Jitter   float64
	// Failed is logged with the error of a round that failed; the next
	// round, an interval later, tries again.
	Failed string
	// Fixed leaves the settings at the defaults instead of following the
	// hub's: for an agent given its interval.
	Fixed bool
}

// Run runs rounds until ctx ends. Unless rounds.Fixed, it follows the
// settings meanwhile (Follow) and its first round waits for them
// (WaitSynced, within SyncWithin), so that it runs with the hub's
// settings, not the defaults; a new interval applies to the wait under
// way. It returns once ctx has ended and Follow with it.
func (f *Follower[T]) Run(ctx context.Context, rounds Rounds[T]) {
	var wg sync.WaitGroup
	defer wg.Wait()
	if !rounds.Fixed {
		wg.Go(func() { f.Follow(ctx) })
		if !f.WaitSynced(ctx, SyncWithin) {
			return
		}
	}
	for {
		if err := rounds.Round(ctx, f.Current()); err != nil && ctx.Err() == nil {
			ctrl.LoggerFrom(ctx).Error(err, rounds.Failed)
		}
		if !f.Wait(ctx, rounds.Interval, rounds.Jitter) {
			return
		}
	}
}
