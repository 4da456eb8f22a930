package cli

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/duration"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"

	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/internal/output"
	"github.com/corral-dev/corral/registration/common"
)

// ClusterSetGetOptions are the options of `corral clusterset get`.
type ClusterSetGetOptions struct {
	Out    io.Writer
	Hub    hubclient.Hub
	Output string
	// Names are the sets to show; none means all.
	Names []string
	// Watch prints again after each change, until stopped.
	Watch bool
}

// NewClusterSetGetOptions returns the defaults.
func NewClusterSetGetOptions(out io.Writer) *ClusterSetGetOptions {
	return &ClusterSetGetOptions{Out: out, Hub: hubclient.New()}
}

// NewCmdClusterSetGet returns `corral clusterset get`.
func NewCmdClusterSetGet(out io.Writer) *cobra.Command {
	o := NewClusterSetGetOptions(out)
	cmd := &cobra.Command{
		Use:   "get [SET...]",
		Short: "List cluster sets: selector, clusters, the namespaces they are bound in, emptiness",
		Long: `List the hub's cluster sets, or the named ones: how each selects its clusters,
how many it holds now, the namespaces it is bound in, and its ClusterSetEmpty
condition as the hub last wrote it. A user who may not list the bindings of
every namespace sees BINDINGS ?. With -w it prints again after each change to
the sets, clusters or bindings, until stopped (Ctrl-C).`,
		Example: "  corral clusterset get\n  corral clusterset get prod -o yaml\n  corral clusterset get -w",
		Args:    cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Names = args
			return hubclient.Run(cmd.Context(), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the hub's flags, --output and --watch.
func (o *ClusterSetGetOptions) AddFlags(fs *pflag.FlagSet) {
	o.Hub.AddFlags(fs)
	output.AddFlag(fs, &o.Output)
	hubclient.AddWatchFlag(fs, &o.Watch)
}

// Validate checks the output format.
func (o *ClusterSetGetOptions) Validate() error { return output.Validate(o.Output) }

// Complete builds the hub clients.
func (o *ClusterSetGetOptions) Complete() error { return o.Hub.Complete() }

// ClusterSetRow is what the table shows of one set.
type ClusterSetRow struct {
	Set *clusterv1beta2.ManagedClusterSet
	// Clusters is how many clusters it holds; -1 when its selector is
	// invalid.
	Clusters int
	// Namespaces are where it is bound.
	Namespaces []string
	// BindingsHidden says the bindings could not be read: Namespaces is
	// not known.
	BindingsHidden bool
}

// Run lists the sets, or the named ones, and prints them; with Watch,
// again after each change to the sets, clusters or bindings.
func (o *ClusterSetGetOptions) Run(ctx context.Context) error {
	if !o.Watch {
		return o.show(ctx)
	}
	return o.Hub.Watch(ctx, o.show, hubclient.Watched{List: &clusterv1beta2.ManagedClusterSetList{}},
		hubclient.Watched{List: &clusterv1.ManagedClusterList{}}, hubclient.Watched{List: &clusterv1beta2.ManagedClusterSetBindingList{}, Optional: true})
}

// show lists the sets, or the named ones, and prints them.
func (o *ClusterSetGetOptions) show(ctx context.Context) error {
	list := &clusterv1beta2.ManagedClusterSetList{}
	if err := o.Hub.Client.List(ctx, list); err != nil {
		return fmt.Errorf("listing cluster sets: %w", err)
	}
	items, err := pick(list.Items, func(s *clusterv1beta2.ManagedClusterSet) string { return s.Name }, o.Names, "cluster set")
	if err != nil {
		return err
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Name < items[j].Name })
	if o.Output != "" {
		return output.Objects(o.Out, o.Output, clusterv1beta2.GroupVersion.String(), "ManagedClusterSet", items, len(o.Names) == 1)
	}
	clusters := &clusterv1.ManagedClusterList{}
	if err := o.Hub.Client.List(ctx, clusters); err != nil {
		return fmt.Errorf("listing clusters: %w", err)
	}
	// A team's user may read the sets but not every namespace's bindings:
	// the table then shows the sets, and says what it cannot.
	bindings := &clusterv1beta2.ManagedClusterSetBindingList{}
	err = o.Hub.Client.List(ctx, bindings)
	hidden := apierrors.IsForbidden(err)
	if err != nil && !hidden {
		return fmt.Errorf("listing cluster set bindings: %w", err)
	}
	rows := make([]ClusterSetRow, 0, len(items))
	for i := range items {
		set := &items[i]
		row := ClusterSetRow{Set: set, Clusters: countIn(set, clusters.Items), BindingsHidden: hidden}
		if !hidden {
			row.Namespaces = bindingsOf(set.Name, bindings.Items)
		}
		rows = append(rows, row)
	}
	PrintClusterSetTable(o.Out, rows, time.Now())
	if hidden {
		fmt.Fprintln(o.Out, "BINDINGS ?: you may not list ManagedClusterSetBindings in every namespace (kubectl get managedclustersetbindings -n NAMESPACE shows one namespace's)")
	}
	return nil
}

// countIn counts the clusters set holds, or -1 if its selector is invalid.
func countIn(set *clusterv1beta2.ManagedClusterSet, clusters []clusterv1.ManagedCluster) int {
	sel, err := common.Selector(set)
	if err != nil {
		return -1
	}
	n := 0
	for i := range clusters {
		if sel.Matches(labels.Set(clusters[i].Labels)) {
			n++
		}
	}
	return n
}

// PrintClusterSetTable prints one row per set.
func PrintClusterSetTable(w io.Writer, rows []ClusterSetRow, now time.Time) {
	if len(rows) == 0 {
		fmt.Fprintln(w, "No cluster sets on this hub.")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTYPE\tSELECTOR\tCLUSTERS\tBINDINGS\tEMPTY\tAGE")
	for _, r := range rows {
		count := strconv.Itoa(r.Clusters)
		if r.Clusters < 0 {
			count = "?"
		}
		bindings := joinOrDash(r.Namespaces)
		if r.BindingsHidden {
			bindings = "?"
		}
		selectorType := string(r.Set.Spec.ClusterSelector.SelectorType)
		if selectorType == "" {
			selectorType = string(clusterv1beta2.ExclusiveClusterSetLabel)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Set.Name, selectorType, describeSelector(r.Set), count,
			bindings, conditionStatus(r.Set.Status.Conditions, clusterv1beta2.ManagedClusterSetConditionEmpty),
			duration.HumanDuration(now.Sub(r.Set.CreationTimestamp.Time)))
	}
	_ = tw.Flush()
}
