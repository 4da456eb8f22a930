package measure

import (
	"fmt"
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
