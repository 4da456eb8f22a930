package cli

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/internal/testing/builder"
)

// syncBuffer is a bytes.Buffer a watching verb writes while a test reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestAddonVerbsWatch: with -w, addon list and addon status print again
// once the addon is enabled on another cluster, and stop without an
// error when stopped.
func TestAddonVerbsWatch(t *testing.T) {
	cases := map[string]func(ctx context.Context, hub hubclient.Hub, out *syncBuffer) error{
		"addon list -w": func(ctx context.Context, hub hubclient.Hub, out *syncBuffer) error {
			return (&ListOptions{Out: out, Hub: hub, Watch: true}).Run(ctx)
		},
		"addon status -w": func(ctx context.Context, hub hubclient.Hub, out *syncBuffer) error {
			return (&StatusOptions{Out: out, Hub: hub, Addon: "hello", Watch: true}).Run(ctx)
		},
	}
	for name, run := range cases {
		t.Run(name, func(t *testing.T) {
			c := fakeHub(t, cma("hello"), builder.AddOn("c1", "hello").Obj())
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			out := &syncBuffer{}
			done := make(chan error, 1)
			go func() { done <- run(ctx, hubclient.Hub{Client: c}, out) }()
			waitFor(t, func() bool { return out.String() != "" })
			// The watch may open after a change: change until a reprint
			// shows one.
			i := 0
			waitFor(t, func() bool {
				i++
				if err := c.Create(ctx, builder.AddOn(fmt.Sprintf("late%d", i), "hello").Obj()); err != nil {
					t.Fatal(err)
				}
				time.Sleep(50 * time.Millisecond) // pacing the changes, not synchronisation
				return strings.Contains(out.String(), "late")
			})
			cancel()
			if err := <-done; err != nil {
				t.Errorf("stopped watch returned %v", err)
			}
		})
	}
}

// waitFor polls cond for up to 10s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}
