package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	"github.com/corral-dev/corral/dev/fleet"
	"github.com/corral-dev/corral/dev/localcluster"
)

// ServeOptions are the options of the hidden `corral dev serve`, the fleet
// supervisor that `dev up` starts.
type ServeOptions struct {
	Streams
	fleet.Options
	// AddonNames are --addons; Options.Addons once resolved.
	AddonNames []string
}

func newCmdServe(streams Streams) *cobra.Command {
	o := &ServeOptions{Streams: streams}
	cmd := &cobra.Command{
		Use:    "serve",
		Short:  "Run a fleet in the foreground until SIGTERM (what 'dev up' starts)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			addons, err := fleet.SelectAddons(builtinAddons(), o.AddonNames)
			if err != nil {
				return err
			}
			o.Addons = addons
			return o.Run(cmd.Context())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Dir, "dir", fleet.DefaultDir(), "fleet directory")
	f.IntVar(&o.Clusters, "clusters", 2, "number of managed clusters")
	f.IntVar(&o.Nodes, "nodes", localcluster.DefaultNodes, "fake nodes per managed cluster")
	f.StringVar(&o.BinDir, "bin-dir", "", "directory of the Kubernetes binaries")
	f.BoolVar(&o.Reuse, "reuse", false, "keep data an earlier run left")
	f.StringSliceVar(&o.AddonNames, "addons", nil, "built-in addons to enable (default: all)")
	f.BoolVar(&o.NoSample, "no-sample-app", false, "do not deploy the sample app")
	f.BoolVar(&o.RealNodes, "real-nodes", false, "give every managed cluster a real node (the hub too with --no-corral)")
	f.BoolVar(&o.NoCorral, "no-corral", false, "start the clusters alone")
	return cmd
}

// Run holds the fleet directory and runs the fleet until SIGTERM or SIGINT.
func (o *ServeOptions) Run(ctx context.Context) error {
	lock, err := localcluster.LockDir(o.Dir)
	if err != nil {
		return err
	}
	defer lock.Release()
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	// The fleet's log says what happens, for people; the controllers' and
	// agents' own logs go to a file of their own.
	logFile, err := os.OpenFile(filepath.Join(o.Dir, fleet.ControllersLogFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logFile.Close()
	if err := quietStderr(); err != nil {
		return err
	}
	klog.SetOutput(logFile)
	o.Progress = o.Out
	return fleet.Run(ctx, o.Options)
}

// quietStderr has klog write only to its output: not to stderr, which is
// the fleet's log, not even errors (klog copies those to stderr by
// default), so that `dev up` shows people what happens and the
// controllers' conflicts and retries stay in their own log.
func quietStderr() error {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	for name, value := range map[string]string{"logtostderr": "false", "alsologtostderr": "false", "stderrthreshold": "FATAL"} {
		if err := fs.Set(name, value); err != nil {
			return fmt.Errorf("setting klog's --%s: %w", name, err)
		}
	}
	return nil
}
