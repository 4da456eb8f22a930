package fleet

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/corral-dev/corral/dev/localcluster"
)

// startLeftover starts a process whose command line names a path in dir,
// as a fleet component's does.
func startLeftover(t *testing.T, dir string) *exec.Cmd {
	t.Helper()
	// "; :" keeps sh from exec'ing sleep, so the pid keeps its command line.
	cmd := exec.Command("/bin/sh", "-c", "sleep 60; :", filepath.Join(dir, "etcd"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	go func() { _ = cmd.Wait() }() // reap it as soon as it is killed
	// Start returns once the child is exec'ing, but the kernel sets up
	// its command line a moment later: until then it reads empty.
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return ProcessAlive(cmd.Process.Pid, dir), nil
	})
	if err != nil {
		t.Fatalf("the leftover's command line never named %s: %v", dir, err)
	}
	return cmd
}

func TestKillLeftovers(t *testing.T) {
	dir := t.TempDir()
	alive := startLeftover(t, dir)
	other := startLeftover(t, t.TempDir())
	state := &State{Clusters: []ClusterState{{
		Name: "hub", Dir: dir,
		Components: []localcluster.Component{
			{Name: "etcd", PID: alive.Process.Pid},
			{Name: "not ours", PID: other.Process.Pid}, // recorded, but its command line names another dir
			{Name: "gone", PID: 0},
		},
	}}}
	var out bytes.Buffer
	if err := KillLeftovers(context.Background(), state, &out); err != nil {
		t.Fatalf("KillLeftovers() = %v", err)
	}
	if ProcessAlive(alive.Process.Pid, dir) {
		t.Errorf("the leftover (pid %d) is still alive", alive.Process.Pid)
	}
	if err := syscall.Kill(other.Process.Pid, 0); err != nil {
		t.Errorf("a process that is not the fleet's was killed: %v", err)
	}
	if got := out.String(); !strings.Contains(got, "killing etcd of hub") || strings.Count(got, "\n") != 1 {
		t.Errorf("KillLeftovers said %q, want one line about etcd of hub", got)
	}
}
