package simulate

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/watch"
)

// watchEach calls seen with each object start's watches deliver, starting
// a new watch whenever one ends (the API server ends them now and then),
// until ctx ends. A watch that cannot start is tried again a second later.
func watchEach(ctx context.Context, start func(context.Context) (watch.Interface, error), seen func(any)) {
	for ctx.Err() == nil {
		w, err := start(ctx)
		if err != nil {
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			continue
		}
		for ev := range w.ResultChan() {
			seen(ev.Object)
		}
		w.Stop()
	}
}
