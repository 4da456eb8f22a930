package simulate

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// heartbeat renews every member's lease once per lease period until ctx
// ends, the members' renewals spread evenly over the period as real
// agents' are (but for those avail says are down), and records in r how
// late after its time each renewal was done. One loop hands renewals as
// they come due to o.Parallel workers (not a goroutine and timer per
// cluster, whose stacks alone would cost more than a cluster's state): a
// renewal waits for a worker only when the hub is slower than the
// fleet's renewals come due, and then that shows as lateness.
func heartbeat(ctx context.Context, members []*Cluster, o Options, r *Report, avail *availability) {
	type renewal struct {
		c   *Cluster
		due time.Time
	}
	var (
		mu     sync.Mutex
		late   []time.Duration
		failed int
		wg     sync.WaitGroup
	)
	due := make(chan renewal)
	for range min(o.Parallel, len(members)) {
		wg.Go(func() {
			for d := range due {
				if avail.isDown(d.c.Name) {
					continue // its agent is stopped
				}
				err := errStillRenewing
				if d.c.renewing.CompareAndSwap(false, true) {
					err = d.c.Renew(ctx)
					d.c.renewing.Store(false)
				}
				if ctx.Err() != nil {
					continue // cut short by the end of the run, not refused
				}
				mu.Lock()
				late = append(late, time.Since(d.due))
				if err != nil {
					failed++
				}
				mu.Unlock()
			}
		})
	}
	begin := time.Now()
	done := make(chan struct{})
	go progress(o.Progress, done, func() string {
		mu.Lock()
		defer mu.Unlock()
		return fmt.Sprintf("%d clusters heartbeating: %d renewals, %d failed (%.0fs)",
			len(members), len(late), failed, time.Since(begin).Seconds())
	})
	schedule(ctx, begin, o.LeasePeriod, len(members), func(i int, at time.Time) bool {
		select {
		case due <- renewal{members[i], at}:
			return true
		case <-ctx.Done():
			return false
		}
	})
	close(due)
	wg.Wait()
	close(done)
	r.Renewals, r.RenewalsFailed, r.Late = len(late), failed, percentiles(late)
}

// errStillRenewing is a renewal that came due while the cluster's last
// was still waiting for the hub.
var errStillRenewing = errors.New("the last renewal is not done yet")

// schedule calls next(i, at) at each time at that member i of n is due,
// member i at begin + i/n of a period, then once every period, until ctx
// ends or next returns false.
func schedule(ctx context.Context, begin time.Time, period time.Duration, n int, next func(i int, at time.Time) bool) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for round := time.Duration(0); ; round++ {
		for i := range n {
			at := begin.Add(round*period + period*time.Duration(i)/time.Duration(n))
			timer.Reset(time.Until(at))
			select {
			case <-ctx.Done():
				return
			case <-timer.C:
			}
			if !next(i, at) {
				return
			}
		}
	}
}
