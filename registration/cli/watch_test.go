package cli

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/internal/hubclient/hubclienttest"
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

// TestGetVerbsWatch: with -w, get clusters and clusterset get print again
// once a watched kind changes, and stop without an error when stopped.
func TestGetVerbsWatch(t *testing.T) {
	cases := map[string]struct {
		run    func(ctx context.Context, hub hubclient.Hub, out *syncBuffer) error
		// change is the i-th change made until it shows.
		change func(i int) client.Object
		want   string
	}{
		"get clusters -w, a cluster joining": {
			run: func(ctx context.Context, hub hubclient.Hub, out *syncBuffer) error {
				return (&GetClustersOptions{Out: out, Hub: hub, Watch: true}).Run(ctx)
			},
			change: func(i int) client.Object { return builder.Cluster(fmt.Sprintf("late%d", i)).Obj() }, want: "late",
		},
		"clusterset get -w, a set created": {
			run: func(ctx context.Context, hub hubclient.Hub, out *syncBuffer) error {
				return (&ClusterSetGetOptions{Out: out, Hub: hub, Watch: true}).Run(ctx)
			},
			change: func(i int) client.Object { return builder.ClusterSet(fmt.Sprintf("late%d", i)).Obj() }, want: "late",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := hubclienttest.NewClientBuilder(t, builder.Cluster("c1").Obj(), builder.ClusterSet("prod").Obj()).Build()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			out := &syncBuffer{}
			done := make(chan error, 1)
			go func() { done <- tc.run(ctx, hubclient.Hub{Client: c}, out) }()
			waitFor(t, func() bool { return out.String() != "" })
			// The watch may open after a create: change until a reprint
			// shows one.
			i := 0
			waitFor(t, func() bool {
				i++
				if err := c.Create(ctx, tc.change(i)); err != nil {
					t.Fatal(err)
				}
				time.Sleep(50 * time.Millisecond) // pacing the changes, not synchronisation
				return strings.Contains(out.String(), tc.want)
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
