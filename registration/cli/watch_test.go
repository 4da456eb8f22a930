package cli

import (
	"context"
	"fmt"
	"io"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/internal/hubclient/hubclienttest"
	"github.com/corral-dev/corral/internal/testing/builder"
)

// TestGetVerbsWatch: with -w, get clusters and clusterset get print again
// once a watched kind changes, and stop without an error when stopped.
func TestGetVerbsWatch(t *testing.T) {
	cases := map[string]struct {
		run func(ctx context.Context, hub hubclient.Hub, out io.Writer) error
		// change is the i-th change made until it shows.
		change func(i int) client.Object
		want   string
	}{
		"get clusters -w, a cluster joining": {
			run: func(ctx context.Context, hub hubclient.Hub, out io.Writer) error {
				return (&GetClustersOptions{Out: out, Hub: hub, Watch: true}).Run(ctx)
			},
			change: func(i int) client.Object { return builder.Cluster(fmt.Sprintf("late%d", i)).Obj() }, want: "late",
		},
		"clusterset get -w, a set created": {
			run: func(ctx context.Context, hub hubclient.Hub, out io.Writer) error {
				return (&ClusterSetGetOptions{Out: out, Hub: hub, Watch: true}).Run(ctx)
			},
			change: func(i int) client.Object { return builder.ClusterSet(fmt.Sprintf("late%d", i)).Obj() }, want: "late",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := hubclienttest.NewClientBuilder(t, builder.Cluster("c1").Obj(), builder.ClusterSet("prod").Obj()).Build()
			hubclienttest.ExpectWatch(t, c, tc.run, func(ctx context.Context, i int) error {
				return c.Create(ctx, tc.change(i))
			}, tc.want)
		})
	}
}
