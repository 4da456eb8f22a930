package realnode

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCgroupName(t *testing.T) {
	n := testNode(t)
	got := cgroupName(n.Net.Network.ID, n.Name)
	if got != "corral-a1b2c3-c2-node" {
		t.Errorf("cgroupName = %q, want corral-a1b2c3-c2-node", got)
	}
	// RemoveLeftovers finds a fleet's cgroups and namespaces by one prefix.
	if got != n.Net.NetNS() {
		t.Errorf("cgroup %q and network namespace %q differ", got, n.Net.NetNS())
	}
}

func TestCgroupTree(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"corral-x-n1/node", "corral-x-n1/kubepods/burstable/pod1", "corral-x-n1/kubepods/besteffort"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "corral-x-n1", "cgroup.procs"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		dir  string
		want []string
	}{
		"a node's cgroup and every one below it": {
			dir: "corral-x-n1",
			want: []string{
				"corral-x-n1",
				"corral-x-n1/kubepods",
				"corral-x-n1/kubepods/besteffort",
				"corral-x-n1/kubepods/burstable",
				"corral-x-n1/kubepods/burstable/pod1",
				"corral-x-n1/node",
			},
		},
		"a cgroup already gone": {dir: "corral-x-n2"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := cgroupTree(filepath.Join(root, tc.dir))
			if err != nil {
				t.Fatalf("cgroupTree: %v", err)
			}
			var rel []string
			for _, d := range got {
				r, err := filepath.Rel(root, d)
				if err != nil {
					t.Fatal(err)
				}
				rel = append(rel, r)
			}
			slices.Sort(rel)
			if diff := cmp.Diff(tc.want, rel); diff != "" {
				t.Errorf("cgroupTree (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCgroupPIDs(t *testing.T) {
	self := strconv.Itoa(os.Getpid())
	cases := map[string]struct {
		procs map[string]string // cgroup.procs of each dir; a dir without one has none
		dirs  []string
		want  []int
	}{
		"none":            {procs: map[string]string{"a": ""}, dirs: []string{"a"}},
		"one cgroup":      {procs: map[string]string{"a": "101\n102\n"}, dirs: []string{"a"}, want: []int{101, 102}},
		"each pid once":   {procs: map[string]string{"a": "101\n102\n", "b": "102\n103\n"}, dirs: []string{"a", "b"}, want: []int{101, 102, 103}},
		"a cgroup gone":   {procs: map[string]string{"a": "101\n"}, dirs: []string{"gone", "a"}, want: []int{101}},
		"never this test": {procs: map[string]string{"a": "101\n" + self + "\n"}, dirs: []string{"a"}, want: []int{101}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			for d, procs := range tc.procs {
				if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(root, d, "cgroup.procs"), []byte(procs), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var dirs []string
			for _, d := range tc.dirs {
				dirs = append(dirs, filepath.Join(root, d))
			}
			if diff := cmp.Diff(tc.want, cgroupPIDs(dirs)); diff != "" {
				t.Errorf("cgroupPIDs (-want +got):\n%s", diff)
			}
		})
	}
}
