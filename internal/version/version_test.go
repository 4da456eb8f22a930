package version

import (
	"bytes"
	"encoding/json"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGet(t *testing.T) {
	platform := runtime.GOOS + "/" + runtime.GOARCH
	built := func(mainVersion string, settings ...debug.BuildSetting) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{Main: debug.Module{Version: mainVersion}, Settings: settings}, true
		}
	}
	rev := debug.BuildSetting{Key: "vcs.revision", Value: "abc123"}
	cases := map[string]struct {
		version, commit string
		read            func() (*debug.BuildInfo, bool)
		want            Info
	}{
		"stamped by make build wins": {
			version: "v0.3.0", commit: "f00d", read: built("v9.9.9", rev),
			want: Info{Version: "v0.3.0", Commit: "f00d"},
		},
		"go install of a tagged module": {
			read: built("v0.2.0", rev),
			want: Info{Version: "v0.2.0", Commit: "abc123"},
		},
		"go build in a dirty tree": {
			read: built("(devel)", rev, debug.BuildSetting{Key: "vcs.modified", Value: "true"}),
			want: Info{Version: "dev", Commit: "abc123-dirty"},
		},
		"a pseudo-version with build metadata, made a valid image tag": {
			read: built("v0.0.0-20261129050000-abcdef123456+dirty", rev),
			want: Info{Version: "v0.0.0-20261129050000-abcdef123456-dirty", Commit: "abc123"},
		},
		"nothing known": {
			read: func() (*debug.BuildInfo, bool) { return nil, false },
			want: Info{Version: "dev", Commit: "unknown"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tc.want.GoVersion, tc.want.Platform = runtime.Version(), platform
			if diff := cmp.Diff(tc.want, get(tc.version, tc.commit, tc.read)); diff != "" {
				t.Errorf("get (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCommand(t *testing.T) {
	var out bytes.Buffer
	cmd := NewCommand(&out)
	cmd.SetArgs(nil)
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "corral ") || !strings.Contains(out.String(), runtime.Version()) {
		t.Errorf("corral version printed %q", out.String())
	}

	out.Reset()
	cmd = NewCommand(&out)
	cmd.SetArgs([]string{"-o", "json"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	var got Info
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || got.Version == "" || got.Commit == "" {
		t.Errorf("corral version -o json = %q (%v), want an Info with a version and a commit", out.String(), err)
	}

	out.Reset()
	cmd = NewCommand(&out)
	cmd.SetArgs([]string{"--short"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(out.String()); got != Get().Version {
		t.Errorf("corral version --short = %q, want the version alone, %q", got, Get().Version)
	}

	cmd = NewCommand(&out)
	cmd.SetArgs([]string{"-o", "xml"})
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "--output") {
		t.Errorf("corral version -o xml = %v, want it to say --output is wrong", err)
	}
}
