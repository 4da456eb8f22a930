package cli

import (
	"io"

	"github.com/spf13/cobra"
)

// Streams are where a verb writes.
type Streams struct {
	Out, ErrOut io.Writer
}

// NewCmdDev returns `corral dev` and its verbs.
func NewCmdDev(streams Streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dev",
		Short: "Run a local fleet: a hub and managed clusters on this machine",
		Long: `Run a local fleet on this machine: one hub and N managed clusters, each a
real etcd and kube-apiserver (plus kube-controller-manager, and for managed
clusters kube-scheduler and kwok fake nodes), built by 'make tools', and a
real node (a kubelet with its own containerd) where pods really run.

The fleet runs in the background, owned by one supervisor process; its
kubeconfigs, logs and a how-to live in --dir.`,
	}
	cmd.AddCommand(newCmdUp(streams), newCmdDown(streams), newCmdStatus(streams), newCmdLoad(streams), newCmdServe(streams), newCmdSimulate(streams))
	return cmd
}
