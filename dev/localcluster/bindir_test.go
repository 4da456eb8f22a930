package localcluster

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeBinDir returns a directory holding an executable stand-in for every
// binary in Binaries.
func fakeBinDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeFakeBinaries(t, dir, Binaries...)
	return dir
}

func writeFakeBinaries(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCheckBinDir(t *testing.T) {
	cases := map[string]struct {
		// setup fills dir.
		setup func(t *testing.T, dir string)
		// wantMissing is the binary the error must name; empty means no error.
		wantMissing string
	}{
		"complete": {
			setup: func(t *testing.T, dir string) { writeFakeBinaries(t, dir, Binaries...) },
		},
		"empty names the first binary": {
			setup:       func(*testing.T, string) {},
			wantMissing: "etcd",
		},
		"kwok missing": {
			setup:       func(t *testing.T, dir string) { writeFakeBinaries(t, dir, Binaries[:len(Binaries)-1]...) },
			wantMissing: "kwok",
		},
		"not executable counts as missing": {
			setup: func(t *testing.T, dir string) {
				writeFakeBinaries(t, dir, Binaries...)
				if err := os.Chmod(filepath.Join(dir, "kube-scheduler"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			wantMissing: "kube-scheduler",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			tc.setup(t, dir)
			err := CheckBinDir(dir)
			if tc.wantMissing == "" {
				if err != nil {
					t.Fatalf("CheckBinDir() = %v, want nil", err)
				}
				return
			}
			assertToolsMissing(t, err, tc.wantMissing+" not found in "+dir)
		})
	}
}

func TestFindBinDir(t *testing.T) {
	cases := map[string]struct {
		// setup prepares the environment and returns the directory
		// FindBinDir must find, or "" when it must fail.
		setup func(t *testing.T) string
		// wantInErr are substrings of the expected error.
		wantInErr []string
	}{
		"env names a complete dir": {
			setup: func(t *testing.T) string {
				dir := fakeBinDir(t)
				t.Setenv(BinDirEnv, dir)
				return dir
			},
		},
		"env names an incomplete dir": {
			setup: func(t *testing.T) string {
				dir := t.TempDir()
				writeFakeBinaries(t, dir, "etcd", "kube-apiserver")
				t.Setenv(BinDirEnv, dir)
				return ""
			},
			wantInErr: []string{"kube-controller-manager not found"},
		},
		"bin beside go.mod upwards from the working directory": {
			setup: func(t *testing.T) string {
				t.Setenv(BinDirEnv, "")
				root := t.TempDir()
				bin := filepath.Join(root, "bin")
				sub := filepath.Join(root, "a", "b")
				for _, d := range []string{bin, sub} {
					if err := os.MkdirAll(d, 0o755); err != nil {
						t.Fatal(err)
					}
				}
				writeFakeBinaries(t, bin, Binaries...)
				if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module x\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				t.Chdir(sub)
				return bin
			},
		},
		"nothing found says where it looked and the env var": {
			setup: func(t *testing.T) string {
				t.Setenv(BinDirEnv, "")
				t.Chdir(t.TempDir())
				return ""
			},
			wantInErr: []string{"looked in", BinDirEnv},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			want := tc.setup(t)
			got, err := FindBinDir()
			if want == "" {
				assertToolsMissing(t, err, tc.wantInErr...)
				return
			}
			if err != nil {
				t.Fatalf("FindBinDir() = %v, want nil", err)
			}
			if !sameDir(t, got, want) {
				t.Errorf("FindBinDir() = %q, want %q", got, want)
			}
		})
	}
}

func assertToolsMissing(t *testing.T, err error, wantInErr ...string) {
	t.Helper()
	if !errors.Is(err, ErrToolsMissing) {
		t.Fatalf("error = %v, want one wrapping ErrToolsMissing", err)
	}
	for _, want := range append([]string{"run make tools"}, wantInErr...) {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

func sameDir(t *testing.T, a, b string) bool {
	t.Helper()
	ra, err := filepath.EvalSymlinks(a)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := filepath.EvalSymlinks(b)
	if err != nil {
		t.Fatal(err)
	}
	return ra == rb
}
