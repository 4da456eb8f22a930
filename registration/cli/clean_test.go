package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/internal/hubclient/hubclienttest"
	"github.com/corral-dev/corral/internal/testing/builder"
)

// TestCleanRefusesWhileClustersRemain: without --force, clean names the
// clusters that remain, not those being deleted already (just unjoined),
// and changes nothing (it would fail at the first write on this fake hub
// otherwise: no rest config).
func TestCleanRefusesWhileClustersRemain(t *testing.T) {
	leaving := builder.Cluster("c0").Finalizer("cluster.open-cluster-management.io/api-resource-cleanup").Deleting(time.Now()).Obj()
	c := hubclienttest.NewClientBuilder(t, builder.Cluster("c2").Obj(), builder.Cluster("c1").Obj(), leaving).Build()
	var out bytes.Buffer
	o := &CleanOptions{Out: &out, Hub: hubclient.Hub{Client: c}, Timeout: time.Minute}
	err := o.Run(t.Context())
	if err == nil || !strings.Contains(err.Error(), "2 clusters remain on the hub (c1, c2)") || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("clean with clusters left: %v, want a refusal naming c1, c2 and --force", err)
	}
	if out.Len() != 0 {
		t.Errorf("clean printed %q before refusing, want nothing done", out.String())
	}
	if err := (&CleanOptions{Timeout: 0}).Validate(); err == nil {
		t.Error("clean took --timeout 0")
	}
}
