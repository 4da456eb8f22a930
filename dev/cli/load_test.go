package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/corral-dev/corral/dev/fleet"
)

func TestLoadTargets(t *testing.T) {
	state := &fleet.State{Clusters: []fleet.ClusterState{
		{Name: "hub", Node: "hub-node"}, {Name: "cluster1", Node: "cluster1-node"}, {Name: "cluster2", Node: "cluster2-node"},
	}}
	kwokOnly := &fleet.State{Clusters: []fleet.ClusterState{{Name: "hub"}, {Name: "cluster1"}}}
	cases := map[string]struct {
		state    *fleet.State
		clusters []string
		want     []string
		wantErr  string
	}{
		"every cluster by default":         {state: state, want: []string{"hub", "cluster1", "cluster2"}},
		"only those named":                 {state: state, clusters: []string{"cluster2"}, want: []string{"cluster2"}},
		"a name the fleet does not have":   {state: state, clusters: []string{"cluster9"}, wantErr: "--cluster cluster9: the fleet has no such cluster; it has hub, cluster1, cluster2"},
		"a fleet without real nodes":       {state: kwokOnly, wantErr: "cluster hub has no real node"},
		"a named cluster without its node": {state: kwokOnly, clusters: []string{"cluster1"}, wantErr: "--real-nodes"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := &LoadOptions{Clusters: tc.clusters}
			got, err := o.targets(tc.state)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("targets() error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("targets() = %v", err)
			}
			var names []string
			for _, c := range got {
				names = append(names, c.Name)
			}
			if diff := cmp.Diff(tc.want, names); diff != "" {
				t.Errorf("targets (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadArchive(t *testing.T) {
	file := filepath.Join(t.TempDir(), "app.tar")
	if err := os.WriteFile(file, []byte("an archive"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := archive(context.Background(), file, t.TempDir(), 0)
	if err != nil || got != file {
		t.Errorf("archive(a file) = %q, %v; want the file itself", got, err)
	}
	// Neither a file nor, without podman on PATH, an image name.
	t.Setenv("PATH", t.TempDir())
	_, err = archive(context.Background(), "localhost/me/app:v1", t.TempDir(), 0)
	if err == nil || !strings.Contains(err.Error(), "give an image archive") {
		t.Errorf("archive(a name, no podman) = %v, want it to say to give an archive", err)
	}
}

func TestLoadRefusesAFleetThatIsNotThere(t *testing.T) {
	o := &LoadOptions{Dir: t.TempDir(), Images: []string{"x.tar"}}
	err := o.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "dev up") {
		t.Errorf("Run() = %v, want it to say to start a fleet with dev up", err)
	}
}
