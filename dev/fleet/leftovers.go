package fleet

import (
	"context"
	"fmt"
	"io"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/corral-dev/corral/dev/realnode"
)

// leftoverGrace is how long a killed leftover gets to disappear.
const leftoverGrace = 10 * time.Second

// KillLeftovers kills every component recorded in state that is still
// alive — what a supervisor that died without stopping its fleet leaves if
// the parent-death signal did not reach it — and says so on out. Nothing is
// killed that is not provably the recorded process (see ProcessAlive).
func KillLeftovers(ctx context.Context, state *State, out io.Writer) error {
	for _, c := range state.Clusters {
		for _, comp := range c.Components {
			if !ProcessAlive(comp.PID, c.Dir) {
				continue
			}
			fmt.Fprintf(out, "killing %s of %s (pid %d), left running\n", comp.Name, c.Name, comp.PID)
			// Components lead their own process groups; take the group.
			_ = syscall.Kill(-comp.PID, syscall.SIGKILL)
			_ = syscall.Kill(comp.PID, syscall.SIGKILL)
			err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, leftoverGrace, true, func(context.Context) (bool, error) {
				return !ProcessAlive(comp.PID, c.Dir), nil
			})
			if err != nil {
				return fmt.Errorf("%s of %s (pid %d) is still running after SIGKILL", comp.Name, c.Name, comp.PID)
			}
		}
	}
	// The real nodes' shims and containers outlive their containerd, and
	// their cgroups, namespaces and network outlive all of them.
	if err := realnode.RemoveLeftovers(realnode.IDFor(state.Dir)); err != nil {
		return fmt.Errorf("removing what the fleet's real nodes left: %w", err)
	}
	return nil
}
