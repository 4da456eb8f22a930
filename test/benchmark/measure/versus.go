package measure

import (
	"fmt"
	"sync/atomic"
	"time"
)

// Benchmark is the name a Run gives the benchmark's own process: the watch
// a run is timed by and, in a floor, the bare client's writes.
const Benchmark = "benchmark"

// Run is one measured run, of a component or of a floor: how long until the
// outcome was seen, and the CPU each process used meanwhile, by name; for
// a component started at the clock, Start, how long until its first
// write was seen (see FirstWrite).
type Run struct {
	Elapsed time.Duration
	CPU     map[string]time.Duration
	Start   time.Duration
}

// FirstWrite records when a run's watch first saw the component write:
// until then the component was starting (the process's exec and init, its
// clients, its caches' first lists), which a floor, whose client is ready
// before the clock, does not pay. Safe for concurrent use.
type FirstWrite struct{ at atomic.Int64 }

// Seen records now, if nothing was seen before.
func (f *FirstWrite) Seen() { f.at.CompareAndSwap(0, time.Now().UnixNano()) }

// Since is how long after begin the first write was seen; 0 if none was.
func (f *FirstWrite) Since(begin time.Time) time.Duration {
	if at := f.at.Load(); at != 0 {
		return time.Unix(0, at).Sub(begin)
	}
	return 0
}

// StartBound says in one line what a component started at the clock
// cannot go below: the watching floor (its watches, held) plus its own
// start (c.Start, until its first write), as a multiple of the true
// floor, and the component's time as a multiple of that bound. What is
// left between the bound and the component is its own work: deciding,
// its caches and queues, its garbage collector. Empty when c has no
// Start.
func StartBound(component string, c Run, trueFloor, watching Floor) string {
	if c.Start <= 0 {
		return ""
	}
	bound := watching.Elapsed + c.Start
	return fmt.Sprintf("%s's start (until its first write) %.2fs; the watching floor and that start, %.2fs, are %.2f× the true floor: the least a component started at the clock and holding its watches takes; %s %.2f× that",
		component, c.Start.Seconds(), bound.Seconds(), bound.Seconds()/trueFloor.Elapsed.Seconds(), component, c.Elapsed.Seconds()/bound.Seconds())
}

// Versus says in one line how a component's run compares with a floor
// of the same run (named floorName: TrueFloor, WatchingFloor): the time
// as a multiple of the floor's, and where the CPU went per outcome (n
// outcomes, each a unit: "work", "cluster"), the control plane's (every process but the component and the
// benchmark: API servers, etcd, controller manager) with the component
// and with the floor, the component's own, and the benchmark's. On a
// machine whose cores every process shares, the time follows the total:
// this is what tells whether the component is slow, makes the API server
// work harder, or only spends CPU of its own.
func Versus(component string, c Run, floorName string, floor Run, workers, n int, unit string) string {
	perOutcome := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(n) }
	split := func(r Run) (plane, own, bench time.Duration) {
		for name, d := range r.CPU {
			switch name {
			case component:
				own += d
			case Benchmark:
				bench += d
			default:
				plane += d
			}
		}
		return plane, own, bench
	}
	cPlane, cOwn, cBench := split(c)
	fPlane, _, fBench := split(floor)
	return fmt.Sprintf("%s %.2fs, %.2f× %s (%.2fs at %d writers); CPU ms per %s: control plane %.1f with %s, %.1f with the floor; %s's own %.1f; benchmark %.1f, %.1f",
		component, c.Elapsed.Seconds(), c.Elapsed.Seconds()/floor.Elapsed.Seconds(), floorName, floor.Elapsed.Seconds(), workers,
		unit, perOutcome(cPlane), component, perOutcome(fPlane), component, perOutcome(cOwn), perOutcome(cBench), perOutcome(fBench))
}
