package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/internal/output"
	"github.com/corral-dev/corral/registration/common"
	"github.com/corral-dev/corral/work"
)

// GetOptions are the options of `corral work get`.
type GetOptions struct {
	Out io.Writer
	Hub hubclient.Hub
	// Name, when set, shows only the ManifestWorks of that name.
	Name string
	// Clusters, when set, shows only those clusters' ManifestWorks.
	Clusters []string
	// Namespace, when set, shows the ManifestWorkReplicaSets of that
	// namespace instead of ManifestWorks: what a team that may not read
	// the clusters' namespaces sees of its works. AllNamespaces shows
	// those of every namespace.
	Namespace     string
	AllNamespaces bool
	Output        string
	// Watch prints again after each change.
	Watch bool
}

// NewGetOptions returns the defaults: a table of every ManifestWork.
func NewGetOptions(out io.Writer) *GetOptions { return &GetOptions{Out: out, Hub: hubclient.New()} }

// NewCmdGet returns `corral work get`.
func NewCmdGet(out io.Writer) *cobra.Command {
	o := NewGetOptions(out)
	cmd := &cobra.Command{
		Use:   "get [NAME] [--clusters C1,C2 | -n NAMESPACE | -A] [-w]",
		Short: "Show ManifestWorks per cluster and per resource, or a namespace's ManifestWorkReplicaSets",
		Long: `Show the hub's ManifestWorks (those NAME, or all), on every cluster or on
--clusters only: for each work a line with its own Applied and Available
conditions, then a line per resource it delivers with that resource's
conditions and its status feedback (e.g. readyReplicas), or why it is not
applied or available. A work being deleted says what its deletion waits
for, and a work on a cluster that is not Available, or no longer accepted,
or whose work addon is off, says that what it shows may be out of date.

With -n NAMESPACE it shows that namespace's ManifestWorkReplicaSets instead
(those NAME, or all), a line per placement each follows: its decision
groups available, and how many of its works exist, are applied, available
and degraded, of how many wanted. That needs no access to the clusters'
namespaces, so it is what a team bound to a cluster set sees of its works.
-A shows the sets of every namespace.

With -w it prints again after each change, until Ctrl-C.`,
		Example: `  corral work get
  corral work get web
  corral work get web --clusters cluster1 -o yaml
  corral work get web -w
  corral work get web -n team-a
  corral work get -A`,
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

// AddFlags registers the hub's flags, --clusters, -n, -A, --output and
// -w.
func (o *GetOptions) AddFlags(fs *pflag.FlagSet) {
	o.Hub.AddFlags(fs)
	hubclient.AddClustersFlag(fs, &o.Clusters, "show only these clusters' ManifestWorks")
	fs.StringVarP(&o.Namespace, "namespace", "n", "", "show this namespace's ManifestWorkReplicaSets instead of ManifestWorks")
	fs.BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "show the ManifestWorkReplicaSets of every namespace instead of ManifestWorks")
	output.AddFlag(fs, &o.Output)
	hubclient.AddWatchFlag(fs, &o.Watch)
}

// Validate checks the cluster names, that one view is asked for, and the
// output format.
func (o *GetOptions) Validate() error {
	if len(o.Clusters) > 0 && (o.Namespace != "" || o.AllNamespaces) {
		return fmt.Errorf("--clusters shows clusters' ManifestWorks and -n or -A namespaces' ManifestWorkReplicaSets: give one of them")
	}
	if o.Namespace != "" && o.AllNamespaces {
		return fmt.Errorf("-n shows one namespace's ManifestWorkReplicaSets and -A every namespace's: give one of them")
	}
	var err error
	if o.Clusters, err = common.ClusterNames(o.Clusters); err != nil {
		return err
	}
	return output.Validate(o.Output)
}

// Complete builds the hub client.
func (o *GetOptions) Complete() error { return o.Hub.Complete() }

// Run lists and prints the works, or the namespace's sets; with -w, again
// after each change.
func (o *GetOptions) Run(ctx context.Context) error {
	if !o.Watch {
		return o.show(ctx)
	}
	printed := false
	return o.Hub.Watch(ctx, func(ctx context.Context) error {
		if printed && o.Output == "" {
			fmt.Fprintln(o.Out)
		}
		printed = true
		return o.show(ctx)
	}, o.watched()...)
}

// watched are the kinds what Run prints is read from.
func (o *GetOptions) watched() []hubclient.Watched {
	if o.Namespace != "" || o.AllNamespaces {
		var opts []client.ListOption
		if o.Namespace != "" {
			opts = append(opts, client.InNamespace(o.Namespace))
		}
		return []hubclient.Watched{{List: &workv1alpha1.ManifestWorkReplicaSetList{}, Opts: opts}}
	}
	kinds := []hubclient.Watched{{List: &addonv1alpha1.ManagedClusterAddOnList{}, Optional: true}, {List: &clusterv1.ManagedClusterList{}, Optional: true}}
	if len(o.Clusters) == 0 {
		return append(kinds, hubclient.Watched{List: &workv1.ManifestWorkList{}})
	}
	for _, c := range o.Clusters {
		kinds = append(kinds, hubclient.Watched{List: &workv1.ManifestWorkList{}, Opts: []client.ListOption{client.InNamespace(c)}})
	}
	return kinds
}

// show lists and prints the works, or the namespace's sets, once.
func (o *GetOptions) show(ctx context.Context) error {
	if o.Namespace != "" || o.AllNamespaces {
		return o.runSets(ctx)
	}
	works, err := o.list(ctx)
	if err != nil {
		return err
	}
	if o.Output != "" {
		// One work is asked for by name on one cluster.
		return output.Objects(o.Out, o.Output, workv1.GroupVersion.String(), "ManifestWork", works, o.Name != "" && len(o.Clusters) == 1)
	}
	printTable(o.Out, works, o.readHints(ctx))
	return nil
}

// hints are what `work get` knows of the clusters beside their works, for
// the details of a work's line; the zero value gives none.
type hints struct {
	// workAddon holds the clusters the work addon is enabled on; nil when
	// the addons could not be read.
	workAddon sets.Set[string]
	// stale holds, by cluster, why its agent may not be reporting: its
	// works' status may be out of date.
	stale map[string]string
}

// readHints reads the hints; what cannot be read gives no hint.
func (o *GetOptions) readHints(ctx context.Context) hints {
	var h hints
	addons := &addonv1alpha1.ManagedClusterAddOnList{}
	if err := o.Hub.Client.List(ctx, addons); err != nil {
		ctrl.LoggerFrom(ctx).V(4).Info("Cannot list the addons; no hint on works nobody picked up", "err", err)
	} else {
		h.workAddon = sets.New[string]()
		for _, a := range addons.Items {
			if a.Name == work.AddonName && a.DeletionTimestamp.IsZero() {
				h.workAddon.Insert(a.Namespace)
			}
		}
	}
	clusters := &clusterv1.ManagedClusterList{}
	if err := o.Hub.Client.List(ctx, clusters); err != nil {
		ctrl.LoggerFrom(ctx).V(4).Info("Cannot list the clusters; no hint on stale status", "err", err)
		return h
	}
	h.stale = map[string]string{}
	for _, mc := range clusters.Items {
		// A cluster that never reported is one whose works nobody picked up.
		available := meta.FindStatusCondition(mc.Status.Conditions, clusterv1.ManagedClusterConditionAvailable)
		switch {
		case !mc.Spec.HubAcceptsClient:
			// Its agent may no longer write; the hub leaves its last report.
			h.stale[mc.Name] = "not accepted by the hub (corral accept " + mc.Name + ")"
		case available != nil && available.Status != metav1.ConditionTrue && available.Reason == "":
			h.stale[mc.Name] = "not available"
		case available != nil && available.Status != metav1.ConditionTrue:
			h.stale[mc.Name] = "not available (" + available.Reason + ")"
		}
	}
	return h
}

// agentless says the work addon is known not to be enabled on cluster.
func (h hints) agentless(cluster string) bool {
	return h.workAddon != nil && !h.workAddon.Has(cluster)
}

// list finds the works asked for, sorted by cluster and name; none is an
// error when a name or a cluster was given.
func (o *GetOptions) list(ctx context.Context) ([]workv1.ManifestWork, error) {
	namespaces := []string{""} // every cluster's
	if len(o.Clusters) > 0 {
		namespaces = o.Clusters
	}
	for _, c := range o.Clusters {
		if err := o.Hub.Client.Get(ctx, client.ObjectKey{Name: c}, &clusterv1.ManagedCluster{}); err != nil {
			if apierrors.IsNotFound(err) {
				return nil, fmt.Errorf("no cluster %s on the hub (see corral get clusters)", c)
			}
			return nil, fmt.Errorf("reading cluster %s: %w", c, err)
		}
	}
	var works []workv1.ManifestWork
	for _, ns := range namespaces {
		list := &workv1.ManifestWorkList{}
		if err := o.Hub.Client.List(ctx, list, client.InNamespace(ns)); apierrors.IsForbidden(err) {
			return nil, fmt.Errorf("you may not list ManifestWorks in the clusters' namespaces: a namespace's ManifestWorkReplicaSets show with corral work get -n NAMESPACE (%w)", err)
		} else if err != nil {
			return nil, fmt.Errorf("listing ManifestWorks: %w", err)
		}
		works = append(works, list.Items...)
	}
	works = slices.DeleteFunc(works, func(w workv1.ManifestWork) bool { return o.Name != "" && w.Name != o.Name })
	slices.SortFunc(works, func(a, b workv1.ManifestWork) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	if len(works) == 0 && o.Name != "" {
		where := "on any cluster"
		if len(o.Clusters) > 0 {
			where = "on cluster " + strings.Join(o.Clusters, ", ")
		}
		return nil, fmt.Errorf("no ManifestWork %s %s (see corral work get)", o.Name, where)
	}
	return works, nil
}

// PrintTable prints a line per work and one per resource of it, the
// table of `corral work get`.
func PrintTable(out io.Writer, works []workv1.ManifestWork) { printTable(out, works, hints{}) }

// printTable is PrintTable, with what hints knows of the clusters in the
// works' details.
func printTable(out io.Writer, works []workv1.ManifestWork, h hints) {
	if len(works) == 0 {
		fmt.Fprintln(out, "No ManifestWorks found.")
		return
	}
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	defer func() { _ = w.Flush() }()
	fmt.Fprintln(w, "CLUSTER\tWORK\tRESOURCE\tAPPLIED\tAVAILABLE\tDETAIL")
	for _, mw := range works {
		conds := mw.Status.Conditions
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", mw.Namespace, mw.Name, "(work)",
			status(conds, workv1.WorkApplied), status(conds, workv1.WorkAvailable), workDetail(mw, h))
		for _, m := range mw.Status.ResourceStatus.Manifests {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", mw.Namespace, mw.Name, resourceName(m.ResourceMeta),
				status(m.Conditions, workv1.ManifestApplied), status(m.Conditions, workv1.ManifestAvailable), resourceDetail(m))
		}
	}
}

