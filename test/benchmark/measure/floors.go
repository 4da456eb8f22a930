package measure

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// FloorWorkers are the writer counts a floor is measured at unless
// $FLOOR_WORKERS lists others.
var FloorWorkers = []int{1, 4, 8, 16, 32, 64}

// FloorSweep are the writer counts a floor benchmark is run at, one run
// each: def unless $FLOOR_WORKERS lists others (comma-separated). The
// floor is the fastest of them, reported with its count: a floor measured
// at one concurrency only may be beaten by the component at another.
func FloorSweep(def ...int) []int {
	var out []int
	for _, s := range strings.Split(os.Getenv("FLOOR_WORKERS"), ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return def
	}
	return out
}

// Floor is a floor's run and the writer count it ran at.
type Floor struct {
	Run
	Workers int
}

// The names SweepFloors gives the two floors it finds.
const (
	TrueFloor     = "the true floor"
	WatchingFloor = "the watching floor"
)

// SweepFloors runs a floor benchmark as sub-benchmarks: run at each
// writer count of the sweep (FloorSweep(FloorWorkers...)), "workers=N",
// the fastest being the true floor; then once more at that count holding
// the component's watches (run's watching), "watching/workers=N", the
// watching floor: what watching alone costs, which any component that
// reacts to changes pays. In each sub-benchmark, whose log shows without
// -v, it logs the fastest floor so far (or the watching floor as a
// multiple of the true floor) and calls compare, if any, with that floor,
// its name (TrueFloor, WatchingFloor) and the true floor so far. It
// returns both floors.
func SweepFloors(b *testing.B, run func(b *testing.B, workers int, watching bool) Run,
	compare func(b *testing.B, name string, f, trueFloor Floor)) (fastest, watching Floor) {
	for _, workers := range FloorSweep(FloorWorkers...) {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			if r := run(b, workers, false); fastest.Elapsed == 0 || r.Elapsed < fastest.Elapsed {
				fastest = Floor{Run: r, Workers: workers}
			}
			b.Logf("fastest floor so far: %.2fs at %d writers", fastest.Elapsed.Seconds(), fastest.Workers)
			if compare != nil {
				compare(b, TrueFloor, fastest, fastest)
			}
		})
	}
	b.Run(fmt.Sprintf("watching/workers=%d", fastest.Workers), func(b *testing.B) {
		watching = Floor{Run: run(b, fastest.Workers, true), Workers: fastest.Workers}
		b.Logf("the floor holding the component's watches: %.2fs, %.2f× the true floor",
			watching.Elapsed.Seconds(), watching.Elapsed.Seconds()/fastest.Elapsed.Seconds())
		if compare != nil {
			compare(b, WatchingFloor, watching, fastest)
		}
	})
	return fastest, watching
}
