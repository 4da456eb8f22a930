package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/confirm"
	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// DeleteOptions are the options of `corral propagation delete`.
type DeleteOptions struct {
	Out       io.Writer
	Hub       hubclient.Hub
	Confirm   confirm.Options
	Name      string
	Namespace string

	target ref
}

// NewDeleteOptions returns the defaults: namespace default, asking first.
func NewDeleteOptions(out io.Writer) *DeleteOptions {
	return &DeleteOptions{Out: out, Hub: hubclient.New(), Confirm: confirm.NewOptions(), Namespace: "default"}
}

// NewCmdDelete returns `corral propagation delete`.
func NewCmdDelete(out io.Writer) *cobra.Command {
	o := NewDeleteOptions(out)
	cmd := &cobra.Command{
		Use:   "delete NAME [-n NAMESPACE]",
		Short: "Delete a propagation, after showing what leaves the clusters or stays there",
		Long: `Delete the Propagation NAME (or clusterpropagation/NAME) and its revisions.
With deletionPolicy Delete its objects are deleted from every cluster it
delivered them to; with Orphan they stay there, no longer managed. The hub's
own objects (the templates) and the Placement stay.

It shows which clusters and objects first, and asks on a terminal;
elsewhere it needs --yes. --dry-run shows it and deletes nothing.`,
		Example: `  corral propagation delete web -n shop
  corral propagation delete cprop/shop-namespace --dry-run
  corral propagation delete web -n shop --yes`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return hubclient.Run(cmd.Context(), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the hub's flags, -n, --yes and --dry-run.
func (o *DeleteOptions) AddFlags(fs *pflag.FlagSet) {
	o.Hub.AddFlags(fs)
	o.Confirm.AddFlags(fs)
	addNamespaceFlag(fs, &o.Namespace, "namespace of the propagation")
}

// Validate checks the name.
func (o *DeleteOptions) Validate() error {
	var err error
	o.target, err = parseRef(o.Name, o.Namespace)
	return err
}

// Complete builds the hub client.
func (o *DeleteOptions) Complete() error { return o.Hub.Complete() }

// Run shows the effect, asks, and deletes.
func (o *DeleteOptions) Run(ctx context.Context) error {
	p, err := o.target.get(ctx, o.Hub.Client)
	if err != nil {
		return err
	}
	if p.Obj.GetDeletionTimestamp() != nil {
		fmt.Fprintf(o.Out, "%s is already being deleted\n", o.target)
		return nil
	}
	revs, err := o.target.revisions(ctx, o.Hub.Client)
	if err != nil {
		return err
	}
	ok, err := o.Confirm.Ask(o.Out, deleteEffect(o.target, p, revs))
	if err != nil || !ok {
		return err
	}
	uid := p.Obj.GetUID()
	if err := o.Hub.Client.Delete(ctx, p.Obj, client.Preconditions{UID: &uid}); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("deleting %s: %w", o.target, err)
	}
	fmt.Fprintf(o.Out, "%s deleted\n", o.target)
	return nil
}

// deleteEffect says what deleting p does: its revisions go from the hub;
// its objects go from the clusters (Delete) or stay there (Orphan).
func deleteEffect(r ref, p prop, revs []revision) confirm.Effect {
	e := confirm.Effect{Verb: "delete " + r.String()}
	e.Removes = append(e.Removes, fmt.Sprintf("%s and its %s, from the hub", r, count(len(revs), "revision")))
	clusters := clustersOf(p)
	objects := []string{}
	if rev := find(revs, p.Status.DeliveredRevision); rev != nil {
		objects = objectNames(rev.Spec.Objects)
	} else {
		for _, obj := range p.Status.Objects {
			name := obj.Name
			if obj.Namespace != "" {
				name = obj.Namespace + "/" + name
			}
			objects = append(objects, strings.ToLower(obj.Kind)+" "+name)
		}
	}
	what := "its objects"
	if len(objects) > 0 {
		what = list(objects, 10)
	}
	switch {
	case len(clusters) == 0:
		e.Changes = append(e.Changes, r.String()+" has delivered to no cluster: nothing changes on the clusters")
	case p.Policy.DeletionPolicy == v1alpha1.DeletionPolicyOrphan:
		e.Changes = append(e.Changes, fmt.Sprintf("deletionPolicy Orphan: on %s (%s) these stay, no longer managed: %s", count(len(clusters), "cluster"), list(clusters, 10), what))
	default:
		e.Removes = append(e.Removes, fmt.Sprintf("from %s (%s): %s (deletionPolicy Delete)", count(len(clusters), "cluster"), list(clusters, 10), what))
	}
	e.Changes = append(e.Changes, "the objects on the hub (the templates) and the placements stay")
	return e
}
