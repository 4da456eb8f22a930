package cli

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"

	healthapi "github.com/corral-dev/corral/health/api"
	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/internal/output"
	propertiesapi "github.com/corral-dev/corral/properties/api"
	"github.com/corral-dev/corral/registration/common"
)

// GetClustersOptions are the options of `corral get clusters`.
type GetClustersOptions struct {
	Out    io.Writer
	Hub    hubclient.Hub
	Output string
	Names  []string
	// Watch prints again after each change, until stopped.
	Watch bool
}

// NewGetClustersOptions returns the defaults: all clusters, as a table.
func NewGetClustersOptions(out io.Writer) *GetClustersOptions {
	return &GetClustersOptions{Out: out, Hub: hubclient.New()}
}

// NewCmdGetClusters returns `corral get clusters`.
func NewCmdGetClusters(out io.Writer) *cobra.Command {
	o := NewGetClustersOptions(out)
	cmd := &cobra.Command{
		Use:     "clusters [NAME...]",
		Aliases: []string{"cluster", "managedclusters"},
		Short:   "List the hub's clusters: accepted, joined, available, health, version, nodes, capacity, sets, taints",
		Long: `List the hub's clusters, or the named ones: whether each is accepted, joined
and available, its health, Kubernetes version, nodes and capacity, the sets it
is in and its taints. With -w it prints again after each change to the
clusters or the sets, until stopped (Ctrl-C).`,
		Example: "  corral get clusters\n  corral get clusters cluster1 -o yaml\n  corral get clusters -w",
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
func (o *GetClustersOptions) AddFlags(fs *pflag.FlagSet) {
	o.Hub.AddFlags(fs)
	output.AddFlag(fs, &o.Output)
	hubclient.AddWatchFlag(fs, &o.Watch)
}

// Validate checks the output format and names.
func (o *GetClustersOptions) Validate() (err error) {
	if err := output.Validate(o.Output); err != nil {
		return err
	}
	o.Names, err = common.ClusterNames(o.Names)
	return err
}

// Complete builds the hub clients.
func (o *GetClustersOptions) Complete() error { return o.Hub.Complete() }

// Run lists the clusters, or the named ones, and prints them; with Watch,
// again after each change to the clusters or the sets.
func (o *GetClustersOptions) Run(ctx context.Context) error {
	if !o.Watch {
		return o.show(ctx)
	}
	return o.Hub.Watch(ctx, o.show,
		hubclient.Watched{List: &clusterv1.ManagedClusterList{}}, hubclient.Watched{List: &clusterv1beta2.ManagedClusterSetList{}})
}

// show lists the clusters, or the named ones, and prints them.
func (o *GetClustersOptions) show(ctx context.Context) error {
	list := &clusterv1.ManagedClusterList{}
	if err := o.Hub.Client.List(ctx, list); err != nil {
		return fmt.Errorf("listing clusters: %w", err)
	}
	items, err := pick(list.Items, func(mc *clusterv1.ManagedCluster) string { return mc.Name }, o.Names, "cluster")
	if err != nil {
		return err
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Name < items[j].Name })
	if o.Output != "" {
		return output.Objects(o.Out, o.Output, clusterv1.GroupVersion.String(), "ManagedCluster", items, len(o.Names) == 1)
	}
	PrintClusterTable(o.Out, items, o.sets(ctx, items), time.Now())
	return nil
}

// sets returns the sets each cluster is in. A hub where the sets cannot be
// listed gets each cluster's exclusive set label.
func (o *GetClustersOptions) sets(ctx context.Context, items []clusterv1.ManagedCluster) map[string][]string {
	list := &clusterv1beta2.ManagedClusterSetList{}
	err := o.Hub.Client.List(ctx, list)
	if err == nil {
		return setsByCluster(items, list.Items)
	}
	ctrl.LoggerFrom(ctx).V(1).Info("Cannot list cluster sets; showing the set labels", "err", err)
	out := make(map[string][]string, len(items))
	for _, mc := range items {
		if set := mc.Labels[clusterv1beta2.ClusterSetLabel]; set != "" {
			out[mc.Name] = []string{set}
		}
	}
	return out
}

// setsByCluster returns the sets each cluster is in.
func setsByCluster(clusters []clusterv1.ManagedCluster, sets []clusterv1beta2.ManagedClusterSet) map[string][]string {
	out := make(map[string][]string, len(clusters))
	for i := range clusters {
		out[clusters[i].Name] = common.SetsOf(&clusters[i], sets)
	}
	return out
}

// pick returns the items named, or one error naming
// every name missing; no names means all items. what names the kind.
func pick[T any](items []T, name func(*T) string, names []string, what string) ([]T, error) {
	if len(names) == 0 {
		return items, nil
	}
	byName := make(map[string]T, len(items))
	for i := range items {
		byName[name(&items[i])] = items[i]
	}
	out := make([]T, 0, len(names))
	var missing []string
	for _, n := range names {
		item, ok := byName[n]
		if !ok {
			missing = append(missing, n)
			continue
		}
		out = append(out, item)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("no such %s on the hub: %s", what, strings.Join(missing, ", "))
	}
	return out, nil
}

// PrintClusterTable prints one row per cluster; sets are the sets each
// cluster is in, by cluster name.
func PrintClusterTable(w io.Writer, clusters []clusterv1.ManagedCluster, sets map[string][]string, now time.Time) {
	if len(clusters) == 0 {
		fmt.Fprintln(w, "No clusters on this hub yet.")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tACCEPTED\tJOINED\tAVAILABLE\tHEALTH\tVERSION\tNODES\tCPU\tMEMORY\tAGE\tSETS\tTAINTS")
	for _, mc := range clusters {
		fmt.Fprintf(tw, "%s\t%t\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", mc.Name, mc.Spec.HubAcceptsClient,
			conditionStatus(mc.Status.Conditions, clusterv1.ManagedClusterConditionJoined),
			conditionStatus(mc.Status.Conditions, clusterv1.ManagedClusterConditionAvailable),
			health(&mc), output.OrDash(mc.Status.Version.Kubernetes), output.OrDash(claim(mc.Status.ClusterClaims, propertiesapi.ClaimNodes)),
			quantity(mc.Status.Capacity, clusterv1.ResourceCPU), quantity(mc.Status.Capacity, clusterv1.ResourceMemory),
			duration.HumanDuration(now.Sub(mc.CreationTimestamp.Time)), joinOrDash(sets[mc.Name]), taints(mc.Spec.Taints))
	}
	_ = tw.Flush()
}

// health is the health addon's verdict: Healthy, the reason it is not,
// Unknown, or - when the addon does not run on the cluster; Deleting, for a
// cluster the hub is removing.
func health(mc *clusterv1.ManagedCluster) string {
	c := meta.FindStatusCondition(mc.Status.Conditions, healthapi.ConditionHealthy)
	switch {
	case !mc.DeletionTimestamp.IsZero():
		return "Deleting"
	case c == nil:
		return "-"
	case c.Status == metav1.ConditionTrue:
		return "Healthy"
	case c.Status == metav1.ConditionFalse:
		return c.Reason
	}
	return string(c.Status)
}

func claim(claims []clusterv1.ManagedClusterClaim, name string) string {
	for _, c := range claims {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

// quantity is l's name as a person reads it: memory in the largest
// binary unit it holds one of (125347088Ki is 119Gi; 1.5Gi below 10),
// anything else as the cluster reported it.
func quantity(l clusterv1.ResourceList, name clusterv1.ResourceName) string {
	q, ok := l[name]
	if !ok {
		return "-"
	}
	if name != clusterv1.ResourceMemory {
		return q.String()
	}
	b := float64(q.Value())
	unit := ""
	for _, u := range []string{"Ki", "Mi", "Gi", "Ti", "Pi"} {
		if b < 1024 {
			break
		}
		b, unit = b/1024, u
	}
	switch {
	case unit == "":
		return q.String()
	case b < 10 && b != float64(int64(b)):
		return fmt.Sprintf("%.1f%s", b, unit)
	}
	return fmt.Sprintf("%d%s", int64(b), unit)
}

func conditionStatus(conditions []metav1.Condition, typ string) string {
	if c := meta.FindStatusCondition(conditions, typ); c != nil {
		return string(c.Status)
	}
	return "-"
}

func taints(ts []clusterv1.Taint) string {
	if len(ts) == 0 {
		return "-"
	}
	keys := make([]string, 0, len(ts))
	for _, t := range ts {
		keys = append(keys, fmt.Sprintf("%s:%s", strings.TrimPrefix(t.Key, "cluster.open-cluster-management.io/"), t.Effect))
	}
	return strings.Join(keys, ",")
}
