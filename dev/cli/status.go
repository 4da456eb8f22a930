package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/corral-dev/corral/dev/fleet"
	"github.com/corral-dev/corral/internal/output"
)

// StatusOptions are the options of `corral dev status`.
type StatusOptions struct {
	Streams
	Dir    string
	Output string
}

func newCmdStatus(streams Streams) *cobra.Command {
	o := &StatusOptions{Streams: streams, Dir: fleet.DefaultDir()}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Say what of the local fleet runs and whether it is healthy",
		Long: `Say what of the local fleet runs and whether it is healthy: each cluster's
processes, its API server's readiness and, for managed clusters, its nodes.
Exits non-zero when the fleet is not running or not healthy.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Dir, "dir", o.Dir, "the fleet's directory (env "+fleet.DirEnv+")")
	output.AddFlag(f, &o.Output)
	return cmd
}

// Validate checks the output format.
func (o *StatusOptions) Validate() error {
	if err := output.Validate(o.Output); err != nil {
		return err
	}
	dir, err := filepath.Abs(o.Dir)
	o.Dir = dir
	return err
}

// Run prints the report and fails when the fleet is not healthy.
func (o *StatusOptions) Run(ctx context.Context) error {
	report, err := fleet.Status(ctx, o.Dir)
	if err != nil {
		return fmt.Errorf("%w: start one with 'corral dev up --dir %s'", err, o.Dir)
	}
	if err := output.Print(o.Out, o.Output, report, func(w io.Writer) { printTable(w, report) }); err != nil {
		return err
	}
	switch {
	case report.Abandoned():
		return fmt.Errorf("the fleet in %s is not running: its supervisor (pid %d) died without stopping it; 'corral dev down --dir %s' cleans up, 'corral dev up --dir %s' starts again",
			o.Dir, report.Supervisor, o.Dir, o.Dir)
	case !report.Running:
		return fmt.Errorf("the fleet in %s is not running (%s): start it with 'corral dev up --dir %s'", o.Dir, strings.ToLower(string(report.Phase)), o.Dir)
	case !report.Healthy():
		return fmt.Errorf("the fleet in %s is not healthy", o.Dir)
	}
	return nil
}

func printTable(out io.Writer, r *fleet.Report) {
	switch {
	case r.Running:
		fmt.Fprintf(out, "fleet %s: %s, supervisor pid %d\n", r.Dir, r.Phase, r.Supervisor)
	case r.Abandoned():
		fmt.Fprintf(out, "fleet %s: not running, its supervisor (pid %d) died while %s\n", r.Dir, r.Supervisor, strings.ToLower(string(r.Phase)))
	default:
		fmt.Fprintf(out, "fleet %s: not running (%s)\n", r.Dir, strings.ToLower(string(r.Phase)))
	}
	if r.Message != "" {
		fmt.Fprintf(out, "  %s\n", firstLine(r.Message))
	}
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "CLUSTER\tPROFILE\tHEALTH\tSERVER\tNODES\tKUBECONFIG")
	for _, c := range r.Clusters {
		nodes := "-"
		if c.Nodes > 0 {
			nodes = fmt.Sprintf("%d/%d", c.ReadyNodes, c.Nodes)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", c.Name, c.Profile, c.Health, c.Server, nodes, c.Kubeconfig)
	}
	_ = w.Flush()
	printRealNodes(out, r)
	for _, c := range r.Clusters {
		for _, p := range c.Problems {
			fmt.Fprintf(out, "%s: %s\n", c.Name, p)
		}
	}
}

// printRealNodes lists the real nodes and the pods on each.
func printRealNodes(out io.Writer, r *fleet.Report) {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	header := false
	for _, c := range r.Clusters {
		n := c.RealNode
		if n == nil {
			continue
		}
		if !header {
			fmt.Fprintln(w, "\nREAL NODE\tREADY\tPOD\tSTATUS\tREADY")
			header = true
		}
		if len(n.Pods) == 0 {
			fmt.Fprintf(w, "%s\t%t\t-\t\t\n", n.Name, n.Ready)
		}
		for i, p := range n.Pods {
			name, ready := n.Name, strconv.FormatBool(n.Ready)
			if i > 0 {
				name, ready = "", ""
			}
			fmt.Fprintf(w, "%s\t%s\t%s/%s\t%s\t%s\n", name, ready, p.Namespace, p.Name, p.Phase, p.Ready)
		}
	}
	_ = w.Flush()
}
