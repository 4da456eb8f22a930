package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/confirm"
	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/registration/common"
)

// ClusterSetBindOptions are the options of `corral clusterset bind` and
// `unbind`.
type ClusterSetBindOptions struct {
	Out       io.Writer
	Hub       hubclient.Hub
	Name      string
	Namespace string
	// Unbind deletes the binding instead: `corral clusterset unbind`.
	Unbind bool
	// Confirm is unbind's --yes and --dry-run: the placements in the
	// namespace lose the set's clusters.
	Confirm confirm.Options
}

// NewClusterSetBindOptions returns the defaults.
func NewClusterSetBindOptions(out io.Writer) *ClusterSetBindOptions {
	return &ClusterSetBindOptions{Out: out, Hub: hubclient.New(), Confirm: confirm.NewOptions()}
}

// NewCmdClusterSetBind returns `corral clusterset bind`.
func NewCmdClusterSetBind(out io.Writer) *cobra.Command {
	o := NewClusterSetBindOptions(out)
	cmd := &cobra.Command{
		Use:   "bind SET --namespace NAMESPACE",
		Short: "Bind a cluster set to a namespace, so placements there may choose its clusters",
		Long: `Bind a cluster set to a namespace: create the ManagedClusterSetBinding SET in
NAMESPACE. Placements in that namespace may then choose the set's clusters.
The set and the namespace must exist. Safe to run again.`,
		Example: "  corral clusterset bind prod --namespace team-a",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return hubclient.Run(cmd.Context(), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// NewCmdClusterSetUnbind returns `corral clusterset unbind`.
func NewCmdClusterSetUnbind(out io.Writer) *cobra.Command {
	o := NewClusterSetBindOptions(out)
	o.Unbind = true
	cmd := &cobra.Command{
		Use:   "unbind SET --namespace NAMESPACE",
		Short: "Remove a cluster set's binding from a namespace",
		Long: `Remove the ManagedClusterSetBinding SET from NAMESPACE: placements there may
no longer choose the set's clusters. Safe to run again.

Before it unbinds it shows what that takes away: the placements in NAMESPACE
that choose the set's clusters now and may no longer (no other set of the
cluster is bound there and named by them), the ManifestWorkReplicaSets and
(Cluster)Propagations whose objects leave those clusters, and the addons their install strategies placed
there. When something would be removed it asks on a terminal; off a
terminal it refuses unless --yes is given. --dry-run shows the same and
changes nothing.`,
		Example: `  corral clusterset unbind prod --namespace team-a
  # Show what unbinding would remove, and change nothing
  corral clusterset unbind prod --namespace team-a --dry-run
  # In a script: go ahead without asking
  corral clusterset unbind prod --namespace team-a --yes`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return hubclient.Run(cmd.Context(), o)
		},
	}
	o.AddFlags(cmd.Flags())
	o.Confirm.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the hub's flags and --namespace.
func (o *ClusterSetBindOptions) AddFlags(fs *pflag.FlagSet) {
	o.Hub.AddFlags(fs)
	fs.StringVarP(&o.Namespace, "namespace", "n", o.Namespace, "the namespace of the binding (required)")
}

// Validate checks that a namespace is named.
func (o *ClusterSetBindOptions) Validate() error {
	if o.Namespace == "" {
		return fmt.Errorf("name the namespace of the binding with --namespace")
	}
	return nil
}

// Complete builds the hub clients.
func (o *ClusterSetBindOptions) Complete() error { return o.Hub.Complete() }

// Run binds, or with Unbind unbinds.
func (o *ClusterSetBindOptions) Run(ctx context.Context) error {
	if o.Unbind {
		return o.unbind(ctx)
	}
	return o.bind(ctx)
}

// bind creates the binding, once the set and the namespace are known to
// exist. A user who may bind in a namespace but not read it (a team's own
// rights, not an admin's) is not stopped: the API server's answer to the
// create says whether the namespace exists.
func (o *ClusterSetBindOptions) bind(ctx context.Context) error {
	_, err := o.Hub.Kube.CoreV1().Namespaces().Get(ctx, o.Namespace, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return noNamespace(o.Namespace)
	case apierrors.IsForbidden(err):
		ctrl.LoggerFrom(ctx).V(4).Info("May not read the namespace; the create will say whether it exists", "namespace", o.Namespace)
	case err != nil:
		return fmt.Errorf("getting namespace %s: %w", o.Namespace, err)
	}
	if _, err := getSet(ctx, o.Hub.Client, o.Name); err != nil {
		return err
	}
	binding := &clusterv1beta2.ManagedClusterSetBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: o.Namespace, Name: o.Name},
		Spec:       clusterv1beta2.ManagedClusterSetBindingSpec{ClusterSet: o.Name},
	}
	_, err = o.Hub.Clusters.ClusterV1beta2().ManagedClusterSetBindings(o.Namespace).Create(ctx, binding, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		fmt.Fprintf(o.Out, "cluster set %s is already bound in namespace %s\n", o.Name, o.Namespace)
		return nil
	}
	if notFoundNamespace(err) {
		return noNamespace(o.Namespace)
	}
	if err != nil {
		return fmt.Errorf("binding cluster set %s in namespace %s: %w", o.Name, o.Namespace, err)
	}
	fmt.Fprintf(o.Out, "cluster set %s bound in namespace %s\n", o.Name, o.Namespace)
	return nil
}

// unbind shows what removing the binding takes away, asks, and deletes
// it, if there is one.
func (o *ClusterSetBindOptions) unbind(ctx context.Context) error {
	binding := &clusterv1beta2.ManagedClusterSetBinding{}
	err := o.Hub.Client.Get(ctx, client.ObjectKey{Namespace: o.Namespace, Name: o.Name}, binding)
	if apierrors.IsNotFound(err) {
		fmt.Fprintf(o.Out, "cluster set %s is not bound in namespace %s\n", o.Name, o.Namespace)
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading the binding of cluster set %s in namespace %s: %w", o.Name, o.Namespace, err)
	}
	effect, err := o.unbindEffect(ctx, binding)
	if err != nil {
		return err
	}
	if ok, err := o.Confirm.Ask(o.Out, effect); !ok || err != nil {
		return err
	}
	err = o.Hub.Client.Delete(ctx, binding, client.Preconditions{UID: &binding.UID})
	if apierrors.IsNotFound(err) {
		fmt.Fprintf(o.Out, "cluster set %s is not bound in namespace %s\n", o.Name, o.Namespace)
		return nil
	}
	if err != nil {
		return fmt.Errorf("unbinding cluster set %s from namespace %s: %w", o.Name, o.Namespace, err)
	}
	fmt.Fprintf(o.Out, "cluster set %s unbound from namespace %s\n", o.Name, o.Namespace)
	return nil
}

// unbindEffect is what removing binding does: the placements in its
// namespace that may no longer choose the set's clusters, and what they
// deliver there.
func (o *ClusterSetBindOptions) unbindEffect(ctx context.Context, binding *clusterv1beta2.ManagedClusterSetBinding) (confirm.Effect, error) {
	e := confirm.Effect{Verb: fmt.Sprintf("unbind cluster set %s from namespace %s", o.Name, o.Namespace),
		Changes: []string{fmt.Sprintf("binding %s/%s is deleted: placements in %s may no longer choose the clusters of set %s", o.Namespace, o.Name, o.Namespace, o.Name)}}
	set := &clusterv1beta2.ManagedClusterSet{}
	err := o.Hub.Client.Get(ctx, client.ObjectKey{Name: binding.Spec.ClusterSet}, set)
	if apierrors.IsNotFound(err) {
		return e, nil // a binding of no set lets no placement choose anything
	}
	if err != nil {
		return e, fmt.Errorf("reading cluster set %s: %w", binding.Spec.ClusterSet, err)
	}
	members, err := common.Members(ctx, o.Hub.Client, set)
	var invalid *common.InvalidSelectorError
	if err != nil && !errors.As(err, &invalid) {
		return e, fmt.Errorf("listing the clusters of set %s: %w", set.Name, err)
	}
	view, err := readPlacements(ctx, o.Hub.Client)
	if err != nil {
		if len(members) > 0 {
			e.Removes = append(e.Removes, unreadable(clusterNamesOf(members), err))
		}
		return e, nil
	}
	others := slices.DeleteFunc(slices.Clone(view.bindings), func(b clusterv1beta2.ManagedClusterSetBinding) bool {
		return b.Namespace == binding.Namespace && b.Name == binding.Name
	})
	e.Removes = view.removes(view.losses(members, view.sets, others))
	return e, nil
}

// notFoundNamespace says err is the API server's answer to a write in a
// namespace that does not exist.
func notFoundNamespace(err error) bool {
	var status apierrors.APIStatus
	if !apierrors.IsNotFound(err) || !errors.As(err, &status) {
		return false
	}
	d := status.Status().Details
	return d != nil && d.Kind == "namespaces"
}

// noNamespace is the error for binding in a namespace that does not exist.
func noNamespace(ns string) error {
	return fmt.Errorf("there is no namespace %s on the hub: create it first (kubectl create namespace %s)", ns, ns)
}
