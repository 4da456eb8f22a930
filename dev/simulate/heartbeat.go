package simulate

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// heartbeat renews every member's lease once per lease period for
// o.Duration, the members' renewals spread evenly over the period as
// real agents' are, and records in r how late after its time each
// renewal was done.
func heartbeat(ctx context.Context, members []*Cluster, o Options, r *Report) {
	if o.Duration == 0 || len(members) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, o.Duration)
	defer cancel()
	var (
		mu     sync.Mutex
		late   []time.Duration
		failed int
		wg     sync.WaitGroup
	)
	begin := time.Now()
	for i, c := range members {
		offset := o.LeasePeriod * time.Duration(i) / time.Duration(len(members))
		wg.Go(func() {
			for due := begin.Add(offset); ; due = due.Add(o.LeasePeriod) {
				select {
				case <-ctx.Done():
					return
				case <-time.After(time.Until(due)):
				}
				err := c.Renew(ctx)
				if ctx.Err() != nil {
					return // cut short by the end of the run, not refused
				}
				mu.Lock()
				late = append(late, time.Since(due))
				if err != nil {
					failed++
				}
				mu.Unlock()
			}
		})
	}
	done := make(chan struct{})
	go progress(o.Progress, done, func() string {
		mu.Lock()
		defer mu.Unlock()
		return fmt.Sprintf("%d clusters heartbeating: %d renewals, %d failed (%.0fs of %s)",
			len(members), len(late), failed, time.Since(begin).Seconds(), o.Duration)
	})
	wg.Wait()
	close(done)
	r.Renewals, r.RenewalsFailed, r.Late = len(late), failed, percentiles(late)
}
