package fleet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOptionsValidate(t *testing.T) {
	cases := map[string]struct {
		opts Options
		// wantErr is a substring of the expected error; empty means nil.
		wantErr string
	}{
		"valid":             {opts: Options{Dir: "/tmp/fleet", Clusters: 2}},
		"hub only is valid": {opts: Options{Dir: "/tmp/fleet"}},
		"negative clusters": {opts: Options{Dir: "/tmp/fleet", Clusters: -1}, wantErr: "--clusters is -1"},
		"no dir":            {opts: Options{Clusters: 1}, wantErr: "--dir is required"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := tc.opts.Validate()
			if tc.wantErr == "" {
				if err != nil {
					t.Errorf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Validate() = %v, want an error containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestHowto(t *testing.T) {
	state := &State{Dir: "/f", Sample: true, Propagated: true, Clusters: []ClusterState{
		{Name: "hub", Kubeconfig: "/f/hub/kubeconfig"},
		{Name: "cluster1", Kubeconfig: "/f/cluster1/kubeconfig"},
	}}
	got := Howto(state)
	for _, want := range []string{
		"export KUBECONFIG=/f/hub/kubeconfig",
		"kubectl --kubeconfig /f/cluster1/kubeconfig get nodes",
		corralCommand() + " dev status --dir /f",
		corralCommand() + " dev down --dir /f",
		"kubectl --kubeconfig /f/hub/kubeconfig -n default rollout status deployment/hello-hub",
		corralCommand() + " propagation get hello-hub -n default",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Howto() does not contain %q:\n%s", want, got)
		}
	}
}

func TestCorralCommand(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	onPath := t.TempDir()
	if err := os.Symlink(exe, filepath.Join(onPath, "corral")); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "corral"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		path string
		want string
	}{
		"this binary is what PATH finds": {path: onPath, want: "corral"},
		"PATH finds another corral":      {path: other, want: exe},
		"PATH finds no corral":           {path: t.TempDir(), want: exe},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Setenv("PATH", tc.path)
			if got := corralCommand(); got != tc.want {
				t.Errorf("corralCommand() = %q, want %q", got, tc.want)
			}
		})
	}
}
