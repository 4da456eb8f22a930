package cli

import (
	"io"

	"github.com/spf13/cobra"
)

// NewCmdWork returns `corral work` and its verbs.
func NewCmdWork(out io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "work",
		Short: "Deliver Kubernetes objects to clusters as ManifestWorks, and see how they fare",
		Long: `A ManifestWork in a cluster's namespace on the hub holds Kubernetes objects
the work addon's agent applies to that cluster, reporting back their status.
A ManifestWorkReplicaSet makes one ManifestWork per cluster a Placement
selects, following the placement as its decisions change.`,
	}
	cmd.AddCommand(NewCmdCreate(out), NewCmdApply(out), NewCmdGet(out), NewCmdDelete(out))
	return cmd
}
