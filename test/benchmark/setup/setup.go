// Package setup starts what the benchmarks measure against: real control
// planes (etcd and kube-apiserver, built by `make tools`) with admin
// clients whose limits are far above what is measured, the corral binary
// (`make build`) and upstream OCM's (`make ocm-tools`), the processes
// under measure, and log files that outlive a failed benchmark.
package setup

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr"

	"k8s.io/client-go/rest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/corral-dev/corral/dev/localcluster"
	registrationcli "github.com/corral-dev/corral/registration/cli"
)

// ControlPlane is a local cluster started for one benchmark and stopped
// when it ends.
type ControlPlane struct {
	*localcluster.Cluster
	// Admin is the cluster's admin config with client limits far above
	// what is measured, so that the benchmark's own reads and writes
	// never wait on its client.
	Admin *rest.Config
}

// quietControllerRuntime gives controller-runtime's logger (used by
// envtest's CRD install and its clients) somewhere to go: the benchmarks
// print their own figures, and without it controller-runtime prints a
// stack trace saying no logger was set.
var quietControllerRuntime = sync.OnceFunc(func() { ctrllog.SetLogger(logr.Discard()) })

// Start starts a control plane named name.
func Start(ctx context.Context, b testing.TB, name string) *ControlPlane {
	b.Helper()
	quietControllerRuntime()
	c, err := localcluster.Start(ctx, localcluster.Options{Name: name, Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Stop() })
	admin := rest.CopyConfig(c.Config)
	admin.QPS, admin.Burst = 5000, 10000
	return &ControlPlane{Cluster: c, Admin: admin}
}

// StartHub starts a control plane named hub and prepares it as
// `corral init` does.
func StartHub(ctx context.Context, b testing.TB) *ControlPlane {
	b.Helper()
	c := Start(ctx, b, "hub")
	if err := registrationcli.InstallHub(ctx, c.Config, io.Discard); err != nil {
		b.Fatal(err)
	}
	return c
}

// PID is the pid of one of the control plane's processes (etcd,
// kube-apiserver, kube-controller-manager…); 0 when it has none.
func (c *ControlPlane) PID(name string) int {
	for _, comp := range c.Components() {
		if comp.Name == name {
			return comp.PID
		}
	}
	return 0
}

// Corral is the path of the corral binary `make build` made.
func Corral(b testing.TB) string {
	b.Helper()
	return Binary(b, "corral", "make build")
}

// Binary is the path of the binary name in bin/, which the make target
// target builds.
func Binary(b testing.TB, name, target string) string {
	b.Helper()
	binDir, err := localcluster.FindBinDir()
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(binDir, name)
	if _, err := os.Stat(path); err != nil {
		b.Fatalf("%s is missing: run %s", path, target)
	}
	return path
}

// LogFile creates a log file named name in a directory of its own
// (corral-bench-<what>-…) that is removed when the benchmark passes,
// unless CORRAL_BENCH_KEEP_LOG is set, and kept to be read when it fails.
// The file is closed when the benchmark ends.
func LogFile(b testing.TB, what, name string) *os.File {
	b.Helper()
	dir, err := os.MkdirTemp("", "corral-bench-"+what+"-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if !b.Failed() && os.Getenv("CORRAL_BENCH_KEEP_LOG") == "" {
			_ = os.RemoveAll(dir)
		}
	})
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = f.Close() })
	return f
}

// Process is a binary under measure, running until the benchmark ends.
type Process struct {
	*exec.Cmd
	// Log is the path of its output (LogFile).
	Log string

	exited chan struct{}
	err    error
}

// StartProcess runs binary with args, its output in LogFile(b, what,
// logName), until the benchmark ends: it is then killed. It gets the
// benchmark's environment and $CORRAL_BENCH_ENV's VAR=value pairs (split
// at spaces), to measure it under other Go runtime settings
// (CORRAL_BENCH_ENV="GOGC=50"); the API servers and etcd do not.
func StartProcess(b testing.TB, what, logName, binary string, args ...string) *Process {
	b.Helper()
	logFile := LogFile(b, what, logName)
	p := &Process{Cmd: exec.Command(binary, args...), Log: logFile.Name(), exited: make(chan struct{})}
	p.Stdout, p.Stderr = logFile, logFile
	if extra := strings.Fields(os.Getenv("CORRAL_BENCH_ENV")); len(extra) > 0 {
		p.Env = append(os.Environ(), extra...)
		b.Logf("%s runs with %s", what, strings.Join(extra, " "))
	}
	if err := p.Start(); err != nil {
		b.Fatal(err)
	}
	go func() { p.err = p.Wait(); close(p.exited) }()
	b.Cleanup(func() { _ = p.Process.Kill(); <-p.exited })
	return p
}

// PID is the process's pid.
func (p *Process) PID() int { return p.Process.Pid }

// Exited is closed once the process has ended; Err then says how.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Err is how the process ended, once Exited is closed.
func (p *Process) Err() error { return p.err }

// FreeAddr is a loopback address (127.0.0.1:port) that was free a moment
// ago.
func FreeAddr(b testing.TB) string {
	b.Helper()
	port, err := localcluster.FreePort()
	if err != nil {
		b.Fatal(err)
	}
	return fmt.Sprintf("127.0.0.1:%d", port)
}

// Limits are client limits an upstream OCM binary is run with: Name
// ("default" or "lifted") and the flags that set them.
type Limits struct {
	Name string
	Args []string
}

// UpstreamLimits are the two ways the issues measure OCM's binaries: with
// their default client limits, and with them lifted (qps 1000, burst 2000)
// on every client whose flag prefix is given ("kube-api", "hub-kube-api").
func UpstreamLimits(prefixes ...string) []Limits {
	lifted := Limits{Name: "lifted"}
	for _, p := range prefixes {
		lifted.Args = append(lifted.Args, "--"+p+"-qps=1000", "--"+p+"-burst=2000")
	}
	return []Limits{{Name: "default"}, lifted}
}
