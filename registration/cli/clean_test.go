package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/confirm"
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

// TestCleanAsks: clean shows what goes before it removes anything; off a
// terminal it is refused without --yes, and --dry-run removes nothing;
// with --yes or a person's y it goes ahead (deleting the cluster --force
// names, then failing at this fake hub's missing API server).
func TestCleanAsks(t *testing.T) {
	shown := []string{
		"  - cluster c1: deleted; its namespace, RBAC, addons and 1 ManifestWork go",
		"  - the hub's Deployment, RBAC and namespace open-cluster-management-hub",
		"  - the Open Cluster Management CRDs, and every object of theirs: 1 placement",
	}
	cases := map[string]struct {
		conf    confirm.Options
		wantErr string
		wantOut []string
		goes    bool
	}{
		"off a terminal: refused, naming --yes": {conf: confirm.Options{}, wantErr: "pass --yes", wantOut: shown},
		"dry run":                               {conf: confirm.Options{DryRun: true}, wantOut: append(shown, "dry run: nothing was changed")},
		"--yes":                                 {conf: confirm.Options{Yes: true}, wantOut: []string{"Removing the corral hub"}, goes: true},
		"a person answering y": {conf: confirm.Options{Terminal: true, In: strings.NewReader("y\n")},
			wantOut: []string{"Remove the corral hub from http://127.0.0.1:1? [y/N] ", "Removing the corral hub"}, goes: true},
		"a person answering n": {conf: confirm.Options{Terminal: true, In: strings.NewReader("n\n")}, wantOut: []string{"nothing was changed"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := hubclienttest.NewClientBuilder(t, builder.Cluster("c1").Obj(), builder.Work("c1", "web").Obj(),
				builder.Placement("team-a", "web").Obj()).Build()
			var out bytes.Buffer
			// Nothing listens on port 1: past the question, the hub's
			// objects cannot be removed here.
			o := &CleanOptions{Out: &out, Hub: hubclient.Hub{Client: c, Config: &rest.Config{Host: "http://127.0.0.1:1"}},
				Namespace: "open-cluster-management-hub", Force: true, Confirm: tc.conf, Timeout: time.Second}
			err := o.Run(t.Context())
			switch {
			case tc.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("error = %v, want one line saying %q", err, tc.wantErr)
				}
			case !tc.goes && err != nil:
				t.Fatal(err)
			}
			for _, s := range tc.wantOut {
				if !strings.Contains(out.String(), s) {
					t.Errorf("output lacks %q:\n%s", s, out.String())
				}
			}
			err = c.Get(t.Context(), client.ObjectKey{Name: "c1"}, &clusterv1.ManagedCluster{})
			if gone := err != nil; gone != tc.goes {
				t.Errorf("cluster c1 deleted = %v, want %v (%v)", gone, tc.goes, err)
			}
		})
	}
}
