package fleet

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"

	"github.com/corral-dev/corral/dev/localcluster"
)

func TestClusterNames(t *testing.T) {
	cases := map[string]struct {
		n    int
		want []string
	}{
		"hub only":       {n: 0, want: []string{"hub"}},
		"two managed":    {n: 2, want: []string{"hub", "cluster1", "cluster2"}},
		"negative count": {n: -1, want: []string{"hub"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ClusterNames(tc.n)); diff != "" {
				t.Errorf("ClusterNames(%d) (-want +got):\n%s", tc.n, diff)
			}
		})
	}
}

func TestStateRoundTrip(t *testing.T) {
	dir := t.TempDir()
	want := &State{
		Dir: dir, Supervisor: 4242, Phase: PhaseRunning, Message: "all good",
		Started: time.Date(2025, 3, 4, 5, 6, 7, 8, time.UTC),
		Clusters: []ClusterState{
			{Name: "hub", Profile: localcluster.ProfileHub, Dir: filepath.Join(dir, "hub"), Kubeconfig: filepath.Join(dir, "hub", "kubeconfig"),
				Server: "https://127.0.0.1:6443", Components: []localcluster.Component{{Name: "etcd", PID: 10, Running: true, Log: "/l/etcd.log"}}},
			{Name: "cluster1", Profile: localcluster.ProfileManaged, Dir: filepath.Join(dir, "cluster1")},
		},
	}
	if err := want.write(); err != nil {
		t.Fatalf("write() = %v", err)
	}
	got, err := ReadState(dir)
	if err != nil {
		t.Fatalf("ReadState() = %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("state read back (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(dir, stateFile+".tmp")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("write() left %s.tmp behind (stat: %v)", stateFile, err)
	}
}

func TestReadStateErrors(t *testing.T) {
	cases := map[string]struct {
		content *string // nil: no fleet.json
		wantIs  error
		wantErr []string
	}{
		"no fleet.json": {wantIs: ErrNoFleet, wantErr: []string{"no fleet in"}},
		"damaged json":  {content: ptr.To(`{"dir": `), wantErr: []string{"fleet.json is damaged", "remove"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.content != nil {
				if err := os.WriteFile(filepath.Join(dir, stateFile), []byte(*tc.content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			s, err := ReadState(dir)
			if err == nil {
				t.Fatalf("ReadState() = %+v, nil; want an error", s)
			}
			if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
				t.Errorf("ReadState() = %v, want it to wrap %v", err, tc.wantIs)
			}
			if tc.wantIs == nil && errors.Is(err, ErrNoFleet) {
				t.Errorf("ReadState() = %v wraps ErrNoFleet, want a different error", err)
			}
			for _, want := range append(tc.wantErr, dir) {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("ReadState() = %q, want it to contain %q", err, want)
				}
			}
		})
	}
}