// status is a condition's status, or "-" before it is reported.
func status(conds []metav1.Condition, t string) string {
	if c := meta.FindStatusCondition(conds, t); c != nil {
		return string(c.Status)
	}
	return "-"
}

// workDetail says where a work comes from and what is wrong with it.
func workDetail(mw workv1.ManifestWork, h hints) string {
	var parts []string
	if set := mw.Labels[workv1alpha1.ManifestWorkReplicaSetControllerNameLabelKey]; set != "" {
		parts = append(parts, "from ManifestWorkReplicaSet "+strings.Replace(set, ".", "/", 1))
	}
	enable := fmt.Sprintf("corral addon enable %s --clusters %s", work.AddonName, mw.Namespace)
	switch {
	case mw.DeletionTimestamp == nil:
	case !slices.Contains(mw.Finalizers, workv1.ManifestWorkFinalizer):
		parts = append(parts, "deleting")
	case h.agentless(mw.Namespace):
		parts = append(parts, fmt.Sprintf("deleting: waiting for a work agent to remove what it applied, but the work addon is not enabled on %s (%s)",
			mw.Namespace, enable))
	default:
		parts = append(parts, fmt.Sprintf("deleting: waiting for the work agent on %s to remove what it applied", mw.Namespace))
	}
	switch {
	case len(mw.Status.Conditions) > 0, mw.DeletionTimestamp != nil:
	case h.agentless(mw.Namespace):
		parts = append(parts, fmt.Sprintf("not picked up: the work addon is not enabled on %s (%s)", mw.Namespace, enable))
	default:
		parts = append(parts, "not picked up by the cluster's work agent yet")
	}
	if len(mw.Status.Conditions) > 0 && mw.DeletionTimestamp == nil && h.agentless(mw.Namespace) {
		parts = append(parts, fmt.Sprintf("work addon off on %s: this status is from before, nothing applies the work now (%s)", mw.Namespace, enable))
	}
	if why, ok := h.stale[mw.Namespace]; ok {
		parts = append(parts, fmt.Sprintf("cluster %s is %s: this status may be out of date", mw.Namespace, why))
	}
	parts = append(parts, problems(mw.Status.Conditions, workv1.WorkApplied, workv1.WorkAvailable, workv1.WorkDegraded)...)
	return strings.Join(parts, "; ")
}

