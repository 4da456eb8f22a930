package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/corral-dev/corral/dev/fleet"
	"github.com/corral-dev/corral/dev/image"
)

func TestLoadTargets(t *testing.T) {
	state := &fleet.State{Clusters: []fleet.ClusterState{
		{Name: "hub", Node: "hub-node"}, {Name: "cluster1", Node: "cluster1-node"}, {Name: "cluster2", Node: "cluster2-node"},
	}}
	hubless := &fleet.State{Clusters: []fleet.ClusterState{{Name: "hub"}, {Name: "cluster1", Node: "cluster1-node"}, {Name: "cluster2", Node: "cluster2-node"}}}
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
		"every cluster with a node":        {state: hubless, want: []string{"cluster1", "cluster2"}},
		"the hub named, without a node":    {state: hubless, clusters: []string{"hub"}, wantErr: "cluster hub has no real node"},
		"a fleet without real nodes":       {state: kwokOnly, wantErr: "no cluster of the fleet has a real node"},
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

func TestLoadArchiveOfALayout(t *testing.T) {
	const ref = "ghcr.io/corral-dev/corral:v1"
	prog := filepath.Join(t.TempDir(), "corral")
	if err := os.WriteFile(prog, []byte("#!/bin/true\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	idx, err := image.Release{Title: "corral", Binaries: map[string]string{runtime.GOARCH: prog}, Version: "v1", Revision: "abc"}.Index()
	if err != nil {
		t.Fatal(err)
	}
	layout := filepath.Join(t.TempDir(), "corral")
	if err := image.WriteLayout(layout, ref, idx); err != nil {
		t.Fatal(err)
	}
	got, err := archive(context.Background(), layout, t.TempDir(), 3)
	if err != nil {
		t.Fatalf("archive(a layout) = %v", err)
	}
	m, err := tarball.LoadManifest(func() (io.ReadCloser, error) { return os.Open(got) })
	if err != nil {
		t.Fatalf("archive(a layout) wrote %s, which is no image archive: %v", got, err)
	}
	if len(m) != 1 || !slices.Equal(m[0].RepoTags, []string{ref}) {
		t.Errorf("the archive's manifest is %+v, want one image named %s", m, ref)
	}
	want, _ := image.ImageFor(idx, runtime.GOARCH)
	wantConfig, _ := want.ConfigName()
	if len(m) == 1 && m[0].Config != wantConfig.String() {
		t.Errorf("the archive holds config %s, want this machine's image's %s", m[0].Config, wantConfig)
	}

	_, err = archive(context.Background(), t.TempDir(), t.TempDir(), 0)
	if err == nil || !strings.Contains(err.Error(), "no OCI layout") {
		t.Errorf("archive(a directory) = %v, want it to say it is no OCI layout", err)
	}
}

func TestLoadRefusesAFleetThatIsNotThere(t *testing.T) {
	o := &LoadOptions{Dir: t.TempDir(), Images: []string{"x.tar"}}
	err := o.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "dev up") {
		t.Errorf("Run() = %v, want it to say to start a fleet with dev up", err)
	}
}
