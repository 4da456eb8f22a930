package localcluster

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
	"time"
)

// stopGrace is how long a component gets to exit after SIGTERM before it is
// killed.
const stopGrace = 15 * time.Second

// process is one running component.
type process struct {
	name    string
	logPath string
	cmd     *exec.Cmd
	exited  chan struct{} // closed once the process has been reaped
	err     error         // how it exited; read after exited is closed
	// unexpected is set, after err, when it exited without being stopped.
	unexpected atomic.Bool
}

// startProcess starts bin with args, its output appended to logPath. The
// process leads its own process group, so a terminal's Ctrl-C reaches only
// the parent, and it is killed when the parent dies, so it is never
// orphaned. onExit runs once the process has exited, whatever the reason.
func startProcess(name, bin string, args []string, logPath string, onExit func(*process)) (*process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child has its own descriptor
	fmt.Fprintf(logFile, "\n==== %s: %s %v\n", time.Now().Format(time.RFC3339), bin, args)

	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = childAttrs()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &process{name: name, logPath: logPath, cmd: cmd, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
		onExit(p)
	}()
	return p, nil
}

func (p *process) pid() int { return p.cmd.Process.Pid }

func (p *process) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// stop sends SIGTERM to the process group, waits up to stopGrace and then
// kills the group. It returns once the process has been reaped.
func (p *process) stop() error {
	if !p.running() {
		return nil
	}
	_ = syscall.Kill(-p.pid(), syscall.SIGTERM)
	select {
	case <-p.exited:
		return nil
	case <-time.After(stopGrace):
	}
	_ = syscall.Kill(-p.pid(), syscall.SIGKILL)
	<-p.exited
	return fmt.Errorf("%s did not exit within %s of SIGTERM and was killed (log: %s)", p.name, stopGrace, p.logPath)
}

// exitError describes an exit nobody asked for.
func (p *process) exitError() error {
	how := "exited"
	if p.err != nil {
		how = p.err.Error()
		var ee *exec.ExitError
		if errors.As(p.err, &ee) && ee.Exited() {
			how = fmt.Sprintf("exited with code %d", ee.ExitCode())
		}
	}
	return fmt.Errorf("%s stopped unexpectedly (%s); its log is %s", p.name, how, p.logPath)
}
