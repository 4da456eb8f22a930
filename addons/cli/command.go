package cli

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/corral-dev/corral/addons"
)

// NewCmdAddon returns `corral addon` and its verbs; builtins are the
// built-in addons, whose configs enable checks.
func NewCmdAddon(out io.Writer, builtins ...addons.Addon) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "addon",
		Short: "List, enable, disable and inspect addons on the hub's clusters",
		Long: `Addons are everything beyond registration. The hub knows an addon by its
ClusterManagementAddOn; enabling it on a cluster creates a ManagedClusterAddOn
in the cluster's namespace, and the addon's agent then runs on that cluster.`,
	}
	cmd.AddCommand(NewCmdList(out), NewCmdEnable(out, builtins...), NewCmdDisable(out), NewCmdStatus(out))
	return cmd
}
