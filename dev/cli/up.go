package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/dev/fleet"
	"github.com/corral-dev/corral/dev/localcluster"
)

// UpOptions are the options of `corral dev up`.
type UpOptions struct {
	Streams
	Dir      string
	Clusters int
	Nodes    int
	Reuse    bool
	// NoSample skips the sample app.
	NoSample bool
	Timeout  time.Duration
	// RealNodes gives every managed cluster a real node (the hub too with NoCorral).
	RealNodes bool
	// NoCorral starts the clusters alone, for `corral init` and `join`.
	NoCorral bool
	// Addons are the built-in addons to enable on every managed cluster;
	// none named means all.
	Addons []string

	binDir    string
	verbosity string // the -v level, passed on to the supervisor
}

// NewUpOptions returns the defaults: two managed clusters in the default dir.
func NewUpOptions(streams Streams) *UpOptions {
	return &UpOptions{Streams: streams, Dir: fleet.DefaultDir(), Clusters: 2,
		Nodes: localcluster.DefaultNodes, RealNodes: true, Timeout: 5 * time.Minute}
}

func newCmdUp(streams Streams) *cobra.Command {
	o := NewUpOptions(streams)
	cmd := &cobra.Command{
		Use:   "up",
		Short: "Start a hub and N managed clusters in the background",
		Long: `Start a hub and N managed clusters in the background, join every managed
cluster to the hub and accept it (as 'corral init --deploy=false', 'hub',
'agent' and 'accept' would by hand), and wait until all are joined and available. Prints
how to reach them; the same lines are in <dir>/HOWTO.txt.

Every built-in addon is enabled on every managed cluster once it is accepted,
or only those --addons names. With the work and placement addons, the fleet
ends with a sample app: a Deployment (default/hello) placed on every managed
cluster by a Placement and delivered by a ManifestWorkReplicaSet, its status
printed per cluster (skip it with --no-sample-app).

Every managed cluster has one real node — a kubelet with its own
containerd, in a network namespace of its own — where pods really run, and
kwok's fake nodes beside it for scale (--nodes), tainted so that only pods
that tolerate kwok.x-k8s.io/node=fake land there. The hub runs no workloads:
it has no node and no workload controllers, so a Deployment on it is only a
template for the propagation addon (with --no-corral it has a real node, for
corral's own pods). Real nodes need root, and
containerd, runc and the CNI plugins (apt-get install containerd runc
containernetworking-plugins); --real-nodes=false runs kwok's nodes only.
The fleet's images (the sample app, the example addons' agents) are loaded
into every real node; 'corral dev load' loads more.

With --no-corral only the clusters start: nothing of corral runs in them,
and 'corral init' and 'corral join' install it (README: "Install on your
clusters").

Data an earlier run left in --dir is removed, or kept with --reuse.`,
		Example: `  corral dev up
  corral dev up --clusters 3 --dir /tmp/fleet
  corral dev up --addons work
  corral dev up --no-corral`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if v := cmd.Flag("v"); v != nil {
				o.verbosity = v.Value.String()
			}
			if err := o.Complete(); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	o.AddFlags(cmd)
	return cmd
}

// AddFlags registers the flags of `dev up`.
func (o *UpOptions) AddFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.Dir, "dir", o.Dir, "directory for the fleet's data, kubeconfigs and logs (env "+fleet.DirEnv+")")
	f.IntVar(&o.Clusters, "clusters", o.Clusters, "number of managed clusters")
	f.IntVar(&o.Nodes, "nodes", o.Nodes, "fake (kwok) nodes per managed cluster")
	f.BoolVar(&o.Reuse, "reuse", o.Reuse, "keep the data an earlier run left in --dir instead of removing it")
	f.DurationVar(&o.Timeout, "timeout", o.Timeout, "how long to wait for the fleet to be ready")
	f.BoolVar(&o.RealNodes, "real-nodes", o.RealNodes, "give every managed cluster a real node (kubelet, containerd) where pods really run; the hub gets one only with --no-corral")
	f.BoolVar(&o.NoSample, "no-sample-app", o.NoSample, "do not deploy the sample app (a Deployment placed on every managed cluster)")
	f.BoolVar(&o.NoCorral, "no-corral", o.NoCorral, "start the clusters alone: no hub, agents, addons or sample app run, for installing corral into them with 'corral init' and 'corral join'")
	f.StringSliceVar(&o.Addons, "addons", o.Addons, "built-in addons to enable on every managed cluster, comma-separated, or none (default: all: "+
		strings.Join(addons.Names(builtinAddons()), ",")+")")
}

// Complete makes the directory absolute.
func (o *UpOptions) Complete() error {
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return err
	}
	o.Dir = dir
	return nil
}

