package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/corral-dev/corral/dev/fleet"
	"github.com/corral-dev/corral/dev/localcluster"
)

// DownOptions are the options of `corral dev down`.
type DownOptions struct {
	Streams
	Dir     string
	Keep    bool
	Timeout time.Duration
}

func newCmdDown(streams Streams) *cobra.Command {
	o := &DownOptions{Streams: streams, Dir: fleet.DefaultDir(), Timeout: 2 * time.Minute}
	cmd := &cobra.Command{
		Use:   "down",
		Short: "Stop the local fleet and remove its data",
		Long: `Stop the local fleet: its supervisor stops every control plane and waits
for each process to exit. Any process of the fleet still alive after that is
killed, by the pid the fleet recorded. The fleet's data is then removed,
unless --keep.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := filepath.Abs(o.Dir)
			if err != nil {
				return err
			}
			o.Dir = dir
			return o.Run(cmd.Context())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Dir, "dir", o.Dir, "the fleet's directory (env "+fleet.DirEnv+")")
	f.BoolVar(&o.Keep, "keep", o.Keep, "keep the data, to start again with 'dev up --reuse'")
	f.DurationVar(&o.Timeout, "timeout", o.Timeout, "how long to wait for a clean stop before killing")
	return cmd
}

// Run stops the supervisor, sweeps leftovers and removes the data.
func (o *DownOptions) Run(ctx context.Context) error {
	state, err := fleet.ReadState(o.Dir)
	if errors.Is(err, fleet.ErrNoFleet) && !localcluster.Locked(o.Dir) {
		fmt.Fprintf(o.Out, "no fleet in %s: nothing to stop\n", o.Dir)
		return nil
	}
	if err != nil {
		return err
	}
	if localcluster.Locked(o.Dir) {
		if err := o.stopSupervisor(ctx); err != nil {
			return err
		}
	}
	if err := fleet.KillLeftovers(ctx, state, o.Out); err != nil {
		return err
	}
	if o.Keep {
		fmt.Fprintf(o.Out, "the fleet is down; its data stays in %s\n", o.Dir)
		return nil
	}
	if err := fleet.RemoveDir(o.Dir); err != nil {
		return fmt.Errorf("the fleet is down but removing %s failed: %w", o.Dir, err)
	}
	fmt.Fprintln(o.Out, "the fleet is down and its data removed")
	return nil
}

// stopSupervisor sends SIGTERM to the process holding the fleet directory
// and waits until it lets go; past the timeout it kills it, and its children
// die with it.
func (o *DownOptions) stopSupervisor(ctx context.Context) error {
	pid, err := strconv.Atoi(localcluster.LockHolder(o.Dir))
	if err != nil {
		return fmt.Errorf("cannot tell which process runs the fleet in %s: %w", o.Dir, err)
	}
	fmt.Fprintf(o.Out, "stopping the fleet in %s (supervisor pid %d)\n", o.Dir, pid)
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return fmt.Errorf("signalling the fleet supervisor (pid %d): %w", pid, err)
	}
	if o.waitReleased(ctx, o.Timeout) == nil {
		return nil
	}
	fmt.Fprintf(o.Out, "the supervisor did not stop within %s; killing it\n", o.Timeout)
	_ = syscall.Kill(pid, syscall.SIGKILL)
	if err := o.waitReleased(ctx, 30*time.Second); err != nil {
		return fmt.Errorf("the fleet supervisor (pid %d) is still running: %w", pid, err)
	}
	return nil
}

// waitReleased waits until no process holds the fleet directory.
func (o *DownOptions) waitReleased(ctx context.Context, timeout time.Duration) error {
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		return !localcluster.Locked(o.Dir), nil
	})
}
