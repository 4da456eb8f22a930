package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/validation"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/confirm"
	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/registration/common"
)

// DeleteOptions are the options of `corral work delete`.
type DeleteOptions struct {
	Out  io.Writer
	Hub  hubclient.Hub
	Name string
	// Clusters, when set, deletes only the ManifestWorks on them.
	Clusters []string
	// Namespace is where a ManifestWorkReplicaSet NAME is looked for.
	Namespace string
	// Confirm is --yes and --dry-run: what is deleted is shown first.
	Confirm confirm.Options
}

// NewDeleteOptions returns the defaults: ask on a terminal.
func NewDeleteOptions(out io.Writer) *DeleteOptions {
	return &DeleteOptions{Out: out, Hub: hubclient.New(), Namespace: "default", Confirm: confirm.NewOptions()}
}

// NewCmdDelete returns `corral work delete`.
func NewCmdDelete(out io.Writer) *cobra.Command {
	o := NewDeleteOptions(out)
	cmd := &cobra.Command{
		Use:   "delete NAME [--clusters C1,C2] [-n NAMESPACE] [--yes] [--dry-run]",
		Short: "Delete ManifestWorks (the work agents then remove what they applied)",
		Long: `Delete the ManifestWorks NAME; each cluster's work agent then removes from the
cluster what the work applied (as its deleteOption says: Orphan leaves it).

Without --clusters: the ManifestWorkReplicaSet NAME in namespace -n, with
every ManifestWork it made, and the ManifestWorks NAME created with
--clusters on every cluster. With --clusters: only the ManifestWorks NAME on
those clusters; a work made by a ManifestWorkReplicaSet is refused there
(delete the set, or change its placement, instead). Every named cluster must
exist and have the work: when one does not, nothing is deleted. A user who
may not list ManifestWorks on the clusters (a team's user) deletes the set
only, and is told so.

What goes, and from which clusters, is shown first and asked about on a
terminal; off a terminal it needs --yes. --dry-run only shows it.`,
		Example: `  corral work delete web --dry-run
  corral work delete web --clusters cluster2 --yes
  corral work delete web -n apps`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return hubclient.Run(cmd.Context(), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the hub's flags, --clusters, -n, --yes and
// --dry-run.
func (o *DeleteOptions) AddFlags(fs *pflag.FlagSet) {
	o.Hub.AddFlags(fs)
	hubclient.AddClustersFlag(fs, &o.Clusters, "delete only the ManifestWorks on these clusters")
	fs.StringVarP(&o.Namespace, "namespace", "n", o.Namespace, "namespace of the ManifestWorkReplicaSet")
	o.Confirm.AddFlags(fs)
}

// Validate checks the names.
func (o *DeleteOptions) Validate() error {
	if errs := validation.IsDNS1123Subdomain(o.Name); len(errs) > 0 {
		return fmt.Errorf("work name %q is not valid: %s", o.Name, errs[0])
	}
	if errs := validation.IsDNS1123Label(o.Namespace); len(errs) > 0 {
		return fmt.Errorf("namespace %q is not valid: %s", o.Namespace, errs[0])
	}
	var err error
	o.Clusters, err = common.ClusterNames(o.Clusters)
	return err
}

// Complete builds the hub client.
func (o *DeleteOptions) Complete() error { return o.Hub.Complete() }

// deletion is what delete found to delete.
type deletion struct {
	// set is the ManifestWorkReplicaSet to delete, and setClusters where
	// its works are (nil when they may not be listed).
	set         *workv1alpha1.ManifestWorkReplicaSet
	setClusters []string
	// works are the ManifestWorks to delete, or being deleted already.
	works []*workv1.ManifestWork
	// setDeleting says the set is being deleted already; unlisted that
	// the works made with --clusters could not be looked for.
	setDeleting, unlisted bool
}

// Run finds everything to delete, shows it and asks, then deletes it.
func (o *DeleteOptions) Run(ctx context.Context) error {
	var d *deletion
	var err error
	if len(o.Clusters) > 0 {
		d, err = o.findOnClusters(ctx)
	} else {
		d, err = o.find(ctx)
	}
	if err != nil {
		return err
	}
	ok, err := o.Confirm.Ask(o.Out, o.effect(d))
	if err != nil || !ok {
		return err
	}
	return o.delete(ctx, d)
}

// find finds the set NAME, its works, and the works NAME made with
// --clusters; none of them is an error.
func (o *DeleteOptions) find(ctx context.Context) (*deletion, error) {
	d := &deletion{}
	set := &workv1alpha1.ManifestWorkReplicaSet{}
	err := o.Hub.Client.Get(ctx, client.ObjectKey{Namespace: o.Namespace, Name: o.Name}, set)
	switch {
	case err == nil && set.DeletionTimestamp != nil:
		d.setDeleting = true
	case err == nil:
		d.set = set
	case !apierrors.IsNotFound(err):
		return nil, fmt.Errorf("reading ManifestWorkReplicaSet %s/%s: %w", o.Namespace, o.Name, err)
	}
	found := d.set != nil || d.setDeleting
	list := &workv1.ManifestWorkList{}
	err = o.Hub.Client.List(ctx, list)
	switch {
	case apierrors.IsForbidden(err) && found:
		// A team's user: the set was theirs, the clusters' namespaces are not.
		ctrl.LoggerFrom(ctx).V(4).Info("May not list ManifestWorks", "err", err)
		d.unlisted = true
		return d, nil
	case apierrors.IsForbidden(err):
		return nil, fmt.Errorf("no ManifestWorkReplicaSet %s in namespace %s, and you may not list ManifestWorks on the clusters (see corral work get -n %s)", o.Name, o.Namespace, o.Namespace)
	case err != nil:
		return nil, fmt.Errorf("listing ManifestWorks: %w", err)
	}
	if d.set != nil {
		d.setClusters = []string{}
	}
	for i := range list.Items {
		w := &list.Items[i]
		switch {
		case w.Name != o.Name:
		case w.Labels[workv1alpha1.ManifestWorkReplicaSetControllerNameLabelKey] == o.Namespace+"."+o.Name && d.set != nil:
			d.setClusters = append(d.setClusters, w.Namespace)
		case w.Labels[workv1alpha1.ManifestWorkReplicaSetControllerNameLabelKey] == "":
			d.works = append(d.works, w)
		}
	}
	if !found && len(d.works) == 0 {
		return nil, fmt.Errorf("no ManifestWorkReplicaSet %s in namespace %s and no ManifestWork %s on any cluster (see corral work get)", o.Name, o.Namespace, o.Name)
	}
	return d, nil
}

// findOnClusters finds the work on each named cluster, once every one is
// known to have it and none belongs to a set.
func (o *DeleteOptions) findOnClusters(ctx context.Context) (*deletion, error) {
	d := &deletion{}
	var unknown, missing []string
	for _, c := range o.Clusters {
		if err := o.Hub.Client.Get(ctx, client.ObjectKey{Name: c}, &clusterv1.ManagedCluster{}); apierrors.IsNotFound(err) {
			unknown = append(unknown, c)
			continue
		} else if err != nil {
			return nil, fmt.Errorf("reading cluster %s: %w", c, err)
		}
		w := &workv1.ManifestWork{}
		if err := o.Hub.Client.Get(ctx, client.ObjectKey{Namespace: c, Name: o.Name}, w); apierrors.IsNotFound(err) {
			missing = append(missing, c)
			continue
		} else if err != nil {
			return nil, fmt.Errorf("reading ManifestWork %s/%s: %w", c, o.Name, err)
		}
		if set := w.Labels[workv1alpha1.ManifestWorkReplicaSetControllerNameLabelKey]; set != "" {
			ns, name, _ := strings.Cut(set, ".")
			return nil, fmt.Errorf("ManifestWork %s on cluster %s belongs to ManifestWorkReplicaSet %s/%s, which would make it again: delete the set (corral work delete %s -n %s) or change its placement; nothing was deleted",
				o.Name, c, ns, name, name, ns)
		}
		d.works = append(d.works, w)
	}
	switch {
	case len(unknown) > 0:
		return nil, fmt.Errorf("no cluster %s on the hub (see corral get clusters); nothing was deleted", strings.Join(unknown, ", "))
	case len(missing) > 0:
		return nil, fmt.Errorf("no ManifestWork %s on cluster %s (see corral work get %s); nothing was deleted", o.Name, strings.Join(missing, ", "), o.Name)
	}
	return d, nil
}

// effect says what goes: each work or set, and what its agents remove
// from which clusters, or leave there.
func (o *DeleteOptions) effect(d *deletion) confirm.Effect {
	e := confirm.Effect{Verb: "delete " + o.Name}
	if d.set != nil {
		where := "the clusters its placement selects"
		switch {
		case d.setClusters == nil:
		case len(d.setClusters) == 0:
			where = "no cluster yet"
		default:
			where = strings.Join(d.setClusters, ", ")
		}
		e.Removes = append(e.Removes, fmt.Sprintf("manifestworkreplicaset %s/%s, with its works on %s: %s",
			d.set.Namespace, d.set.Name, where, objectsEffect(d.set.Spec.ManifestWorkTemplate, "them")))
	}
	for _, w := range d.works {
		if w.DeletionTimestamp == nil {
			e.Removes = append(e.Removes, fmt.Sprintf("manifestwork %s on cluster %s: %s", w.Name, w.Namespace, objectsEffect(w.Spec, w.Namespace)))
		}
	}
	return e
}

// objectsEffect says what the agent does with spec's objects on where
// when its work goes, as the delete option says.
func objectsEffect(spec workv1.ManifestWorkSpec, where string) string {
	var removed, kept []string
	orphans := map[workv1.OrphaningRule]bool{}
	policy := workv1.DeletePropagationPolicyTypeForeground
	if d := spec.DeleteOption; d != nil {
		policy = d.PropagationPolicy
		if d.SelectivelyOrphan != nil {
			for _, r := range d.SelectivelyOrphan.OrphaningRules {
				orphans[r] = true
			}
		}
	}
	for _, m := range spec.Workload.Manifests {
		u := object(m)
		gvk := u.GroupVersionKind()
		resource, _ := meta.UnsafeGuessKindToResource(gvk)
		rule := workv1.OrphaningRule{Group: gvk.Group, Resource: resource.Resource, Namespace: u.GetNamespace(), Name: u.GetName()}
		name := resourceName(workv1.ManifestResourceMeta{Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName()})
		if policy == workv1.DeletePropagationPolicyTypeOrphan || (policy == workv1.DeletePropagationPolicyTypeSelectivelyOrphan && orphans[rule]) {
			kept = append(kept, name)
		} else {
			removed = append(removed, name)
		}
	}
	var parts []string
	if len(removed) > 0 {
		parts = append(parts, fmt.Sprintf("its agent removes %s from %s", strings.Join(removed, ", "), where))
	}
	if len(kept) > 0 {
		parts = append(parts, fmt.Sprintf("%s stay on %s (delete option %s)", strings.Join(kept, ", "), where, policy))
	}
	if len(parts) == 0 {
		return "it delivers no object"
	}
	return strings.Join(parts, "; ")
}

// delete deletes what d found, saying so.
func (o *DeleteOptions) delete(ctx context.Context, d *deletion) error {
	switch {
	case d.setDeleting:
		fmt.Fprintf(o.Out, "manifestworkreplicaset %s in namespace %s is already being deleted, with its ManifestWorks\n", o.Name, o.Namespace)
	case d.set != nil:
		if err := o.Hub.Client.Delete(ctx, d.set); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting ManifestWorkReplicaSet %s/%s: %w", o.Namespace, o.Name, err)
		}
		fmt.Fprintf(o.Out, "manifestworkreplicaset %s deleted from namespace %s, with its ManifestWorks\n", o.Name, o.Namespace)
	}
	if d.unlisted {
		fmt.Fprintf(o.Out, "ManifestWorks %s made with --clusters were not looked for: you may not list ManifestWorks on the clusters\n", o.Name)
	}
	for _, w := range d.works {
		if err := o.deleteWork(ctx, w); err != nil {
			return err
		}
	}
	return nil
}

// deleteWork deletes w, and says so; of a work already being deleted it
// says that instead.
func (o *DeleteOptions) deleteWork(ctx context.Context, w *workv1.ManifestWork) error {
	if w.DeletionTimestamp != nil {
		fmt.Fprintf(o.Out, "manifestwork %s on cluster %s is already being deleted: its agent removes what it applied (corral work get %s --cluster %s shows it)\n",
			w.Name, w.Namespace, w.Name, w.Namespace)
		return nil
	}
	if err := o.Hub.Client.Delete(ctx, w); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("deleting ManifestWork %s on cluster %s: %w", w.Name, w.Namespace, err)
	}
	fmt.Fprintf(o.Out, "manifestwork %s deleted from cluster %s\n", w.Name, w.Namespace)
	return nil
}
