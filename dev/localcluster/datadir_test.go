package localcluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLockDirHeldTwice(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data") // LockDir creates it
	first, err := LockDir(dir)
	if err != nil {
		t.Fatalf("first LockDir() = %v", err)
	}
	if got, want := LockHolder(dir), strconv.Itoa(os.Getpid()); got != want {
		t.Errorf("LockHolder() = %q, want %q", got, want)
	}
	if !Locked(dir) {
		t.Error("Locked() = false while the lock is held")
	}

	second, err := LockDir(dir)
	if err == nil {
		second.Release()
		t.Fatal("second LockDir() = nil while the lock is held, want ErrDirBusy")
	}
	if !errors.Is(err, ErrDirBusy) {
		t.Errorf("second LockDir() = %v, want it to wrap ErrDirBusy", err)
	}
	if want := fmt.Sprintf("held by process %d", os.Getpid()); !strings.Contains(err.Error(), want) {
		t.Errorf("second LockDir() error %q does not contain %q", err, want)
	}

	first.Release()
	if Locked(dir) {
		t.Error("Locked() = true after Release")
	}
	again, err := LockDir(dir)
	if err != nil {
		t.Fatalf("LockDir() after Release = %v", err)
	}
	again.Release()
}

func TestLockHolderUnknown(t *testing.T) {
	cases := map[string]struct {
		writeLock bool
		content   string
	}{
		"no lock file":    {},
		"blank lock file": {writeLock: true, content: " \n"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.writeLock {
				if err := os.WriteFile(filepath.Join(dir, lockFile), []byte(tc.content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if got := LockHolder(dir); got != "?" {
				t.Errorf("LockHolder() = %q, want %q", got, "?")
			}
		})
	}
}

func TestLockedDoesNotCreate(t *testing.T) {
	cases := map[string]struct {
		mkdir bool
	}{
		"missing dir":                {},
		"existing dir, no lock file": {mkdir: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			if tc.mkdir {
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if Locked(dir) {
				t.Error("Locked() = true, want false")
			}
			if !tc.mkdir {
				if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("Locked() left %s behind (stat: %v), want it not created", dir, err)
				}
				return
			}
			if _, err := os.Stat(filepath.Join(dir, lockFile)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("Locked() created the lock file (stat: %v)", err)
			}
		})
	}
}

func TestPrepareDir(t *testing.T) {
	cases := map[string]struct {
		files []string // created before; a trailing / makes a directory
		reuse bool
		// wantSaid are substrings of the single message; empty means silence.
		wantSaid []string
		wantLeft []string
	}{
		"empty dir": {
			wantLeft: []string{},
		},
		"only the lock": {
			files:    []string{lockFile},
			wantLeft: []string{lockFile},
		},
		"only logs and kubeconfigs are not data": {
			files:    []string{lockFile, "logs/", "kubeconfigs/", KubeconfigFile},
			wantLeft: []string{lockFile, KubeconfigFile, "kubeconfigs", "logs"},
		},
		"crashed run is removed": {
			files:    []string{lockFile, "pki/", "pki/ca.crt", "etcd/", "etcd/member", "logs/", KubeconfigFile},
			wantSaid: []string{"removing the data in", "did not shut down cleanly"},
			wantLeft: []string{lockFile},
		},
		"stopped run is removed": {
			files:    []string{lockFile, cleanStopFile, "pki/", "etcd/"},
			wantSaid: []string{"removing the data in", "was stopped"},
			wantLeft: []string{lockFile},
		},
		"crashed run is reused": {
			files:    []string{lockFile, "pki/", "pki/ca.crt", "etcd/"},
			reuse:    true,
			wantSaid: []string{"reusing the data in", "did not shut down cleanly"},
			wantLeft: []string{lockFile, "etcd", "pki"},
		},
		"stopped run is reused": {
			files:    []string{lockFile, cleanStopFile, "pki/", "pki/ca.crt", "etcd/"},
			reuse:    true,
			wantSaid: []string{"reusing the data in", "was stopped"},
			wantLeft: []string{lockFile, "etcd", "pki"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tc.files {
				p := filepath.Join(dir, f)
				var err error
				if strings.HasSuffix(f, "/") {
					err = os.MkdirAll(p, 0o755)
				} else {
					err = os.WriteFile(p, []byte("x"), 0o600)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			var said []string
			say := func(format string, args ...any) { said = append(said, fmt.Sprintf(format, args...)) }

			if err := prepareDir(dir, tc.reuse, say); err != nil {
				t.Fatalf("prepareDir() = %v", err)
			}

			switch {
			case len(tc.wantSaid) == 0 && len(said) > 0:
				t.Errorf("prepareDir() said %q, want nothing", said)
			case len(tc.wantSaid) > 0 && len(said) != 1:
				t.Errorf("prepareDir() said %q, want one line", said)
			case len(tc.wantSaid) > 0:
				for _, want := range append(tc.wantSaid, dir) {
					if !strings.Contains(said[0], want) {
						t.Errorf("prepareDir() said %q, want it to contain %q", said[0], want)
					}
				}
			}
			if diff := cmp.Diff(tc.wantLeft, entryNames(t, dir)); diff != "" {
				t.Errorf("entries left in the dir (-want +got):\n%s", diff)
			}
			if tc.reuse && !exists(filepath.Join(dir, pkiDir, "ca.crt")) {
				t.Error("reuse removed pki/ca.crt")
			}
		})
	}
}

func entryNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}
