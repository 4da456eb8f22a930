package cli

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/confirm"
	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// RollbackOptions are the options of `corral propagation rollback`.
type RollbackOptions struct {
	Out       io.Writer
	Hub       hubclient.Hub
	Confirm   confirm.Options
	Name      string
	Namespace string
	// ToRevision pins that revision; 0, or Latest, clears the pin.
	ToRevision int64
	Latest     bool

	target ref
	toSet  bool
}

// NewRollbackOptions returns the defaults: namespace default, asking first.
func NewRollbackOptions(out io.Writer) *RollbackOptions {
	return &RollbackOptions{Out: out, Hub: hubclient.New(), Confirm: confirm.NewOptions(), Namespace: "default", ToRevision: -1}
}

// NewCmdRollback returns `corral propagation rollback`.
func NewCmdRollback(out io.Writer) *cobra.Command {
	o := NewRollbackOptions(out)
	cmd := &cobra.Command{
		Use:   "rollback NAME (--to-revision N | --latest) [-n NAMESPACE]",
		Short: "Deliver an earlier revision of a propagation, or the newest again",
		Long: `Pin the Propagation NAME (or clusterpropagation/NAME) to its revision N: the
clusters are given that revision's objects instead of the newest, rolled
out as its placements say. --to-revision 0 or --latest clears the pin, and
the newest revision is delivered again. The revision must exist ('corral
propagation history NAME' lists them).

It changes what runs on the clusters: it shows which clusters and objects
first, and asks on a terminal; elsewhere it needs --yes. --dry-run shows it
and changes nothing.`,
		Example: `  corral propagation history web -n shop
  corral propagation rollback web -n shop --to-revision 3
  corral propagation rollback web -n shop --latest --yes`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return hubclient.Run(cmd.Context(), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the hub's flags, -n, --to-revision, --latest, --yes
// and --dry-run.
func (o *RollbackOptions) AddFlags(fs *pflag.FlagSet) {
	o.Hub.AddFlags(fs)
	o.Confirm.AddFlags(fs)
	addNamespaceFlag(fs, &o.Namespace, "namespace of the propagation")
	fs.Int64Var(&o.ToRevision, "to-revision", o.ToRevision, "the revision to deliver; 0 delivers the newest again")
	// The default, -1, only means "not given": --help shows none (pflag
	// prints no default it takes for a zero value).
	fs.Lookup("to-revision").DefValue = "0"
	fs.BoolVar(&o.Latest, "latest", o.Latest, "clear the pin: deliver the newest revision again (as --to-revision 0)")
}

// Validate checks the name and flags, each problem in one line.
func (o *RollbackOptions) Validate() error {
	var err error
	if o.target, err = parseRef(o.Name, o.Namespace); err != nil {
		return err
	}
	if o.ToRevision >= 0 {
		o.toSet = true
	}
	switch {
	case o.Latest && o.toSet && o.ToRevision != 0:
		return fmt.Errorf("give --to-revision %d or --latest, not both", o.ToRevision)
	case o.Latest:
		o.ToRevision = 0
	case !o.toSet:
		return fmt.Errorf("say which revision: --to-revision N (corral propagation history %s lists them), or --latest for the newest", o.target.arg())
	case o.ToRevision < 0:
		return fmt.Errorf("--to-revision %d: give a revision number from 1 (corral propagation history %s lists them), or 0 for the newest", o.ToRevision, o.target.arg())
	}
	return nil
}

// Complete builds the hub client.
func (o *RollbackOptions) Complete() error { return o.Hub.Complete() }

// Run checks the revision, shows the effect, asks, and sets the pin.
func (o *RollbackOptions) Run(ctx context.Context) error {
	p, err := o.target.get(ctx, o.Hub.Client)
	if err != nil {
		return err
	}
	revs, err := o.target.revisions(ctx, o.Hub.Client)
	if err != nil {
		return err
	}
	var pin *int64
	to := p.Status.CurrentRevision
	if o.ToRevision > 0 {
		if find(revs, o.ToRevision) == nil {
			return fmt.Errorf("%s has no revision %d: it has %s (corral propagation history %s); nothing was changed",
				o.target, o.ToRevision, numbers(revs), o.target.arg())
		}
		pin, to = &o.ToRevision, o.ToRevision
	}
	if equalPin(p.Policy.Revision, pin) {
		fmt.Fprintf(o.Out, "%s already delivers %s: nothing was changed\n", o.target, pinText(pin))
		return nil
	}
	ok, err := o.Confirm.Ask(o.Out, rollbackEffect(o.target, p, revs, pin, to))
	if err != nil || !ok {
		return err
	}
	before := p.Obj.DeepCopyObject().(client.Object)
	p.Policy.Revision = pin
	if err := o.Hub.Client.Patch(ctx, p.Obj, client.MergeFrom(before)); err != nil {
		return fmt.Errorf("setting the revision of %s: %w", o.target, err)
	}
	fmt.Fprintf(o.Out, "%s now delivers %s: follow it with corral propagation get %s\n", o.target, pinText(pin), o.target.arg())
	return nil
}

func equalPin(a, b *int64) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

func pinText(pin *int64) string {
	if pin == nil {
		return "the newest revision"
	}
	return fmt.Sprintf("revision %d", *pin)
}

// rollbackEffect says what moving p's delivery to revision to does on its
// clusters: the objects replaced, and those the earlier revision lacks,
// which leave the clusters (or stay, unmanaged, with Orphan).
func rollbackEffect(r ref, p prop, revs []revision, pin *int64, to int64) confirm.Effect {
	e := confirm.Effect{Verb: fmt.Sprintf("roll %s to %s", r, pinText(pin))}
	from := p.Status.DeliveredRevision
	what := pinText(pin)
	if pin == nil {
		what = fmt.Sprintf("the newest revision (%d), unpinned,", to)
	}
	e.Changes = append(e.Changes, fmt.Sprintf("%s: delivers %s instead of revision %s", r, what, revNumber(from)))
	clusters := clustersOf(p)
	if len(clusters) == 0 || from == to {
		e.Changes = append(e.Changes, "no cluster runs another revision of it: nothing changes on the clusters yet")
		return e
	}
	on := list(clusters, 10)
	toRev, fromRev := find(revs, to), find(revs, from)
	if toRev == nil {
		e.Removes = append(e.Removes, fmt.Sprintf("on %s (%s): revision %d's objects are replaced", count(len(clusters), "cluster"), on, from))
		return e
	}
	e.Removes = append(e.Removes, fmt.Sprintf("on %s (%s): revision %d's objects are replaced by revision %d's (%s)",
		count(len(clusters), "cluster"), on, from, to, list(objectNames(toRev.Spec.Objects), 5)))
	if fromRev == nil {
		return e
	}
	kept := objectNames(toRev.Spec.Objects)
	var gone []string
	for _, n := range objectNames(fromRev.Spec.Objects) {
		if !slices.Contains(kept, n) {
			gone = append(gone, n)
		}
	}
	if len(gone) > 0 {
		fate := "deleted from the clusters"
		if p.Policy.DeletionPolicy == v1alpha1.DeletionPolicyOrphan {
			fate = "left on the clusters, no longer managed (deletionPolicy Orphan)"
		}
		e.Removes = append(e.Removes, fmt.Sprintf("not in revision %d, so %s: %s", to, fate, list(gone, 10)))
	}
	return e
}
