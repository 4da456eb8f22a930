package measure

import (
	"fmt"
	"time"
)

// Benchmark is the name a Run gives the benchmark's own process: the watch
// a run is timed by and, in a floor, the bare client's writes.
const Benchmark = "benchmark"

// Run is one measured run, of a component or of a floor: how long until the
// outcome was seen, and the CPU each process used meanwhile, by name.
type Run struct {
	Elapsed time.Duration
	CPU     map[string]time.Duration
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
