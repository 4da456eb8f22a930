package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/internal/output"
	"github.com/corral-dev/corral/placement/hub/scheduler"
)

// ExplainOptions are the options of `corral placement explain`.
type ExplainOptions struct {
	Out io.Writer
	Hub hubclient.Hub
	// Arg is the NAMESPACE/NAME argument, which Validate parses into
	// Placement.
	Arg       string
	Placement types.NamespacedName
	// WhatIf evaluates the Placement in File instead of the hub's.
	WhatIf bool
	File   string
	Output string
	// Now is when tolerations and scores are judged; zero means now.
	Now time.Time

	edited *clusterv1beta1.Placement
}

// NewExplainOptions returns the defaults: a table of the hub's placement.
func NewExplainOptions(out io.Writer) *ExplainOptions {
	return &ExplainOptions{Out: out, Hub: hubclient.New()}
}

// NewCmdExplain returns `corral placement explain`.
func NewCmdExplain(out io.Writer) *cobra.Command {
	o := NewExplainOptions(out)
	cmd := &cobra.Command{
		Use:   "explain NAMESPACE/NAME",
		Short: "Show why a placement selects the clusters it does",
		Long: `Run the placement scheduler over what the hub holds now and show, for every
cluster, whether it passed each filter (ClusterSet: in a set bound to the
namespace and named by spec.clusterSets; Predicate: the label, claim and CEL
selectors; TaintToleration) and which one dropped it, what each prioritizer
scored it, its total and rank, and whether it is selected and in which
decision group.

With --what-if -f FILE it evaluates the Placement in FILE (an edited copy of
the placement, YAML or JSON, given the defaults the hub's API server would
give it) as if it replaced NAMESPACE/NAME, and shows the clusters it would
gain and lose against the placement's current decisions. Nothing is written
to the hub. It exits non-zero when the edited placement is misconfigured or
names cluster sets not bound to the namespace, and warns when the file names
another placement than NAMESPACE/NAME.

Scores that change with time (Balance counts the decisions of the other
placements as they are now) may differ from those of the last scheduling.
A user who may not read other namespaces' PlacementDecisions or the
AddOnPlacementScores (a team's user, with rights in its own namespace) gets
the explanation from what they may read, and a line naming what was left
out when the placement reads it. One who may not list the clusters or the
cluster sets gets the placement's decisions and conditions as the hub holds
them, and a line saying what to ask for (see docs/teams.md).`,
		Example: `  corral placement explain apps/web
  corral placement explain apps/web -o yaml
  corral placement explain apps/web --what-if -f web-placement.yaml`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Arg = args[0]
			return hubclient.Run(cmd.Context(), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the hub's flags, --what-if, -f and --output.
func (o *ExplainOptions) AddFlags(fs *pflag.FlagSet) {
	o.Hub.AddFlags(fs)
	fs.BoolVar(&o.WhatIf, "what-if", false, "evaluate the Placement in -f instead of the hub's, writing nothing")
	fs.StringVarP(&o.File, "filename", "f", "", "the edited Placement, for --what-if (YAML or JSON; - reads stdin)")
	output.AddFlag(fs, &o.Output)
}

// Validate parses the argument into Placement and checks the flags, each
// problem in one line.
func (o *ExplainOptions) Validate() error {
	ns, name, ok := strings.Cut(o.Arg, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return fmt.Errorf("%q is not NAMESPACE/NAME: name the placement with its namespace, e.g. apps/web", o.Arg)
	}
	o.Placement = types.NamespacedName{Namespace: ns, Name: name}
	switch {
	case o.WhatIf && o.File == "":
		return fmt.Errorf("--what-if needs the edited Placement: pass it with -f FILE")
	case !o.WhatIf && o.File != "":
		return fmt.Errorf("-f is only read with --what-if: add --what-if to evaluate %s", o.File)
	}
	return output.Validate(o.Output)
}

// Complete reads the edited placement and builds the hub client.
func (o *ExplainOptions) Complete() error {
	if o.WhatIf { // Validate made sure of -f
		p, err := readPlacement(o.File)
		if err != nil {
			return err
		}
		o.edited = p
	}
	return o.Hub.Complete()
}

func readPlacement(file string) (*clusterv1beta1.Placement, error) {
	var data []byte
	var err error
	if file == "-" {
		data, err = io.ReadAll(os.Stdin)
	} else {
		data, err = os.ReadFile(file)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the edited placement: %w", err)
	}
	if data, err = oneDocument(data); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	p, err := decodeWithDefaults(data)
	if err != nil {
		return nil, fmt.Errorf("%s is not a Placement: %w", file, err)
	}
	if p.Kind != "" && p.Kind != "Placement" {
		return nil, fmt.Errorf("%s holds a %s: --what-if needs a Placement", file, p.Kind)
	}
	return p, nil
}

// oneDocument is the one YAML or JSON document in data, which must be a
// map: an empty file would evaluate an empty Placement, and a second
// document would be left unread.
func oneDocument(data []byte) ([]byte, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs [][]byte
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("not YAML or JSON: %w", err)
		}
		var v any
		if err := yaml.Unmarshal(doc, &v); err != nil {
			return nil, fmt.Errorf("not YAML or JSON: %w", err)
		}
		switch v.(type) {
		case nil:
			continue // empty, or comments only
		case map[string]any:
			docs = append(docs, doc)
		default:
			return nil, fmt.Errorf("it holds a %s, not a Placement (a YAML or JSON map)", output.ValueKind(v))
		}
	}
	switch len(docs) {
	case 0:
		return nil, errors.New("it holds no Placement: give the edited Placement in it")
	case 1:
		return docs[0], nil
	}
	return nil, fmt.Errorf("it holds %d documents: give one Placement", len(docs))
}

// Explanation is what `corral placement explain -o json|yaml` prints.
type Explanation struct {
	Placement string `json:"placement"`
	WhatIf    bool   `json:"whatIf"`
	// SchedulingDisabled: the placement carries the api's
	// PlacementDisableAnnotation, so the hub's scheduler leaves it and
	// its decisions alone; the rest is what it would decide otherwise.
	SchedulingDisabled bool `json:"schedulingDisabled,omitempty"`
	// Current are the clusters the placement's PlacementDecisions hold.
	Current []string `json:"current"`
	// Gained and Lost compare the result's selection with Current.
	// Deleting are the clusters being deleted, which no placement
	// selects (scheduler.Placeable): not in Result.
	Deleting []string `json:"deleting,omitempty"`
	// Unseen is what the user may not read, left out of the scheduling
	// here (with the prioritizers it feeds): scores may differ from the
	// scheduler's.
	Unseen []string `json:"unseen,omitempty"`
	// Limited: the user may not list the clusters or the cluster sets
	// (a team's user), so the scheduler was not run: Result is nil, and
	// Current and Conditions are the hub's, with Hint saying what more
	// the full view needs.
	Limited bool   `json:"limited,omitempty"`
	Hint    string `json:"hint,omitempty"`
	// Warnings are about the edited file, e.g. that it names another
	// placement than the one explained.
	Warnings   []string          `json:"warnings,omitempty"`
	Gained     []string          `json:"gained"`
	Lost       []string          `json:"lost"`
	Conditions []ConditionReport `json:"conditions"`
	Result     *scheduler.Result `json:"result"`
}

// ConditionReport is one condition the result calls for.
type ConditionReport struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// Run reads the hub, schedules and prints.
func (o *ExplainOptions) Run(ctx context.Context) error {
	e, err := o.Explain(ctx)
	if err != nil {
		return err
	}
	if err := output.Print(o.Out, o.Output, e, func(w io.Writer) { printExplanation(w, e) }); err != nil {
		return err
	}
	return o.whatIfProblem(e)
}

// whatIfProblem is, for --what-if, why the edited placement would select
// nothing as written: misconfigured, or naming sets not bound to the
// namespace. A script checking an edit before applying it fails on it.
func (o *ExplainOptions) whatIfProblem(e *Explanation) error {
	if !o.WhatIf || e.Result == nil {
		return nil
	}
	r, ns := e.Result, o.Placement.Namespace
	if r.Misconfigured != nil {
		return fmt.Errorf("the placement in %s is misconfigured: %s; fix it before applying it", o.File, oneLine(r.Misconfigured))
	}
	var unbound []string
	for _, s := range o.edited.Spec.ClusterSets {
		if !slices.Contains(r.BoundSets, s) {
			unbound = append(unbound, s)
		}
	}
	switch {
	case len(unbound) > 0:
		return fmt.Errorf("the placement in %s names cluster sets not bound to namespace %s: %s; bind each with corral clusterset bind SET -n %s",
			o.File, ns, strings.Join(unbound, ", "), ns)
	case len(r.BoundSets) == 0:
		return fmt.Errorf("no cluster set is bound to namespace %s, so the placement in %s selects nothing: bind one with corral clusterset bind SET -n %s", ns, o.File, ns)
	}
	return nil
}

// Explain runs the scheduler over the hub's objects.
func (o *ExplainOptions) Explain(ctx context.Context) (*Explanation, error) {
	p := &clusterv1beta1.Placement{}
	if err := o.Hub.Client.Get(ctx, o.Placement, p); err != nil {
		switch {
		case apierrors.IsNotFound(err) && o.edited == nil:
			return nil, fmt.Errorf("no Placement %s in namespace %s on the hub (see kubectl get placements -n %s); --what-if -f explains one yet to be created",
				o.Placement.Name, o.Placement.Namespace, o.Placement.Namespace)
		case !apierrors.IsNotFound(err):
			return nil, fmt.Errorf("getting placement %s: %w", o.Placement, err)
		}
		p = nil // a what-if of a placement yet to be created
	}
	var warnings []string
	if o.edited != nil {
		if other := otherPlacement(o.edited, o.Placement); other != "" {
			warnings = append(warnings, fmt.Sprintf("warning: %s names placement %s, not %s; explaining it as %s", o.File, other, o.Placement, o.Placement))
		}
		edited := o.edited.DeepCopy()
		edited.Namespace, edited.Name = o.Placement.Namespace, o.Placement.Name
		if p != nil {
			edited.Generation = p.Generation + 1
		}
		p = edited
	}
	snap, deleting, unseen, err := o.snapshot(ctx, p.Namespace)
	if errors.Is(err, errClustersHidden) {
		if o.edited != nil {
			return nil, fmt.Errorf("--what-if runs the scheduler over the clusters, which you may not list: ask for get/list on managedclusters and managedclustersets (see %s)", teamsDoc)
		}
		return o.limited(ctx, p)
	}
	if err != nil {
		return nil, err
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	r := scheduler.Schedule(p, snap, scheduler.Options{Now: now, Explain: true})
	current := []string(snap.Decided(p.Namespace, p.Name)) // sorted
	selected := sets.New[string]()
	for _, d := range r.Selected {
		selected.Insert(d.Cluster)
	}
	e := &Explanation{Placement: o.Placement.String(), WhatIf: o.WhatIf, SchedulingDisabled: scheduler.SchedulingDisabled(p),
		Current: nonNil(current), Deleting: deleting, Result: r, Warnings: warnings}
	e.Unseen = readUnseen(p, snap, unseen)
	if r.Misconfigured == nil {
		e.Gained = nonNil(sets.List(selected.Difference(sets.New(current...))))
		e.Lost = nonNil(sets.List(sets.New(current...).Difference(selected)))
	}
	for _, c := range r.Conditions(p.Generation) {
		e.Conditions = append(e.Conditions, ConditionReport{Type: c.Type, Status: string(c.Status), Reason: c.Reason, Message: c.Message})
	}
	return e, nil
}

// errClustersHidden: the user may not list the ManagedClusters or the
// ManagedClusterSets, so the scheduler cannot be run for them.
var errClustersHidden = errors.New("the clusters are not readable")

// limited is the explanation from what a team's user may read: the
// placement's decisions and conditions as the hub wrote them, and the
// sets bound to its namespace.
func (o *ExplainOptions) limited(ctx context.Context, p *clusterv1beta1.Placement) (*Explanation, error) {
	current, err := decided(ctx, o.Hub.Client, p.Namespace, p.Name)
	if err != nil {
		return nil, err
	}
	e := &Explanation{Placement: o.Placement.String(), SchedulingDisabled: scheduler.SchedulingDisabled(p),
		Current: current, Limited: true, Hint: hintClusters}
	for _, c := range p.Status.Conditions {
		e.Conditions = append(e.Conditions, ConditionReport{Type: c.Type, Status: string(c.Status), Reason: c.Reason, Message: c.Message})
	}
	return e, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// What a team's user may not read, and what of a placement reads it.
const (
	unseenDecisions = "other namespaces' PlacementDecisions (Balance, Spread)"
	unseenScores    = "AddOnPlacementScores (AddOn prioritizers, CEL scores())"
)

// readUnseen is what of unseen p reads, as compiled against snap (once);
// a placement that does not compile reads nothing.
func readUnseen(p *clusterv1beta1.Placement, snap scheduler.Snapshot, unseen []string) []string {
	if len(unseen) == 0 {
		return nil
	}
	plan, err := scheduler.Compile(p, snap)
	if err != nil {
		return nil
	}
	read := func(u string) bool {
		return u == unseenDecisions && plan.ReadsOtherDecisions() || u == unseenScores && plan.ReadsScores()
	}
	return slices.DeleteFunc(unseen, func(u string) bool { return !read(u) })
}

// snapshot lists what the scheduler reads for the placement in ns, and
// names the clusters being deleted, which it leaves out. Only ns's
// bindings count. A user who may not list every namespace's
// PlacementDecisions or AddOnPlacementScores (a team's, not an admin's)
// gets the explanation from what they may read, and unseen says what was
// left out.
func (o *ExplainOptions) snapshot(ctx context.Context, ns string) (snap *scheduler.MemSnapshot, deleting, unseen []string, err error) {
	clusters := &clusterv1.ManagedClusterList{}
	sets := &clusterv1beta2.ManagedClusterSetList{}
	bindings := &clusterv1beta2.ManagedClusterSetBindingList{}
	for what, list := range map[string]client.ObjectList{"ManagedClusters": clusters, "ManagedClusterSets": sets} {
		err := o.Hub.Client.List(ctx, list)
		if apierrors.IsForbidden(err) {
			return nil, nil, nil, fmt.Errorf("listing %s: %w", what, errors.Join(errClustersHidden, err))
		}
		if err != nil {
			return nil, nil, nil, fmt.Errorf("listing %s: %w", what, err)
		}
	}
	if err := o.Hub.Client.List(ctx, bindings, client.InNamespace(ns)); err != nil {
		return nil, nil, nil, fmt.Errorf("listing ManagedClusterSetBindings in namespace %s: %w", ns, err)
	}
	decisions := &clusterv1beta1.PlacementDecisionList{}
	err = o.Hub.Client.List(ctx, decisions)
	if apierrors.IsForbidden(err) {
		unseen = append(unseen, unseenDecisions)
		err = o.Hub.Client.List(ctx, decisions, client.InNamespace(ns))
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("listing PlacementDecisions: %w", err)
	}
	scores := &clusterv1alpha1.AddOnPlacementScoreList{}
	if err := o.Hub.Client.List(ctx, scores); apierrors.IsForbidden(err) {
		unseen = append(unseen, unseenScores)
	} else if err != nil {
		return nil, nil, nil, fmt.Errorf("listing AddOnPlacementScores: %w", err)
	}
	for i := range clusters.Items {
		if scheduler.Placeable(&clusters.Items[i]) == nil {
			deleting = append(deleting, clusters.Items[i].Name)
		}
	}
	return scheduler.NewSnapshot(clusters.Items, sets.Items, bindings.Items, scores.Items, decisions.Items), deleting, unseen, nil
}

func printExplanation(w io.Writer, e *Explanation) {
	for _, warning := range e.Warnings {
		fmt.Fprintln(w, warning)
	}
	r := e.Result
	what := "Placement " + e.Placement
	if e.WhatIf {
		what += " (what if)"
	}
	if e.Limited {
		printLimited(w, what, e)
		return
	}
	if e.SchedulingDisabled {
		fmt.Fprintf(w, "%s: scheduling is disabled (%s=true): the scheduler leaves it and its decisions alone; it would decide as follows.\n",
			what, clusterv1beta1.PlacementDisableAnnotation)
	}
	if r.Misconfigured != nil {
		fmt.Fprintf(w, "%s is misconfigured: %s\n", what, r.Misconfigured)
		return
	}
	wanted := "all"
	if r.Wanted >= 0 {
		wanted = fmt.Sprint(r.Wanted)
	}
	fmt.Fprintf(w, "%s: %d selected, %s wanted, of %s (%d passed the filters)\n", what, len(r.Selected), wanted, scheduler.Count(r.Candidates, "candidate"), r.Feasible)
	for _, c := range e.Conditions {
		fmt.Fprintf(w, "  %s=%s %s: %s\n", c.Type, c.Status, c.Reason, c.Message)
	}
	fmt.Fprintf(w, "Bound sets: %s; eligible: %s\n", orNone(r.BoundSets), orNone(r.EligibleSets))
	var weights []string
	for _, p := range r.Prioritizers {
		weights = append(weights, fmt.Sprintf("%s×%d", p.Name, p.Weight))
	}
	fmt.Fprintf(w, "Prioritizers: %s\n\n", orNone(weights))

	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	header := []string{"CLUSTER", scheduler.FilterClusterSet, scheduler.FilterPredicate, scheduler.FilterTaintToleration}
	for _, p := range r.Prioritizers {
		header = append(header, p.Name)
	}
	header = append(header, "TOTAL", "RANK", "DECISION")
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, c := range r.Clusters {
		row := []string{c.Name}
		for _, f := range []string{scheduler.FilterClusterSet, scheduler.FilterPredicate, scheduler.FilterTaintToleration} {
			row = append(row, filterCell(c, f))
		}
		for _, p := range r.Prioritizers {
			row = append(row, scoreCell(c, p.Name))
		}
		total, rank := "-", "-"
		if c.DroppedBy == "" {
			total, rank = fmt.Sprint(c.Total), fmt.Sprint(c.Rank)
		}
		row = append(row, total, rank, decisionCell(c))
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	_ = tw.Flush()
	if len(e.Deleting) > 0 {
		fmt.Fprintf(w, "\nNot considered, being deleted: %s\n", strings.Join(e.Deleting, ", "))
	}
	if len(e.Unseen) > 0 {
		fmt.Fprintf(w, "\nNot readable by you, so left out here: %s; the scheduler's filters, scores and choice may differ\n", strings.Join(e.Unseen, ", "))
	}
	if e.WhatIf || len(e.Gained)+len(e.Lost) > 0 {
		fmt.Fprintf(w, "\nAgainst the current decisions (%s): gained %s; lost %s\n", orNone(e.Current), orNone(e.Gained), orNone(e.Lost))
	}
}

// printLimited prints what a team's user may read of a placement.
func printLimited(w io.Writer, what string, e *Explanation) {
	fmt.Fprintf(w, "%s: %s selected by its decisions: %s\n", what, scheduler.Count(len(e.Current), "cluster"), orNone(e.Current))
	for _, c := range e.Conditions {
		fmt.Fprintf(w, "  %s=%s %s: %s\n", c.Type, c.Status, c.Reason, c.Message)
	}
	fmt.Fprintf(w, "\nYou may not list the clusters, so no cluster's reasons are shown: %s\n", e.Hint)
}

// otherPlacement is the namespace/name the edited file gives, when it
// names another placement than want; "" when it names none or want.
func otherPlacement(edited *clusterv1beta1.Placement, want types.NamespacedName) string {
	ns, name := edited.Namespace, edited.Name
	if (ns == "" || ns == want.Namespace) && (name == "" || name == want.Name) {
		return ""
	}
	if ns == "" {
		ns = want.Namespace
	}
	if name == "" {
		name = want.Name
	}
	return ns + "/" + name
}

func filterCell(c scheduler.ClusterResult, filter string) string {
	for _, f := range c.Filters {
		if f.Filter == filter {
			if f.Passed {
				return "pass"
			}
			return "DROP"
		}
	}
	return "-"
}

func scoreCell(c scheduler.ClusterResult, prioritizer string) string {
	for _, s := range c.Scores {
		if s.Prioritizer == prioritizer {
			return fmt.Sprint(s.Score)
		}
	}
	return "-"
}

func decisionCell(c scheduler.ClusterResult) string {
	switch {
	case c.Selected && c.Group != "":
		return "selected, group " + c.Group
	case c.Selected:
		return "selected"
	case c.DroppedBy != "":
		for _, f := range c.Filters {
			if !f.Passed {
				return "dropped: " + f.Detail
			}
		}
		return "dropped by " + c.DroppedBy
	case c.Note != "":
		return "not selected: " + c.Note
	}
	return "not selected"
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(slices.Clone(s), ", ")
}
