package testenv

import (
	"bytes"
	"context"
	"io"

	"github.com/spf13/cobra"
)

// RunCommand runs the command newCmd builds with args, as the corral
// binary runs it for a user, and returns what it printed (out and err
// together) and its error, which the command does not print itself.
func RunCommand(ctx context.Context, newCmd func(out io.Writer) *cobra.Command, args ...string) (string, error) {
	var out bytes.Buffer
	cmd := newCmd(&out)
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.ExecuteContext(ctx)
	return out.String(), err
}
