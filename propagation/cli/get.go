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
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/apimachinery/pkg/util/validation"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/internal/output"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// GetOptions are the options of `corral propagation get`.
type GetOptions struct {
	Out io.Writer
	Hub hubclient.Hub
	// Name, when set, shows that one, with a row per cluster.
	Name          string
	Namespace     string
	AllNamespaces bool
	Watch         bool
	Output        string
	// Clusters, one with Name, shows what that cluster receives.
	Clusters []string
	// Now is when AGE is counted from; zero means now.
	Now time.Time

	target ref
}

// NewGetOptions returns the defaults: the propagations of namespace default.
func NewGetOptions(out io.Writer) *GetOptions {
	return &GetOptions{Out: out, Hub: hubclient.New(), Namespace: "default"}
}

// NewCmdGet returns `corral propagation get`.
func NewCmdGet(out io.Writer) *cobra.Command {
	o := NewGetOptions(out)
	cmd := &cobra.Command{
		Use:   "get [NAME | clusterpropagation/NAME] [-n NAMESPACE | -A] [--cluster CLUSTER]",
		Short: "List propagations: their revision, how many clusters have it, their conditions",
		Long: `List the Propagations of NAMESPACE (with -A, those of every namespace and the
ClusterPropagations), or the one NAME: the newest revision and the one
delivered (REVISION current/delivered), how many clusters the placements
select and how many of them applied the delivered revision, have it
available or failed, the Selected, Scheduled and Available conditions (with
the reason when not True), and the age. With NAME it also shows one row per
cluster, the objects delivered, and each object on each cluster as its
ManifestWork reports it (applied, available, what is wrong). -w prints again after each change; -o
yaml|json prints the objects themselves.

With NAME and --cluster CLUSTER it shows what that cluster receives: the
revision it has, the override rules applied and its shares of divided
replicas; with -o yaml|json, the objects exactly as its ManifestWorks carry
them to it, overrides and shares applied.`,
		Example: `  corral propagation get -n shop
  corral propagation get web -n shop
  corral propagation get cprop/shop-namespace -o yaml
  corral propagation get web -n shop --cluster cluster2 -o yaml
  corral propagation get -A -w`,
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
	addNamespaceFlag(fs, &o.Namespace, "namespace of the propagations")
	fs.BoolVarP(&o.AllNamespaces, "all-namespaces", "A", o.AllNamespaces, "list the propagations of every namespace, and the ClusterPropagations")
	hubclient.AddWatchFlag(fs, &o.Watch)
	output.AddFlag(fs, &o.Output)
	hubclient.AddClustersFlag(fs, &o.Clusters, "with NAME, show what this one cluster receives (-o yaml: the objects as it receives them)")
}

// Validate checks the flags, each problem in one line.
func (o *GetOptions) Validate() error {
	switch {
	case o.AllNamespaces && o.Name != "":
		return fmt.Errorf("-A lists every namespace's propagations; to show %s, name its namespace with -n instead", o.Name)
	case o.Watch && o.Output != "":
		return fmt.Errorf("-w reprints the table: leave out -o %s, or -w", o.Output)
	case len(o.Clusters) > 1:
		return fmt.Errorf("--cluster shows what one cluster receives: give one, not %s", strings.Join(o.Clusters, ","))
	case len(o.Clusters) == 1 && o.Name == "":
		return fmt.Errorf("--cluster %s shows what that cluster receives of one propagation: name it, as in corral propagation get NAME --cluster %s", o.Clusters[0], o.Clusters[0])
	}
	if o.Name != "" {
		var err error
		if o.target, err = parseRef(o.Name, o.Namespace); err != nil {
			return err
		}
	} else if errs := validation.IsDNS1123Label(o.Namespace); !o.AllNamespaces && len(errs) > 0 {
		return fmt.Errorf("namespace %q is not valid: %s", o.Namespace, errs[0])
	}
	return output.Validate(o.Output)
}

// Complete builds the hub client.
func (o *GetOptions) Complete() error { return o.Hub.Complete() }

// Run prints once, or again after each change with -w.
func (o *GetOptions) Run(ctx context.Context) error {
	if !o.Watch {
		return o.show(ctx)
	}
	var watched []hubclient.Watched
	if o.Name == "" || !o.target.Cluster {
		var opts []client.ListOption
		if !o.AllNamespaces {
			opts = append(opts, client.InNamespace(o.Namespace))
		}
		watched = append(watched, hubclient.Watched{List: &v1alpha1.PropagationList{}, Opts: opts})
	}
	if o.AllNamespaces || o.Name != "" && o.target.Cluster {
		watched = append(watched, hubclient.Watched{List: &v1alpha1.ClusterPropagationList{}})
	}
	if o.Name != "" {
		watched = append(watched, hubclient.Watched{List: &workv1.ManifestWorkList{}, Opts: []client.ListOption{o.target.worksSelector()}, Optional: true})
	}
	return o.Hub.Watch(ctx, o.show, watched...)
}

func (o *GetOptions) show(ctx context.Context) error {
	if len(o.Clusters) == 1 {
		return o.showCluster(ctx, o.Clusters[0])
	}
	props, cprops, err := o.list(ctx)
	if err != nil {
		return err
	}
	switch {
	case o.Output != "" && o.Name != "" && o.target.Cluster:
		return output.Objects(o.Out, o.Output, v1alpha1.GroupVersion.String(), "ClusterPropagation", cprops, true)
	case o.Output != "" && len(cprops) == 0:
		return output.Objects(o.Out, o.Output, v1alpha1.GroupVersion.String(), "Propagation", props, o.Name != "")
	case o.Output != "":
		items := make([]any, 0, len(props)+len(cprops))
		for i := range props {
			props[i].APIVersion, props[i].Kind, props[i].ManagedFields = v1alpha1.GroupVersion.String(), "Propagation", nil
			items = append(items, &props[i])
		}
		for i := range cprops {
			cprops[i].APIVersion, cprops[i].Kind, cprops[i].ManagedFields = v1alpha1.GroupVersion.String(), "ClusterPropagation", nil
			items = append(items, &cprops[i])
		}
		return output.Print(o.Out, o.Output, map[string]any{"apiVersion": "v1", "kind": "List", "items": items}, nil)
	}
	rows := make([]prop, 0, len(props)+len(cprops))
	for i := range props {
		rows = append(rows, wrap(&props[i]))
	}
	for i := range cprops {
		rows = append(rows, wrapCluster(&cprops[i]))
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	o.printTable(rows, now)
	if o.Name != "" && len(rows) == 1 {
		printDetail(o.Out, rows[0])
		return printObjects(ctx, o.Out, o.Hub.Client, o.target)
	}
	return nil
}

// list reads what to show: the one named, or the namespace's (every
// namespace's and the ClusterPropagations with -A), sorted.
func (o *GetOptions) list(ctx context.Context) ([]v1alpha1.Propagation, []v1alpha1.ClusterPropagation, error) {
	if o.Name != "" {
		p, err := o.target.get(ctx, o.Hub.Client)
		if err != nil {
			return nil, nil, err
		}
		if o.target.Cluster {
			return nil, []v1alpha1.ClusterPropagation{*p.Obj.(*v1alpha1.ClusterPropagation)}, nil
		}
		return []v1alpha1.Propagation{*p.Obj.(*v1alpha1.Propagation)}, nil, nil
	}
	props := &v1alpha1.PropagationList{}
	var opts []client.ListOption
	if !o.AllNamespaces {
		opts = append(opts, client.InNamespace(o.Namespace))
	}
	if err := o.Hub.Client.List(ctx, props, opts...); err != nil {
		return nil, nil, fmt.Errorf("listing propagations: %w", err)
	}
	slices.SortFunc(props.Items, func(a, b v1alpha1.Propagation) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	if !o.AllNamespaces {
		return props.Items, nil, nil
	}
	cprops := &v1alpha1.ClusterPropagationList{}
	if err := o.Hub.Client.List(ctx, cprops); err != nil {
		return nil, nil, fmt.Errorf("listing clusterpropagations: %w", err)
	}
	slices.SortFunc(cprops.Items, func(a, b v1alpha1.ClusterPropagation) int { return strings.Compare(a.Name, b.Name) })
	return props.Items, cprops.Items, nil
}

func (o *GetOptions) printTable(rows []prop, now time.Time) {
	if len(rows) == 0 {
		where := "namespace " + o.Namespace
		if o.AllNamespaces {
			where = "any namespace, and no clusterpropagations"
		}
		fmt.Fprintf(o.Out, "No propagations in %s.\n", where)
		return
	}
	tw := tabwriter.NewWriter(o.Out, 0, 4, 2, ' ', 0)
	header := "NAME\tREVISION\tCLUSTERS\tSELECTED\tSCHEDULED\tAVAILABLE\tAGE"
	if o.AllNamespaces {
		header = "NAMESPACE\t" + header
	}
	fmt.Fprintln(tw, header)
	for _, p := range rows {
		name := p.Obj.GetName()
		if p.Obj.GetNamespace() == "" {
			name = "cprop/" + name
		}
		cells := []string{name, revisionCell(p), clustersCell(p.Status.Summary),
			conditionCell(p, v1alpha1.ConditionSelected), conditionCell(p, v1alpha1.ConditionScheduled), conditionCell(p, v1alpha1.ConditionAvailable),
			duration.HumanDuration(now.Sub(p.Obj.GetCreationTimestamp().Time))}
		if o.AllNamespaces {
			cells = append([]string{output.OrDash(p.Obj.GetNamespace())}, cells...)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	_ = tw.Flush()
}

// revisionCell is current/delivered, "(pinned)" when spec.revision pins it.
func revisionCell(p prop) string {
	s := fmt.Sprintf("%s/%s", revNumber(p.Status.CurrentRevision), revNumber(p.Status.DeliveredRevision))
	if p.Policy.Revision != nil {
		s += fmt.Sprintf(" (pinned %d)", *p.Policy.Revision)
	}
	return s
}

func revNumber(n int64) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprint(n)
}

// clustersCell is the summary: how many clusters, and of them applied,
// available and failed.
func clustersCell(s v1alpha1.PropagationSummary) string {
	return fmt.Sprintf("%d (%d applied, %d available, %d failed)", s.Total, s.Applied, s.Available, s.Failed)
}

// conditionCell is a condition's status, with its reason when not True;
// "-" when not written yet, "(stale)" when of an older generation.
func conditionCell(p prop, t string) string {
	c := meta.FindStatusCondition(p.Status.Conditions, t)
	return conditionText(c, p.Obj.GetGeneration())
}

func conditionText(c *metav1.Condition, generation int64) string {
	if c == nil {
		return "-"
	}
	s := string(c.Status)
	if c.Status != metav1.ConditionTrue {
		s += " " + c.Reason
	}
	if generation > 0 && c.ObservedGeneration > 0 && c.ObservedGeneration < generation {
		s += " (stale)"
	}
	return s
}

// printDetail prints one propagation's conditions not True, one row per
// cluster, and its delivered objects.
func printDetail(out io.Writer, p prop) {
	for _, c := range p.Status.Conditions {
		if c.Status != metav1.ConditionTrue && c.Message != "" {
			fmt.Fprintf(out, "%s: %s\n", c.Type, c.Message)
		}
	}
	fmt.Fprintf(out, "\nPlacements: %s\n", output.OrDash(strings.Join(p.Placements, ", ")))
	if len(p.Status.Clusters) == 0 {
		fmt.Fprintln(out, "No clusters yet.")
	} else {
		fmt.Fprintln(out)
		tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "CLUSTER\tREVISION\tAPPLIED\tAVAILABLE\tFAILED\tMESSAGE")
		clusters := slices.Clone(p.Status.Clusters)
		slices.SortFunc(clusters, func(a, b v1alpha1.ClusterStatus) int { return strings.Compare(a.Cluster, b.Cluster) })
		for _, c := range clusters {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", c.Cluster, revNumber(c.Revision),
				conditionText(meta.FindStatusCondition(c.Conditions, v1alpha1.ConditionApplied), 0),
				conditionText(meta.FindStatusCondition(c.Conditions, v1alpha1.ConditionAvailable), 0),
				conditionText(meta.FindStatusCondition(c.Conditions, v1alpha1.ConditionFailed), 0),
				output.OrDash(clusterMessage(c)))
		}
		_ = tw.Flush()
	}
	printDrift(out, p.Status.Clusters)
	if len(p.Status.Objects) > 0 {
		fmt.Fprintf(out, "\nObjects of revision %d:\n", p.Status.DeliveredRevision)
		for _, obj := range p.Status.Objects {
			fmt.Fprintf(out, "  %s\n", kindName(obj.Kind, obj.Namespace, obj.Name))
		}
	}
}

// printDrift prints, per cluster, the delivered objects that differ there
// (status.clusters[].drift): why, since when, and each field with the
// hub's value and the cluster's.
func printDrift(out io.Writer, clusters []v1alpha1.ClusterStatus) {
	if !slices.ContainsFunc(clusters, func(c v1alpha1.ClusterStatus) bool { return len(c.Drift) > 0 }) {
		return
	}
	fmt.Fprintln(out, "\nDiffering on the clusters:")
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CLUSTER\tOBJECT\tREASON\tSINCE\tFIELD\tHUB\tCLUSTER")
	for _, c := range clusters {
		for _, d := range c.Drift {
			row := fmt.Sprintf("%s\t%s\t%s\t%s", c.Cluster, kindName(d.Kind, d.Namespace, d.Name), d.Reason, d.Since.UTC().Format(time.RFC3339))
			if len(d.Fields) == 0 {
				fmt.Fprintf(tw, "%s\t-\t-\t-\n", row)
			}
			for _, f := range d.Fields {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", row, f.Path, f.Hub, f.Cluster)
			}
		}
	}
	_ = tw.Flush()
}

// clusterMessage is what a cluster's row says of a problem: the Failed
// condition's message, else the first condition not True.
func clusterMessage(c v1alpha1.ClusterStatus) string {
	if f := meta.FindStatusCondition(c.Conditions, v1alpha1.ConditionFailed); f != nil && f.Status == metav1.ConditionTrue {
		return f.Message
	}
	for _, cond := range c.Conditions {
		if cond.Type != v1alpha1.ConditionFailed && cond.Status != metav1.ConditionTrue {
			return cond.Message
		}
	}
	return ""
}
