package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/corral-dev/corral/dev/simulate"
	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/internal/output"
)

// SimulateOptions are the options of `corral dev simulate`.
type SimulateOptions struct {
	Streams
	Hub hubclient.Hub
	simulate.Options
	// Output is -o: the report as json or yaml instead of text.
	Output string
	// deleteOnly is --delete: delete what earlier runs kept, simulate
	// nothing.
	deleteOnly bool
}

// NewSimulateOptions are the defaults: one lease period of 60 s, the
// clusters accepted by whoever accepts clusters on that hub.
func NewSimulateOptions(streams Streams) *SimulateOptions {
	return &SimulateOptions{Streams: streams, Hub: hubclient.New(), Options: simulate.Options{
		Prefix: simulate.DefaultPrefix, LeasePeriod: simulate.DefaultLeasePeriod, Parallel: simulate.DefaultParallel,
	}}
}

func newCmdSimulate(streams Streams) *cobra.Command {
	o := NewSimulateOptions(streams)
	cmd := &cobra.Command{
		Use:   "simulate --clusters N",
		Short: "Join simulated managed clusters to a hub and measure how it holds them",
		Long: `Join N simulated managed clusters to a hub (the local fleet's, or any hub
you hold an admin kubeconfig of) and measure how the hub holds them. Each
speaks the registration protocol as an agent does, without an API server of
its own: with a bootstrap token it creates its ManagedCluster and a join
request, takes the certificate it is issued once accepted, reports Joined
and Available with that identity, and renews its lease every
--lease-period, its renewals spread over the period as real agents' are.

The clusters are named --prefix and a number and labelled ` + simulate.Label + `,
so that they are never taken for real ones. With --accept the simulator
accepts each as 'corral accept' does; otherwise accept them yourself (or
with the hub's --auto-approve-users).

After its first heartbeat, a cluster's requests go over the admin's
connection, impersonating the cluster's certificate subject (the API server
authorizes them as the certificate's): a simulated cluster costs the
simulator about a kilobyte and no connection, so that ten thousand fit on
one machine. The admin kubeconfig must allow impersonation, as
cluster-admin's does.

It prints progress while clusters join and heartbeat, then a report: joins
per second, the hub's reaction to acceptances, how late lease renewals
were, how many times the hub marked a heartbeating cluster's availability
Unknown (false Unknowns), what a cluster cost the simulator and, with
--hub-pid, the CPU and memory of the hub's processes on this machine (for a
local fleet, 'corral dev status -o json' lists the hub's components' pids).

With --unreachable N, N clusters' agents stop together once --duration is
over; once the hub has marked every one Available Unknown and tainted
unreachable (after its grace period: corral's and OCM's default is five
lease periods), they resume, renewing their leases and reporting
themselves available, and the report says how long the hub took to mark
them gone and back (waiting up to ten lease periods, then two). At the end,
or when interrupted, it deletes the clusters it made and waits for the hub
to clean up after them; --keep leaves them, for 'corral dev simulate
--delete' to remove later.`,
		Example: `  corral dev simulate --clusters 100 --accept --duration 5m
  corral dev simulate --clusters 1000 --accept --duration 30m --lease-period 60s -o json
  corral dev simulate --clusters 1000 --accept --duration 10m --hub-pid 4242 --hub-pid 4250
  corral dev simulate --clusters 1000 --accept --duration 10m --unreachable 100
  corral dev simulate --delete`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return hubclient.Run(cmd.Context(), o) },
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the hub's flags and the simulation's.
func (o *SimulateOptions) AddFlags(fs *pflag.FlagSet) {
	o.Hub.AddFlags(fs)
	fs.IntVar(&o.Clusters, "clusters", 0, "how many simulated clusters join")
	fs.StringVar(&o.Prefix, "prefix", o.Prefix, "the simulated clusters' names start with it")
	fs.DurationVar(&o.LeasePeriod, "lease-period", o.LeasePeriod, "each cluster's lease period (whole seconds), at which it renews its lease")
	fs.DurationVar(&o.Duration, "duration", 0, "how long the clusters heartbeat once all joined (0: join, report, stop)")
	fs.BoolVar(&o.Accept, "accept", false, "accept each cluster as 'corral accept' does")
	fs.IntVar(&o.Parallel, "parallel", o.Parallel, "how many clusters join at once (and renewals in flight at most)")
	fs.IntVar(&o.Unreachable, "unreachable", 0, "after --duration, stop this many clusters' agents at once until the hub marks them all Unknown and tainted; then resume them")
	fs.BoolVar(&o.Keep, "keep", false, "leave the simulated clusters on the hub at the end")
	fs.IntSliceVar(&o.HubPIDs, "hub-pid", nil, "a hub process on this machine (API server, etcd, corral's hub) whose CPU and memory to report; repeat for several")
	fs.BoolVar(&o.deleteOnly, "delete", false, "only delete the simulated clusters a run with --keep left")
	output.AddFlag(fs, &o.Output)
}

// Validate checks the simulation's options, unless only deleting.
func (o *SimulateOptions) Validate() error {
	if err := output.Validate(o.Output); err != nil {
		return err
	}
	if o.deleteOnly {
		if o.Clusters != 0 || o.Keep {
			return fmt.Errorf("--delete only deletes what an earlier run kept: leave out --clusters and --keep")
		}
		return nil
	}
	return o.Options.Validate()
}

// Complete builds the hub clients.
func (o *SimulateOptions) Complete() error { return o.Hub.Complete() }

// Run simulates, and prints the report even when the run failed part way.
func (o *SimulateOptions) Run(ctx context.Context) error {
	if o.deleteOnly {
		if err := simulate.Delete(ctx, o.Hub.Config, o.ErrOut); err != nil {
			return err
		}
		fmt.Fprintln(o.Out, "simulated clusters deleted")
		return nil
	}
	opts := o.Options
	opts.Progress = o.ErrOut
	fmt.Fprintf(o.ErrOut, "joining %d simulated clusters to %s\n", o.Clusters, o.Hub.Config.Host)
	report, err := simulate.Run(ctx, o.Hub.Config, opts)
	if report != nil {
		if perr := output.Print(o.Out, o.Output, report, func(w io.Writer) { printReport(w, report, opts) }); perr != nil {
			return perr
		}
	}
	return err
}

func printReport(w io.Writer, r *simulate.Report, o simulate.Options) {
	fmt.Fprintf(w, "clusters joined:      %d of %d in %.1fs (%.1f/s); first heartbeats retried %d times\n",
		r.Joined, r.Clusters, r.JoinSeconds, r.JoinsPerSecond, r.FirstBeatsRetried)
	if r.Accepted != nil {
		fmt.Fprintf(w, "accepted after:       p50 %s, p99 %s, max %s (HubAcceptedManagedCluster set)\n", seconds(r.Accepted.P50), seconds(r.Accepted.P99), seconds(r.Accepted.Max))
		fmt.Fprintf(w, "ready after:          p50 %s, p99 %s, max %s (first heartbeat allowed)\n", seconds(r.Ready.P50), seconds(r.Ready.P99), seconds(r.Ready.Max))
	}
	if o.Duration > 0 {
		fmt.Fprintf(w, "lease renewals:       %d over %s at a %s period, %d failed\n", r.Renewals, o.Duration, o.LeasePeriod, r.RenewalsFailed)
		fmt.Fprintf(w, "renewals late by:     p50 %s, p99 %s, max %s\n", seconds(r.Late.P50), seconds(r.Late.P99), seconds(r.Late.Max))
		fmt.Fprintf(w, "false Unknown:        %d\n", r.FalseUnknown)
	}
	if out := r.Outage; out != nil {
		fmt.Fprintf(w, "outage:               %d clusters stopped; %d marked gone after p50 %s, max %s; %d back after p50 %s, max %s\n",
			out.Clusters, out.Gone, seconds(out.GoneAfter.P50), seconds(out.GoneAfter.Max), out.Back, seconds(out.BackAfter.P50), seconds(out.BackAfter.Max))
	}
	fmt.Fprintf(w, "simulator:            %.1f KB per cluster\n", r.BytesPerCluster/1024)
	for _, p := range r.Processes {
		fmt.Fprintf(w, "%-21s %.1fs CPU joining; %.1f%% of a core heartbeating; RSS %.0f MB, peak %.0f MB (%.1f KB per cluster)\n",
			fmt.Sprintf("%s (%d):", p.Name, p.PID), p.JoinCPUSeconds, p.HeartbeatCPUPercent, p.StartRSSMB, p.PeakRSSMB, p.RSSPerClusterKB)
	}
	if r.Kept {
		fmt.Fprintf(w, "kept on the hub:      label %s (delete them with 'corral dev simulate --delete')\n", simulate.Label)
	}
}

func seconds(s float64) string {
	return (time.Duration(s * float64(time.Second))).Round(time.Millisecond).String()
}
