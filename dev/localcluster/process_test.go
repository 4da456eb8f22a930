package localcluster

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// waitLimit bounds every wait in these tests; reaching it is a failure.
const waitLimit = 10 * time.Second

// startTestProcess starts bin with args, logging to a fresh file, and
// returns the process and a channel that receives it from onExit.
func startTestProcess(t *testing.T, name, bin string, args ...string) (*process, <-chan *process) {
	t.Helper()
	exited := make(chan *process, 1)
	p, err := startProcess(name, bin, args, filepath.Join(t.TempDir(), name+".log"), func(p *process) { exited <- p })
	if err != nil {
		t.Fatalf("startProcess() = %v", err)
	}
	t.Cleanup(func() { _ = p.stop() })
	return p, exited
}

func awaitExit(t *testing.T, exited <-chan *process) *process {
	t.Helper()
	select {
	case p := <-exited:
		return p
	case <-time.After(waitLimit):
		t.Fatalf("onExit not called within %s", waitLimit)
		return nil
	}
}

func sleepBinary(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("sleep")
	if err != nil {
		t.Skipf("no sleep binary: %v", err)
	}
	return bin
}

func TestStartProcessExitCode(t *testing.T) {
	p, exited := startTestProcess(t, "etcd", "/bin/sh", "-c", "exit 3")
	if got := awaitExit(t, exited); got != p {
		t.Errorf("onExit got %p, want the started process %p", got, p)
	}
	if p.running() {
		t.Error("running() = true after onExit")
	}
	msg := p.exitError().Error()
	for _, want := range []string{"etcd stopped unexpectedly", "exited with code 3", p.logPath} {
		if !strings.Contains(msg, want) {
			t.Errorf("exitError() = %q, want it to contain %q", msg, want)
		}
	}
}

func TestStartProcessStop(t *testing.T) {
	p, exited := startTestProcess(t, "kube-apiserver", sleepBinary(t), "60")
	if !p.running() {
		t.Fatal("running() = false right after start")
	}
	stopped := make(chan error, 1)
	go func() { stopped <- p.stop() }()
	select {
	case err := <-stopped:
		if err != nil {
			t.Errorf("stop() = %v, want nil", err)
		}
	case <-time.After(waitLimit):
		t.Fatalf("stop() did not return within %s", waitLimit)
	}
	if p.running() {
		t.Error("running() = true after stop")
	}
	// Reaped: the pid no longer names a process, not even a zombie.
	if err := syscall.Kill(p.pid(), 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("kill(%d, 0) = %v after stop, want ESRCH", p.pid(), err)
	}
	awaitExit(t, exited)
	if err := p.stop(); err != nil {
		t.Errorf("second stop() = %v, want nil", err)
	}
}

func TestStartProcessOutputGoesToLog(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "kwok.log")
	for _, word := range []string{"first", "second"} {
		exited := make(chan *process, 1)
		_, err := startProcess("kwok", "/bin/sh", []string{"-c", `echo "$0-out"; echo "$0-err" >&2`, word}, logPath,
			func(p *process) { exited <- p })
		if err != nil {
			t.Fatalf("startProcess() = %v", err)
		}
		awaitExit(t, exited)
	}
	log := string(readFile(t, logPath))
	// Appended in order: each run's header, then its stdout and stderr.
	// The words are built by the shell, so the headers (which show the
	// arguments) do not contain them.
	last := -1
	for _, want := range []string{"==== ", "/bin/sh", "first-out", "first-err", "==== ", "second-out", "second-err"} {
		i := strings.Index(log[last+1:], want)
		if i < 0 {
			t.Fatalf("log does not contain %q after offset %d:\n%s", want, last+1, log)
		}
		last += 1 + i
	}
}

func TestStartProcessMissingBinary(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "kube-scheduler")
	_, err := startProcess("kube-scheduler", bin, nil, filepath.Join(t.TempDir(), "log"), func(*process) {
		t.Error("onExit called for a process that never started")
	})
	if err == nil || !strings.Contains(err.Error(), "starting kube-scheduler") {
		t.Errorf("startProcess() = %v, want an error saying it was starting kube-scheduler", err)
	}
}
