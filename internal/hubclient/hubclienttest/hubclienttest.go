// Package hubclienttest gives the verbs' tests a fake hub: a
// controller-runtime fake client over hubclient.Scheme, to give a verb as
// hubclient.Hub{Client: c}.
package hubclienttest

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/corral-dev/corral/internal/hubclient"
)

// NewClientBuilder returns a fake client builder over hubclient.Scheme
// that holds objs.
func NewClientBuilder(t testing.TB, objs ...client.Object) *fake.ClientBuilder {
	t.Helper()
	scheme, err := hubclient.Scheme()
	if err != nil {
		t.Fatal(err)
	}
	return fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...)
}

// Buffer is a bytes.Buffer that a watching verb may write while the test
// reads it.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// watchTimeout bounds each wait of ExpectWatch, for a busy machine.
const watchTimeout = 30 * time.Second

// ExpectWatch runs a watching verb (run, writing to out) against the hub
// c: it expects a first table, then changes the hub with change(ctx, i),
// i = 1, 2, … until out shows want (the watch may open after a change,
// so one change is not enough), then stops the verb as Ctrl-C does and
// expects it to return nil.
func ExpectWatch(t testing.TB, c client.WithWatch, run func(ctx context.Context, hub hubclient.Hub, out io.Writer) error,
	change func(ctx context.Context, i int) error, want string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &Buffer{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, hubclient.Hub{Client: c}, out) }()
	waitFor(t, "a first table", out, func() bool { return out.String() != "" })
	i := 0
	waitFor(t, "a table showing "+want, out, func() bool {
		i++
		if err := change(ctx, i); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond) // pacing the changes, not synchronisation
		return strings.Contains(out.String(), want)
	})
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the watch ended with %v, want nil when stopped", err)
		}
	case <-time.After(watchTimeout):
		t.Fatal("the watch did not end with its context")
	}
}

// waitFor polls cond until it holds, failing t after watchTimeout.
func waitFor(t testing.TB, what string, out *Buffer, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(watchTimeout); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %s; printed:\n%s", what, watchTimeout, out.String())
		}
	}
}
