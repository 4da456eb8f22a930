package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/internal/output"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// HistoryOptions are the options of `corral propagation history`.
type HistoryOptions struct {
	Out       io.Writer
	Hub       hubclient.Hub
	Name      string
	Namespace string
	Output    string
	// Now is when AGE is counted from; zero means now.
	Now time.Time

	target ref
}

// NewHistoryOptions returns the defaults: namespace default.
func NewHistoryOptions(out io.Writer) *HistoryOptions {
	return &HistoryOptions{Out: out, Hub: hubclient.New(), Namespace: "default"}
}

// NewCmdHistory returns `corral propagation history`.
func NewCmdHistory(out io.Writer) *cobra.Command {
	o := NewHistoryOptions(out)
	cmd := &cobra.Command{
		Use:   "history NAME [-n NAMESPACE]",
		Short: "List a propagation's revisions, and which is current, delivered and pinned",
		Long: `List the revisions of the Propagation NAME (or clusterpropagation/NAME): each
one's number, how many objects it holds, the start of its hash and its age,
and which is the newest (current), which the clusters are given (delivered)
and which 'corral propagation rollback' pinned. -o yaml|json prints the
revisions themselves, objects included.`,
		Example: `  corral propagation history web -n shop
  corral propagation history cprop/shop-namespace
  corral propagation history web -n shop -o yaml`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return hubclient.Run(cmd.Context(), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the hub's flags, -n and -o.
func (o *HistoryOptions) AddFlags(fs *pflag.FlagSet) {
	o.Hub.AddFlags(fs)
	addNamespaceFlag(fs, &o.Namespace, "namespace of the propagation")
	output.AddFlag(fs, &o.Output)
}

// Validate checks the name and flags.
func (o *HistoryOptions) Validate() error {
	var err error
	if o.target, err = parseRef(o.Name, o.Namespace); err != nil {
		return err
	}
	return output.Validate(o.Output)
}

// Complete builds the hub client.
func (o *HistoryOptions) Complete() error { return o.Hub.Complete() }

// Run prints the revisions.
func (o *HistoryOptions) Run(ctx context.Context) error {
	p, err := o.target.get(ctx, o.Hub.Client)
	if err != nil {
		return err
	}
	revs, err := o.target.revisions(ctx, o.Hub.Client)
	if err != nil {
		return err
	}
	if o.Output != "" {
		items := make([]any, len(revs))
		kind := "PropagationRevision"
		if o.target.Cluster {
			kind = "ClusterPropagationRevision"
		}
		for i, r := range revs {
			r.Obj.GetObjectKind().SetGroupVersionKind(v1alpha1.GroupVersion.WithKind(kind))
			r.Obj.SetManagedFields(nil)
			items[i] = r.Obj
		}
		return output.Print(o.Out, o.Output, map[string]any{"apiVersion": "v1", "kind": "List", "items": items}, nil)
	}
	if len(revs) == 0 {
		fmt.Fprintf(o.Out, "%s has no revisions yet: corral propagation get %s says why\n", o.target, o.target.arg())
		return nil
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	tw := tabwriter.NewWriter(o.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REVISION\tOBJECTS\tHASH\tAGE\tNOTE")
	for _, r := range revs {
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\n", r.Spec.Revision, len(r.Spec.Objects), shortHash(r.Spec.Hash),
			duration.HumanDuration(now.Sub(r.Created.Time)), strings.Join(marks(p, r.Spec.Revision), ", "))
	}
	return tw.Flush()
}

// marks say what revision n is to p: current, delivered, pinned.
func marks(p prop, n int64) []string {
	var out []string
	if p.Status.CurrentRevision == n {
		out = append(out, "current")
	}
	if p.Status.DeliveredRevision == n {
		out = append(out, "delivered")
	}
	if p.Policy.Revision != nil && *p.Policy.Revision == n {
		out = append(out, "pinned")
	}
	return out
}

// shortHash is a hash's first 12 hex digits, as git shortens one.
func shortHash(h string) string {
	h = strings.TrimPrefix(h, "sha256:")
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
