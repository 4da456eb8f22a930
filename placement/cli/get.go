package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/apimachinery/pkg/util/validation"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/internal/output"
)

// GetOptions are the options of `corral placement get`.
type GetOptions struct {
	Out io.Writer
	Hub hubclient.Hub
	// Name, when set, shows only that placement.
	Name          string
	Namespace     string
	AllNamespaces bool
	Watch         bool
	Output        string
	// Now is when AGE is counted from; zero means now.
	Now time.Time
}

// NewGetOptions returns the defaults: the placements of namespace default.
func NewGetOptions(out io.Writer) *GetOptions {
	return &GetOptions{Out: out, Hub: hubclient.New(), Namespace: "default"}
}

// NewCmdGet returns `corral placement get`.
func NewCmdGet(out io.Writer) *cobra.Command {
	o := NewGetOptions(out)
	cmd := &cobra.Command{
		Use:   "get [NAME] [-n NAMESPACE | -A]",
		Short: "List placements: how many clusters each selects, which, and whether it is satisfied",
		Long: `List the placements of NAMESPACE (every namespace's with -A), or the one
NAME: how many clusters each selects and which (from its PlacementDecisions),
its PlacementSatisfied condition and reason as the scheduler last wrote them,
and its age. It needs only to read placements and placementdecisions in the
namespace, so a team's user sees their own. -w prints the table again after
each change; -o yaml|json prints the Placements themselves. 'corral placement
explain NAMESPACE/NAME' says why each cluster was or was not chosen.`,
		Example: `  corral placement get -n team-a
  corral placement get web -n team-a -o yaml
  corral placement get -A -w`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Name = args[0]
			}
			return hubclient.Run(cmd.Context(), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the hub's flags, -n, -A, -w and -o.
func (o *GetOptions) AddFlags(fs *pflag.FlagSet) {
	o.Hub.AddFlags(fs)
	addNamespaceFlag(fs, &o.Namespace, "namespace of the placements")
	fs.BoolVarP(&o.AllNamespaces, "all-namespaces", "A", o.AllNamespaces, "list the placements of every namespace")
	hubclient.AddWatchFlag(fs, &o.Watch)
	output.AddFlag(fs, &o.Output)
}

// Validate checks the flags, each problem in one line.
func (o *GetOptions) Validate() error {
	switch {
	case o.AllNamespaces && o.Name != "":
		return fmt.Errorf("-A lists every namespace's placements; to show %s, name its namespace with -n instead", o.Name)
	case o.Watch && o.Output != "":
		return fmt.Errorf("-w reprints the table: leave out -o %s, or -w", o.Output)
	}
	if errs := validation.IsDNS1123Label(o.Namespace); !o.AllNamespaces && len(errs) > 0 {
		return fmt.Errorf("namespace %q is not valid: %s", o.Namespace, errs[0])
	}
	return output.Validate(o.Output)
}

// Complete builds the hub client.
func (o *GetOptions) Complete() error { return o.Hub.Complete() }

// PlacementRow is what the table shows of one placement.
type PlacementRow struct {
	Placement *clusterv1beta1.Placement
	// Clusters are those its decisions hold, sorted.
	Clusters []string
}

// Run prints the table once, or again after each change with -w.
func (o *GetOptions) Run(ctx context.Context) error {
	if !o.Watch {
		return o.show(ctx)
	}
	var opts []client.ListOption
	if !o.AllNamespaces {
		opts = append(opts, client.InNamespace(o.Namespace))
	}
	return o.Hub.Watch(ctx, o.show,
		hubclient.Watched{List: &clusterv1beta1.PlacementList{}, Opts: opts},
		hubclient.Watched{List: &clusterv1beta1.PlacementDecisionList{}, Opts: opts})
}

func (o *GetOptions) show(ctx context.Context) error {
	items, err := o.placements(ctx)
	if err != nil {
		return err
	}
	if o.Output != "" {
		return output.Objects(o.Out, o.Output, clusterv1beta1.GroupVersion.String(), "Placement", items, o.Name != "")
	}
	var opts []client.ListOption
	if !o.AllNamespaces {
		opts = append(opts, client.InNamespace(o.Namespace))
	}
	decisions := &clusterv1beta1.PlacementDecisionList{}
	if err := o.Hub.Client.List(ctx, decisions, opts...); err != nil {
		return fmt.Errorf("listing PlacementDecisions: %w", err)
	}
	byPlacement := map[string][]clusterv1beta1.PlacementDecision{}
	for _, d := range decisions.Items {
		k := d.Namespace + "/" + d.Labels[clusterv1beta1.PlacementLabel]
		byPlacement[k] = append(byPlacement[k], d)
	}
	rows := make([]PlacementRow, 0, len(items))
	for i := range items {
		p := &items[i]
		rows = append(rows, PlacementRow{Placement: p, Clusters: decisionClusters(byPlacement[p.Namespace+"/"+p.Name])})
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	o.printTable(rows, now)
	return nil
}

// placements are the placements to show, sorted by namespace and name.
func (o *GetOptions) placements(ctx context.Context) ([]clusterv1beta1.Placement, error) {
	if o.Name != "" {
		p := &clusterv1beta1.Placement{}
		err := o.Hub.Client.Get(ctx, client.ObjectKey{Namespace: o.Namespace, Name: o.Name}, p)
		switch {
		case apierrors.IsNotFound(err):
			return nil, fmt.Errorf("no placement %s in namespace %s: corral placement get -n %s lists them", o.Name, o.Namespace, o.Namespace)
		case err != nil:
			return nil, fmt.Errorf("reading placement %s/%s: %w", o.Namespace, o.Name, err)
		}
		return []clusterv1beta1.Placement{*p}, nil
	}
	list := &clusterv1beta1.PlacementList{}
	var opts []client.ListOption
	if !o.AllNamespaces {
		opts = append(opts, client.InNamespace(o.Namespace))
	}
	if err := o.Hub.Client.List(ctx, list, opts...); err != nil {
		return nil, fmt.Errorf("listing placements: %w", err)
	}
	slices.SortFunc(list.Items, func(a, b clusterv1beta1.Placement) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	return list.Items, nil
}

// maxClusterNames is how many cluster names a row shows before "+N more".
const maxClusterNames = 3

func (o *GetOptions) printTable(rows []PlacementRow, now time.Time) {
	if len(rows) == 0 {
		where := "namespace " + o.Namespace
		if o.AllNamespaces {
			where = "any namespace"
		}
		fmt.Fprintf(o.Out, "No placements in %s.\n", where)
		return
	}
	tw := tabwriter.NewWriter(o.Out, 0, 4, 2, ' ', 0)
	header := "NAME\tSELECTED\tCLUSTERS\tSATISFIED\tAGE"
	if o.AllNamespaces {
		header = "NAMESPACE\t" + header
	}
	fmt.Fprintln(tw, header)
	for _, r := range rows {
		p := r.Placement
		cells := []string{p.Name, fmt.Sprint(len(r.Clusters)), output.OrDash(clusterList(r.Clusters, maxClusterNames)),
			satisfiedCell(p), duration.HumanDuration(now.Sub(p.CreationTimestamp.Time))}
		if o.AllNamespaces {
			cells = append([]string{p.Namespace}, cells...)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	_ = tw.Flush()
}

// satisfiedCell is the PlacementSatisfied condition: status and reason,
// "-" when the scheduler has not written it for this generation yet.
func satisfiedCell(p *clusterv1beta1.Placement) string {
	c := meta.FindStatusCondition(p.Status.Conditions, clusterv1beta1.PlacementConditionSatisfied)
	switch {
	case c == nil:
		return "-"
	case c.ObservedGeneration < p.Generation:
		return string(c.Status) + " " + c.Reason + " (stale)"
	}
	return string(c.Status) + " " + c.Reason
}
