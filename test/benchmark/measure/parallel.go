package measure

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

// Parallel runs do(0…n-1) on workers goroutines, each i once, and says
// how many failed and the first error: how the benchmarks create their
// workloads and make their floors' writes, as many at a time as the
// component they stand for.
func Parallel(workers, n int, do func(i int) error) error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	next := make(chan int)
	for range max(workers, 1) {
		wg.Go(func() {
			for i := range next {
				if err := do(i); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	if len(errs) > 0 {
		return fmt.Errorf("%d of %d failed, the first: %w", len(errs), n, errs[0])
	}
	return nil
}

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