// Validate checks the flags and that the fleet can start here.
func (o *UpOptions) Validate() error {
	if err := (fleet.Options{Dir: o.Dir, Clusters: o.Clusters}).Validate(); err != nil {
		return err
	}
	if _, err := fleet.SelectAddons(builtinAddons(), o.Addons); err != nil {
		return err
	}
	if o.NoCorral && len(o.Addons) > 0 {
		return fmt.Errorf("--addons enables addons, and --no-corral runs none: drop one of them")
	}
	if o.Nodes < 1 {
		return fmt.Errorf("--nodes is %d: a managed cluster needs at least 1 node", o.Nodes)
	}
	if o.Timeout <= 0 {
		return fmt.Errorf("--timeout is %s: give the fleet a positive time to get ready, such as 5m", o.Timeout)
	}
	if localcluster.Locked(o.Dir) {
		return fmt.Errorf("a fleet is already running in %s (pid %s): use it, stop it with 'corral dev down --dir %s', or pick another --dir",
			o.Dir, localcluster.LockHolder(o.Dir), o.Dir)
	}
	if err := fleet.CheckDirUsable(o.Dir); err != nil {
		return err
	}
	binDir, err := localcluster.FindBinDir()
	if err != nil {
		return err
	}
	o.binDir = binDir
	if o.RealNodes {
		return fleet.CheckRealNodes(binDir)
	}
	return nil
}

// Run starts the supervisor in the background, relays its progress and
// returns once the fleet runs. Interrupted, it stops what had started.
func (o *UpOptions) Run(ctx context.Context) error {
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return err
	}
	// A supervisor that died may have left components running on the data
	// about to be removed; and its record must not be mistaken for this
	// run's.
	if old, err := fleet.ReadState(o.Dir); err == nil {
		if err := fleet.KillLeftovers(ctx, old, o.Out); err != nil {
			return err
		}
	}
	if err := os.Remove(filepath.Join(o.Dir, "fleet.json")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	logPath := filepath.Join(o.Dir, fleet.LogFile)
	logFile, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logFile.Close()
	supervisor, err := o.startSupervisor(logFile)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "starting a hub and %s in %s (supervisor pid %d)\n", fleet.ManagedClusters(o.Clusters), o.Dir, supervisor.Process.Pid)

	exited := make(chan error, 1)
	go func() { exited <- supervisor.Wait() }()
	err = o.follow(ctx, logPath, supervisor.Process.Pid, exited)
	if err != nil {
		_ = supervisor.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(time.Minute):
			_ = supervisor.Process.Kill()
		}
		return err
	}
	state, err := fleet.ReadState(o.Dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "\nThe fleet is up. To use it:\n\n%s", fleet.Howto(state))
	return nil
}

func (o *UpOptions) startSupervisor(log *os.File) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	args := []string{"dev", "serve", "--dir", o.Dir, "--clusters", strconv.Itoa(o.Clusters),
		"--nodes", strconv.Itoa(o.Nodes), "--bin-dir", o.binDir}
	if o.Reuse {
		args = append(args, "--reuse")
	}
	if o.NoSample {
		args = append(args, "--no-sample-app")
	}
	if o.RealNodes {
		args = append(args, "--real-nodes")
	}
	if o.NoCorral {
		args = append(args, "--no-corral")
	}
	if len(o.Addons) > 0 {
		args = append(args, "--addons", strings.Join(o.Addons, ","))
	}
	if o.verbosity != "" && o.verbosity != "0" {
		args = append(args, "--v="+o.verbosity)
	}
	cmd := exec.Command(exe, args...)
	cmd.Stdout, cmd.Stderr = log, log
	// Its own session: the fleet outlives this command and the terminal.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the fleet supervisor: %w", err)
	}
	return cmd, nil
}

// follow copies the supervisor's log to Out until its record says Running,
// it fails, it exits, the timeout passes or ctx ends.
func (o *UpOptions) follow(ctx context.Context, logPath string, pid int, exited <-chan error) error {
	log, err := os.Open(logPath)
	if err != nil {
		return err
	}
	defer log.Close()
	deadline := time.After(o.Timeout)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		_, _ = io.Copy(o.Out, log)
		if state, err := fleet.ReadState(o.Dir); err == nil && state.Supervisor == pid {
			switch state.Phase {
			case fleet.PhaseRunning:
				return nil
			case fleet.PhaseFailed:
				return fmt.Errorf("the fleet did not start: %s (logs: %s)", firstLine(state.Message), logPath)
			}
		}
		select {
		case err := <-exited:
			_, _ = io.Copy(o.Out, log)
			return fmt.Errorf("the fleet supervisor exited (%w) before the fleet was ready; see %s", err, logPath)
		case <-deadline:
			return fmt.Errorf("the fleet was not ready within %s (--timeout); see %s", o.Timeout, logPath)
		case <-ctx.Done():
			return fmt.Errorf("interrupted: stopping what had started")
		case <-tick.C:
		}
	}
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}
