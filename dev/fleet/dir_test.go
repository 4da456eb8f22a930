package fleet

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fleetEntries are what a fleet leaves in its directory; a trailing / makes
// a directory.
var fleetEntries = []string{HubName + "/", HubName + "/kubeconfig", "cluster1/", "cluster1/etcd/", stateFile, LogFile, howtoFile, ".lock"}

func TestCheckDirUsable(t *testing.T) {
	cases := map[string]struct {
		missing bool
		entries []string
		// wantErr are substrings of the expected error; none means nil.
		wantErr []string
	}{
		"missing dir":              {missing: true},
		"empty dir":                {},
		"only fleet entries":       {entries: fleetEntries},
		"leftover temporary state": {entries: []string{stateFile + ".tmp"}},
		"foreign file": {
			entries: append([]string{"notes.txt"}, fleetEntries...),
			wantErr: []string{"holds notes.txt", "pick an empty or new directory"},
		},
		"a file named like a cluster": {
			entries: []string{"clusters.txt", "cluster-backup/"},
			wantErr: []string{"holds cluster", "pick an empty or new directory"},
		},
		"foreign directory": {
			entries: []string{"Documents/"},
			wantErr: []string{"holds Documents", "pick an empty or new directory"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "fleet")
			if !tc.missing {
				makeEntries(t, dir, tc.entries)
			}
			err := CheckDirUsable(dir)
			if len(tc.wantErr) == 0 {
				if err != nil {
					t.Fatalf("CheckDirUsable() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatal("CheckDirUsable() = nil, want an error")
			}
			for _, want := range append(tc.wantErr, dir) {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("CheckDirUsable() = %q, want it to contain %q", err, want)
				}
			}
		})
	}
}

func TestRemoveDir(t *testing.T) {
	cases := map[string]struct {
		missing bool
		entries []string
		// wantLeft are the entries left; nil means the dir itself is gone.
		wantLeft []string
	}{
		"missing dir":        {missing: true},
		"empty dir":          {},
		"only fleet entries": {entries: fleetEntries},
		"foreign files are kept": {
			entries:  append([]string{"notes.txt", "Documents/", "Documents/a"}, fleetEntries...),
			wantLeft: []string{"Documents", "notes.txt"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "fleet")
			if !tc.missing {
				makeEntries(t, dir, tc.entries)
			}
			if err := RemoveDir(dir); err != nil {
				t.Fatalf("RemoveDir() = %v", err)
			}
			entries, err := os.ReadDir(dir)
			if tc.wantLeft == nil {
				if !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("dir still there after RemoveDir (read: %v, entries: %v)", err, entries)
				}
				return
			}
			if err != nil {
				t.Fatalf("reading the dir after RemoveDir: %v", err)
			}
			var got []string
			for _, e := range entries {
				got = append(got, e.Name())
			}
			sort.Strings(got)
			if diff := cmp.Diff(tc.wantLeft, got); diff != "" {
				t.Errorf("entries left (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDefaultDir(t *testing.T) {
	cases := map[string]struct {
		env, home, want string
	}{
		"env wins":   {env: "/srv/fleet", home: "/home/u", want: "/srv/fleet"},
		"under home": {home: "/home/u", want: "/home/u/.corral/dev"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Setenv(DirEnv, tc.env)
			t.Setenv("HOME", tc.home)
			if got := DefaultDir(); got != tc.want {
				t.Errorf("DefaultDir() = %q, want %q", got, tc.want)
			}
		})
	}
}

// makeEntries creates dir and the named entries in it.
func makeEntries(t *testing.T, dir string, entries []string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		p := filepath.Join(dir, e)
		var err error
		if strings.HasSuffix(e, "/") {
			err = os.MkdirAll(p, 0o755)
		} else {
			err = os.WriteFile(p, []byte("x"), 0o600)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}
