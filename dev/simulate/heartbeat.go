package simulate

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// heartbeats renew each joined cluster's lease once per lease period,
// from its join on, as its agent would: the first a lease period after
// it joined (its join renewed it), so that the fleet's renewals spread
// over the period as its joins did. One loop hands renewals as they come
// due to o.Parallel workers (not a goroutine and timer per cluster,
// whose stacks alone would cost more than a cluster's state): a renewal
// waits for a worker only when the hub is slower than the fleet's
// renewals come due, and then that shows as lateness. A cluster the
// outage stopped is skipped.
type heartbeats struct {
	period   time.Duration
	parallel int
	down     func(cluster string) bool
	renew    func(context.Context, *Cluster) error

	mu     sync.Mutex
	queue  dueQueue
	added  chan struct{} // a cluster joined: the loop looks at the queue again
	late   []time.Duration
	failed int
}

func newHeartbeats(o Options, down func(string) bool) *heartbeats {
	return &heartbeats{period: o.LeasePeriod, parallel: o.Parallel, down: down,
		renew: func(ctx context.Context, c *Cluster) error { return c.Renew(ctx) }, added: make(chan struct{}, 1)}
}

// add has c renew a lease period from now, and every period after.
func (h *heartbeats) add(c *Cluster) {
	h.mu.Lock()
	heap.Push(&h.queue, due{at: time.Now().Add(h.period), c: c})
	h.mu.Unlock()
	select {
	case h.added <- struct{}{}:
	default:
	}
}

// errStillRenewing is a renewal that came due while the cluster's last
// was still waiting for the hub.
var errStillRenewing = errors.New("the last renewal is not done yet")

// run renews until ctx ends.
func (h *heartbeats) run(ctx context.Context) {
	work := make(chan due)
	var wg sync.WaitGroup
	for range h.parallel {
		wg.Go(func() {
			for d := range work {
				h.renewOne(ctx, d)
			}
		})
	}
	h.schedule(ctx, func(d due) bool {
		select {
		case work <- d:
			return true
		case <-ctx.Done():
			return false
		}
	})
	close(work)
	wg.Wait()
}

func (h *heartbeats) renewOne(ctx context.Context, d due) {
	if h.down(d.c.Name) {
		return // its agent is stopped
	}
	err := errStillRenewing
	if d.c.renewing.CompareAndSwap(false, true) {
		err = h.renew(ctx, d.c)
		d.c.renewing.Store(false)
	}
	if ctx.Err() != nil {
		return // cut short by the end of the run, not refused
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.late = append(h.late, time.Since(d.at))
	if err != nil {
		h.failed++
	}
}

// schedule calls next with each renewal when it comes due, and queues
// the cluster's next a period later, until ctx ends or next returns
// false.
func (h *heartbeats) schedule(ctx context.Context, next func(due) bool) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		h.mu.Lock()
		empty := h.queue.Len() == 0
		var wait time.Duration
		if !empty {
			wait = time.Until(h.queue[0].at)
		}
		h.mu.Unlock()
		if empty {
			select {
			case <-ctx.Done():
				return
			case <-h.added:
				continue
			}
		}
		timer.Reset(max(wait, 0))
		select {
		case <-ctx.Done():
			return
		case <-h.added:
			continue // a sooner renewal, perhaps
		case <-timer.C:
		}
		h.mu.Lock()
		d := heap.Pop(&h.queue).(due)
		heap.Push(&h.queue, due{at: d.at.Add(h.period), c: d.c})
		h.mu.Unlock()
		if !next(d) {
			return
		}
	}
}

// line is a progress line of n clusters heartbeating since begin.
func (h *heartbeats) line(n int, begin time.Time) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return fmt.Sprintf("%d clusters heartbeating: %d renewals, %d failed (%.0fs)", n, len(h.late), h.failed, time.Since(begin).Seconds())
}

// report sets the renewals' figures on r.
func (h *heartbeats) report(r *Report) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r.Renewals, r.RenewalsFailed, r.Late = len(h.late), h.failed, percentiles(h.late)
}

// due is a cluster's renewal and when it is due.
type due struct {
	at time.Time
	c  *Cluster
}

// dueQueue is a heap of renewals, the soonest first.
type dueQueue []due

func (q dueQueue) Len() int           { return len(q) }
func (q dueQueue) Less(i, j int) bool { return q[i].at.Before(q[j].at) }
func (q dueQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *dueQueue) Push(x any)        { *q = append(*q, x.(due)) }
func (q *dueQueue) Pop() any {
	old := *q
	d := old[len(old)-1]
	*q = old[:len(old)-1]
	return d
}
