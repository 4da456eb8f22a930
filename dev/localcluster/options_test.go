package localcluster

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"
)

// completed is the part of Options that complete fills in, in a form
// cmp.Diff can print.
type completed struct {
	Profile      Profile
	Nodes        int
	StartTimeout time.Duration
	CPU, Memory  string
	Pods         string
}

func completedOf(o Options) completed {
	return completed{
		Profile: o.Profile, Nodes: o.Nodes, StartTimeout: o.StartTimeout,
		CPU: o.NodeResources.CPU.String(), Memory: o.NodeResources.Memory.String(), Pods: o.NodeResources.Pods.String(),
	}
}

func TestOptionsComplete(t *testing.T) {
	binDir := fakeBinDir(t)
	dir := t.TempDir()
	cases := map[string]struct {
		opts Options
		// wantErrs are substrings the error must contain; none means no error.
		wantErrs []string
		want     completed
	}{
		"hub defaults": {
			opts: Options{Name: "hub", Dir: dir},
			want: completed{Profile: ProfileHub, StartTimeout: DefaultStartTimeout, CPU: "8", Memory: "32Gi", Pods: "110"},
		},
		"managed gets default nodes": {
			opts: Options{Name: "cluster1", Profile: ProfileManaged, Dir: dir},
			want: completed{Profile: ProfileManaged, Nodes: DefaultNodes, StartTimeout: DefaultStartTimeout, CPU: "8", Memory: "32Gi", Pods: "110"},
		},
		"explicit values are kept": {
			opts: Options{
				Name: "cluster1", Profile: ProfileManaged, Dir: dir, Nodes: 5, StartTimeout: time.Minute,
				NodeResources: NodeResources{CPU: resource.MustParse("2"), Memory: resource.MustParse("4Gi"), Pods: resource.MustParse("20")},
			},
			want: completed{Profile: ProfileManaged, Nodes: 5, StartTimeout: time.Minute, CPU: "2", Memory: "4Gi", Pods: "20"},
		},
		"name not a DNS label": {
			opts:     Options{Name: "My_Cluster", Dir: dir},
			wantErrs: []string{`cluster name "My_Cluster" is not a DNS label`},
		},
		"empty name": {
			opts:     Options{Dir: dir},
			wantErrs: []string{`cluster name "" is not a DNS label`},
		},
		"unknown profile": {
			opts:     Options{Name: "hub", Profile: "edge", Dir: dir},
			wantErrs: []string{`profile "edge" is unknown: use "hub" or "managed"`},
		},
		"empty dir": {
			opts:     Options{Name: "hub"},
			wantErrs: []string{"a data directory is required"},
		},
		"negative nodes": {
			opts:     Options{Name: "cluster1", Profile: ProfileManaged, Dir: dir, Nodes: -1},
			wantErrs: []string{"nodes is -1: it cannot be negative"},
		},
		"negative signing duration": {
			opts:     Options{Name: "hub", Dir: dir, SigningDuration: -time.Second},
			wantErrs: []string{"signing duration is -1s: it cannot be negative"},
		},
		"every problem is reported": {
			opts: Options{Name: "-x-", Profile: "edge", Nodes: -2},
			wantErrs: []string{
				`cluster name "-x-" is not a DNS label`, `profile "edge" is unknown`,
				"a data directory is required", "nodes is -2: it cannot be negative",
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := tc.opts
			o.BinDir = binDir
			err := o.complete()
			if len(tc.wantErrs) > 0 {
				if err == nil {
					t.Fatalf("complete() = nil, want an error containing %q", tc.wantErrs)
				}
				for _, want := range tc.wantErrs {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("complete() error %q does not contain %q", err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("complete() = %v, want nil", err)
			}
			if diff := cmp.Diff(tc.want, completedOf(o)); diff != "" {
				t.Errorf("completed options (-want +got):\n%s", diff)
			}
			if o.Progress == nil {
				t.Error("Progress is nil after complete, want io.Discard")
			}
			if o.BinDir != binDir {
				t.Errorf("BinDir = %q, want the explicit %q", o.BinDir, binDir)
			}
		})
	}
}
