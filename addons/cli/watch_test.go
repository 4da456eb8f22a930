package cli

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/internal/hubclient/hubclienttest"
	"github.com/corral-dev/corral/internal/testing/builder"
)

// TestAddonVerbsWatch: with -w, addon list and addon status print again
// once the addon is enabled on another cluster, and stop without an
// error when stopped.
func TestAddonVerbsWatch(t *testing.T) {
	cases := map[string]func(ctx context.Context, hub hubclient.Hub, out io.Writer) error{
		"addon list -w": func(ctx context.Context, hub hubclient.Hub, out io.Writer) error {
			return (&ListOptions{Out: out, Hub: hub, Watch: true}).Run(ctx)
		},
		"addon status -w": func(ctx context.Context, hub hubclient.Hub, out io.Writer) error {
			return (&StatusOptions{Out: out, Hub: hub, Addon: "hello", Watch: true}).Run(ctx)
		},
	}
	for name, run := range cases {
		t.Run(name, func(t *testing.T) {
			c := fakeHub(t, cma("hello"), builder.AddOn("c1", "hello").Obj())
			hubclienttest.ExpectWatch(t, c, run, func(ctx context.Context, i int) error {
				return c.Create(ctx, builder.AddOn(fmt.Sprintf("late%d", i), "hello").Obj())
			}, "late")
		})
	}
}
