package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/wait"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/confirm"
	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/internal/output"
	"github.com/corral-dev/corral/placement/hub/scheduler"
)

// CreateOptions are the options of `corral placement create`.
type CreateOptions struct {
	Out       io.Writer
	Hub       hubclient.Hub
	Confirm   confirm.Options
	Name      string
	Namespace string

	ClusterSets   []string
	LabelSelector string
	ClaimSelector string
	// NumberOfClusters is how many to select; -1 is every one that
	// matches.
	NumberOfClusters int32
	Prioritizers     []string
	Tolerations      []string
	// Output prints the Placement as json or yaml instead of creating it.
	Output string
	// Wait waits up to Timeout for the first decision; without it, the
	// verb waits briefly (settle) and says when there is none yet.
	Wait    bool
	Timeout time.Duration

	settle    time.Duration
	placement *clusterv1beta1.Placement
}

// NewCreateOptions returns the defaults: every cluster of the sets bound
// to namespace default.
func NewCreateOptions(out io.Writer) *CreateOptions {
	return &CreateOptions{Out: out, Hub: hubclient.New(), Confirm: confirm.NewOptions(), Namespace: "default",
		NumberOfClusters: -1, Timeout: time.Minute, settle: 5 * time.Second}
}

// NewCmdCreate returns `corral placement create`.
func NewCmdCreate(out io.Writer) *cobra.Command {
	o := NewCreateOptions(out)
	cmd := &cobra.Command{
		Use:   "create NAME [-n NAMESPACE]",
		Short: "Create a placement: which clusters of the namespace's cluster sets to choose",
		Long: `Create a Placement in NAMESPACE that chooses among the clusters of the cluster
sets bound to it (all of them, or those --clustersets names), by labels
(--label-selector), by ClusterClaims (--claim-selector), tolerating taints
(--tolerations), scored by built-in prioritizers (--prioritizers, added to
the hub's defaults) and keeping the best --number-of-clusters.

Before writing, it checks that each set named exists and is bound to the
namespace, and says how to bind it when it is not. After creating, it waits
briefly for the scheduler's first decision and says what the placement
selects (--wait waits up to --timeout for it). It refuses a placement that
exists already. With -o yaml it prints the Placement it would create,
a file to start from, and writes nothing; --dry-run shows what it would do.

--tolerations takes KEY=VALUE[:EFFECT][@SECONDS] to tolerate one value and
KEY:Exists[:EFFECT][@SECONDS] any value; EFFECT is NoSelect, PreferNoSelect
or NoSelectIfNew (all effects when left out) and @SECONDS tolerates the
taint for that long after it was added.`,
		Example: `  corral placement create web -n team-a --clustersets prod
  corral placement create web -n team-a --clustersets prod --label-selector 'env=prod,tier in (gold,silver)' --number-of-clusters 2
  corral placement create gpu -n team-a --claim-selector 'gpu.example.com/count in (4,8)' --tolerations 'gpu=true:NoSelect'
  corral placement create web -n team-a --prioritizers 'Steady:1,ResourceAllocatableCPU:2' --wait
  corral placement create web -n team-a --tolerations 'cluster.open-cluster-management.io/unreachable:Exists@300' -o yaml > web.yaml`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return hubclient.Run(cmd.Context(), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the hub's flags and the placement's.
func (o *CreateOptions) AddFlags(fs *pflag.FlagSet) {
	o.Hub.AddFlags(fs)
	o.Confirm.AddDryRunFlag(fs)
	addNamespaceFlag(fs, &o.Namespace, "namespace of the placement")
	fs.StringSliceVar(&o.ClusterSets, "clustersets", o.ClusterSets, "choose only from these cluster sets, each bound to the namespace (default: every bound set)")
	fs.StringVar(&o.LabelSelector, "label-selector", o.LabelSelector, "choose clusters whose labels match, e.g. 'env=prod,tier in (gold,silver)'")
	fs.StringVar(&o.ClaimSelector, "claim-selector", o.ClaimSelector, "choose clusters whose ClusterClaims match, same syntax, e.g. 'region in (eu,us)'")
	fs.Int32Var(&o.NumberOfClusters, "number-of-clusters", o.NumberOfClusters, "how many clusters to choose (-1: every one that matches)")
	fs.StringSliceVar(&o.Prioritizers, "prioritizers", o.Prioritizers, "built-in prioritizers and weights, added to the defaults, e.g. 'Steady:1,ResourceAllocatableCPU:2'")
	fs.StringSliceVar(&o.Tolerations, "tolerations", o.Tolerations, "taints to tolerate, e.g. 'gpu=true:NoSelect,cluster.open-cluster-management.io/unreachable:Exists@300'")
	fs.BoolVar(&o.Wait, "wait", o.Wait, "wait for the scheduler's first decision, up to --timeout")
	fs.DurationVar(&o.Timeout, "timeout", o.Timeout, "how long --wait waits")
	output.AddFlag(fs, &o.Output)
}

// Validate checks the names and parses the flags into the Placement, each
// problem in one line.
func (o *CreateOptions) Validate() error {
	if errs := validation.IsDNS1123Subdomain(o.Name); len(errs) > 0 {
		return fmt.Errorf("placement name %q is not valid: %s", o.Name, errs[0])
	}
	if errs := validation.IsDNS1123Label(o.Namespace); len(errs) > 0 {
		return fmt.Errorf("namespace %q is not valid: %s", o.Namespace, errs[0])
	}
	if o.NumberOfClusters < -1 {
		return fmt.Errorf("--number-of-clusters %d: give how many clusters to choose, or -1 (the default) for every one that matches", o.NumberOfClusters)
	}
	if o.Timeout <= 0 {
		return fmt.Errorf("--timeout %s: give how long --wait waits, e.g. --timeout 2m", o.Timeout)
	}
	p, err := o.build()
	if err != nil {
		return err
	}
	o.placement = p
	return output.Validate(o.Output)
}

// build is the Placement the flags describe.
func (o *CreateOptions) build() (*clusterv1beta1.Placement, error) {
	p := &clusterv1beta1.Placement{
		TypeMeta:   metav1.TypeMeta{APIVersion: clusterv1beta1.GroupVersion.String(), Kind: "Placement"},
		ObjectMeta: metav1.ObjectMeta{Namespace: o.Namespace, Name: o.Name},
	}
	for _, s := range o.ClusterSets {
		if errs := validation.IsDNS1123Subdomain(s); len(errs) > 0 {
			return nil, fmt.Errorf("--clustersets: %q is not a cluster set name: %s", s, errs[0])
		}
	}
	p.Spec.ClusterSets = o.ClusterSets
	if o.NumberOfClusters >= 0 {
		n := o.NumberOfClusters
		p.Spec.NumberOfClusters = &n
	}
	var sel clusterv1beta1.ClusterSelector
	var err error
	if o.LabelSelector != "" {
		if sel.LabelSelector, err = parseLabelSelector(o.LabelSelector); err != nil {
			return nil, err
		}
	}
	if o.ClaimSelector != "" {
		if sel.ClaimSelector, err = parseClaimSelector(o.ClaimSelector); err != nil {
			return nil, err
		}
	}
	if o.LabelSelector != "" || o.ClaimSelector != "" {
		p.Spec.Predicates = []clusterv1beta1.ClusterPredicate{{RequiredClusterSelector: sel}}
	}
	if len(o.Prioritizers) > 0 {
		if p.Spec.PrioritizerPolicy, err = parsePrioritizers(o.Prioritizers); err != nil {
			return nil, err
		}
	}
	if p.Spec.Tolerations, err = parseTolerations(o.Tolerations); err != nil {
		return nil, err
	}
	return p, nil
}

// Complete builds the hub client, unless -o only prints.
func (o *CreateOptions) Complete() error {
	if o.Output != "" {
		return nil
	}
	return o.Hub.Complete()
}

// Run checks the sets, creates the placement and says what it selects.
func (o *CreateOptions) Run(ctx context.Context) error {
	if o.Output != "" {
		return output.Print(o.Out, o.Output, o.placement, nil)
	}
	key := client.ObjectKeyFromObject(o.placement)
	err := o.Hub.Client.Get(ctx, key, &clusterv1beta1.Placement{})
	switch {
	case err == nil:
		return fmt.Errorf("placement %s already exists: see it with corral placement get %s -n %s, or delete it first with corral placement delete %s -n %s",
			key, key.Name, key.Namespace, key.Name, key.Namespace)
	case !apierrors.IsNotFound(err):
		return fmt.Errorf("reading placement %s: %w", key, err)
	}
	notes, err := o.checkSets(ctx)
	if err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintln(o.Out, n)
	}
	ok, err := o.Confirm.Ask(o.Out, confirm.Effect{Verb: "create placement " + key.String(), Changes: []string{"placement " + key.String() + ": created, " + o.describe()}})
	if err != nil || !ok {
		return err
	}
	p := o.placement.DeepCopy()
	if err := o.Hub.Client.Create(ctx, p); err != nil {
		return fmt.Errorf("creating placement %s: %w", key, err)
	}
	return o.report(ctx, p)
}

// describe says what the placement chooses from, for --dry-run.
func (o *CreateOptions) describe() string {
	from := "every cluster set bound to " + o.Namespace
	if len(o.ClusterSets) > 0 {
		from = "cluster sets " + strings.Join(o.ClusterSets, ", ")
	}
	n := "every matching cluster"
	if o.NumberOfClusters >= 0 {
		n = scheduler.Count(int(o.NumberOfClusters), "cluster")
	}
	return "choosing " + n + " from " + from
}

// checkSets says, one line each, which named sets do not exist or are
// not bound to the namespace, and how to fix it. A user who may not read
// the sets gets the binding check only, and a note. With no set named, a
// namespace with no binding gets a note: the placement will select
// nothing until one is bound.
func (o *CreateOptions) checkSets(ctx context.Context) (notes []string, err error) {
	var problems []error
	for _, s := range o.ClusterSets {
		err := o.Hub.Client.Get(ctx, client.ObjectKey{Name: s}, &clusterv1beta2.ManagedClusterSet{})
		switch {
		case apierrors.IsNotFound(err):
			problems = append(problems, fmt.Errorf("cluster set %s does not exist: create it with corral clusterset create %s (corral clusterset get lists them)", s, s))
			continue
		case apierrors.IsForbidden(err):
			if len(notes) == 0 {
				notes = append(notes, "note: not checked that the cluster sets exist; "+hintSets)
			}
		case err != nil:
			return nil, fmt.Errorf("reading cluster set %s: %w", s, err)
		}
		b := &clusterv1beta2.ManagedClusterSetBinding{}
		err = o.Hub.Client.Get(ctx, client.ObjectKey{Namespace: o.Namespace, Name: s}, b)
		switch {
		case apierrors.IsNotFound(err):
			problems = append(problems, fmt.Errorf("cluster set %s is not bound to namespace %s: bind it with corral clusterset bind %s -n %s", s, o.Namespace, s, o.Namespace))
		case err != nil:
			return nil, fmt.Errorf("reading the binding of cluster set %s in namespace %s: %w", s, o.Namespace, err)
		case !meta.IsStatusConditionTrue(b.Status.Conditions, clusterv1beta2.ClusterSetBindingBoundType):
			notes = append(notes, fmt.Sprintf("note: the binding of cluster set %s in namespace %s is not Bound yet: the placement selects none of its clusters until it is", s, o.Namespace))
		}
	}
	if len(problems) > 0 {
		msgs := make([]string, len(problems))
		for i, p := range problems {
			msgs[i] = p.Error()
		}
		return nil, fmt.Errorf("%s; nothing was created", strings.Join(msgs, "; "))
	}
	if len(o.ClusterSets) == 0 {
		bindings := &clusterv1beta2.ManagedClusterSetBindingList{}
		if err := o.Hub.Client.List(ctx, bindings, client.InNamespace(o.Namespace)); err != nil {
			return nil, fmt.Errorf("listing the cluster set bindings of namespace %s: %w", o.Namespace, err)
		}
		if len(bindings.Items) == 0 {
			notes = append(notes, fmt.Sprintf("note: no cluster set is bound to namespace %[1]s, so the placement selects nothing until one is: corral clusterset bind SET -n %[1]s", o.Namespace))
		}
	}
	return notes, nil
}

// report waits for the scheduler's first decision of p, briefly or up to
// --timeout with --wait, and says what p selects.
func (o *CreateOptions) report(ctx context.Context, p *clusterv1beta1.Placement) error {
	key := client.ObjectKeyFromObject(p)
	limit := o.settle
	if o.Wait {
		limit = o.Timeout
	}
	var satisfied *metav1.Condition
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, limit, true, func(ctx context.Context) (bool, error) {
		got := &clusterv1beta1.Placement{}
		if err := o.Hub.Client.Get(ctx, key, got); err != nil {
			return false, fmt.Errorf("reading placement %s: %w", key, err)
		}
		c := meta.FindStatusCondition(got.Status.Conditions, clusterv1beta1.PlacementConditionSatisfied)
		if c == nil || c.ObservedGeneration < got.Generation {
			return false, nil
		}
		satisfied = c
		return true, nil
	})
	switch {
	case satisfied == nil && o.Wait && wait.Interrupted(err):
		return fmt.Errorf("placement %s created, but the scheduler made no decision within %s: is the placement addon's hub half running? (corral addon list)", key, o.Timeout)
	case satisfied == nil && wait.Interrupted(err):
		fmt.Fprintf(o.Out, "placement %s created: no decision yet; see corral placement get %s -n %s\n", key, key.Name, key.Namespace)
		return nil
	case err != nil:
		return err
	}
	clusters, err := decided(ctx, o.Hub.Client, key.Namespace, key.Name)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "placement %s created: %s\n", key, selects(clusters, satisfied, o.candidates(ctx, key)))
	return nil
}

// selects says what a placement selects: "selects 2 of 3 clusters: a,
// b", or why none; candidates is -1 when not known.
func selects(clusters []string, satisfied *metav1.Condition, candidates int) string {
	of := ""
	if candidates >= 0 {
		of = " of " + scheduler.Count(candidates, "cluster")
	}
	switch {
	case len(clusters) == 0 && of == "":
		return fmt.Sprintf("selects no cluster: %s (%s)", satisfied.Message, satisfied.Reason)
	case len(clusters) == 0:
		return fmt.Sprintf("selects none%s: %s (%s)", of, satisfied.Message, satisfied.Reason)
	case of == "":
		return fmt.Sprintf("selects %s: %s", scheduler.Count(len(clusters), "cluster"), clusterList(clusters, 10))
	}
	return fmt.Sprintf("selects %d%s: %s", len(clusters), of, clusterList(clusters, 10))
}

// candidates counts the clusters of the sets the placement key may
// choose from, or -1 when the user may not read them.
func (o *CreateOptions) candidates(ctx context.Context, key types.NamespacedName) int {
	e, err := (&ExplainOptions{Hub: o.Hub, Placement: key}).Explain(ctx)
	if err != nil || e.Result == nil {
		return -1
	}
	return e.Result.Candidates
}