// resourceDetail is a resource's status feedback, and what is wrong, as
// workDetail says it: parts apart by "; ".
func resourceDetail(m workv1.ManifestCondition) string {
	var values, parts []string
	for _, v := range m.StatusFeedbacks.Values {
		values = append(values, v.Name+"="+fieldValue(v.Value))
	}
	if len(values) > 0 {
		parts = append(parts, strings.Join(values, " "))
	}
	parts = append(parts, problems(m.Conditions, workv1.ManifestApplied, workv1.ManifestAvailable, workv1.ManifestDegraded)...)
	return strings.Join(parts, "; ")
}

// problems are the messages of the conditions that are not as they should
// be: good True, and bad (Degraded) not True.
func problems(conds []metav1.Condition, good1, good2, bad string) []string {
	var out []string
	for _, c := range conds {
		wrong := ((c.Type == good1 || c.Type == good2) && c.Status != metav1.ConditionTrue) || (c.Type == bad && c.Status == metav1.ConditionTrue)
		if wrong && c.Message != "" {
			out = append(out, c.Type+": "+c.Message)
		}
	}
	return out
}

func resourceName(r workv1.ManifestResourceMeta) string {
	name := r.Name
	if r.Namespace != "" {
		name = r.Namespace + "/" + name
	}
	kind := r.Kind
	if kind == "" {
		kind = r.Resource
	}
	return kind + " " + name
}

func fieldValue(v workv1.FieldValue) string {
	switch {
	case v.Integer != nil:
		return fmt.Sprint(*v.Integer)
	case v.String != nil:
		return *v.String
	case v.Boolean != nil:
		return fmt.Sprint(*v.Boolean)
	case v.JsonRaw != nil:
		return *v.JsonRaw
	}
	return ""
}
