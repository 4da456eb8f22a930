package localcluster

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Names inside a cluster's data directory.
const (
	lockFile      = ".lock"
	cleanStopFile = ".clean-stop"
	etcdDir       = "etcd"
	pkiDir        = "pki"
	logsDir       = "logs"
	kubeconfigDir = "kubeconfigs"
	// KubeconfigFile is the admin kubeconfig, at the top of the data dir.
	KubeconfigFile = "kubeconfig"
)

// ErrDirBusy is wrapped by the error for a data directory that another
// running cluster holds.
var ErrDirBusy = errors.New("data directory is in use")

// DirLock is an exclusive flock on <dir>/.lock. The kernel drops it when the
// holder dies, which is how a crashed run is told from a running one.
type DirLock struct{ f *os.File }

// LockDir takes the lock on dir, creating dir if needed.
func LockDir(dir string) (*DirLock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating data directory: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s is held by process %s; stop that cluster or use another directory",
				ErrDirBusy, dir, LockHolder(dir))
		}
		return nil, fmt.Errorf("locking %s: %w", dir, err)
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())), 0)
	return &DirLock{f: f}, nil
}

func (l *DirLock) Release() { l.f.Close() }

// LockHolder returns the pid recorded by the process that locked dir, or "?".
func LockHolder(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, lockFile))
	if err != nil || len(strings.TrimSpace(string(b))) == 0 {
		return "?"
	}
	return strings.TrimSpace(string(b))
}

// Locked reports whether a live process holds dir's lock.
func Locked(dir string) bool {
	f, err := os.Open(filepath.Join(dir, lockFile))
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return errors.Is(err, syscall.EWOULDBLOCK)
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

// prepareDir decides what to do with data an earlier run left in dir and
// says so: keep it when reuse is set, remove it otherwise. The lock must be
// held.
func prepareDir(dir string, reuse bool, say func(string, ...any)) error {
	if !exists(filepath.Join(dir, pkiDir)) && !exists(filepath.Join(dir, etcdDir)) {
		return nil
	}
	how := "did not shut down cleanly"
	if exists(filepath.Join(dir, cleanStopFile)) {
		how = "was stopped"
	}
	if reuse {
		say("reusing the data in %s of a cluster that %s", dir, how)
		if err := os.Remove(filepath.Join(dir, cleanStopFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	say("removing the data in %s of a cluster that %s (reuse, as in 'corral dev up --reuse', keeps it)", dir, how)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() == lockFile {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("cleaning %s: %w", dir, err)
		}
	}
	return nil
}

// layout is where a cluster's files are.
type layout struct{ dir string }

func (l layout) pki() pki                    { return pki{dir: filepath.Join(l.dir, pkiDir)} }
func (l layout) etcd() string                { return filepath.Join(l.dir, etcdDir) }
func (l layout) log(component string) string { return filepath.Join(l.dir, logsDir, component+".log") }
func (l layout) kubeconfig() string          { return filepath.Join(l.dir, KubeconfigFile) }
func (l layout) componentKubeconfig(id identity) string {
	return filepath.Join(l.dir, kubeconfigDir, id.file+".kubeconfig")
}

// prepare deals with an earlier run's data (see prepareDir), then creates
// the directories and the certificates a start needs. The lock must be held.
func (l layout) prepare(reuse bool, ips []net.IP, ids []identity, say func(string, ...any)) error {
	if err := prepareDir(l.dir, reuse, say); err != nil {
		return err
	}
	for _, d := range []string{logsDir, kubeconfigDir} {
		if err := os.MkdirAll(filepath.Join(l.dir, d), 0o755); err != nil {
			return err
		}
	}
	if err := l.pki().ensure(ips, ids); err != nil {
		return fmt.Errorf("creating certificates in %s: %w", l.dir, err)
	}
	return nil
}
