package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

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
}

// NewDeleteOptions returns the defaults.
func NewDeleteOptions(out io.Writer) *DeleteOptions {
	return &DeleteOptions{Out: out, Hub: hubclient.New(), Namespace: "default"}
}

// NewCmdDelete returns `corral work delete`.
func NewCmdDelete(out io.Writer) *cobra.Command {
	o := NewDeleteOptions(out)
	cmd := &cobra.Command{
		Use:   "delete NAME [--clusters C1,C2] [-n NAMESPACE]",
		Short: "Delete ManifestWorks (the work agents then remove what they applied)",
		Long: `Delete the ManifestWorks NAME; each cluster's work agent then removes from the
cluster what the work applied (as its deleteOption says).

Without --clusters: the ManifestWorkReplicaSet NAME in namespace -n, with
every ManifestWork it made, and the ManifestWorks NAME created with
--clusters on every cluster. With --clusters: only the ManifestWorks NAME on
those clusters; a work made by a ManifestWorkReplicaSet is refused there
(delete the set, or change its placement, instead). Every named cluster must
exist and have the work: when one does not, nothing is deleted. A user who
may not list ManifestWorks on the clusters (a team's user) deletes the set
only, and is told so.`,
		Example: `  corral work delete web
  corral work delete web --clusters cluster2
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

// AddFlags registers the hub's flags, --clusters and -n.
func (o *DeleteOptions) AddFlags(fs *pflag.FlagSet) {
	o.Hub.AddFlags(fs)
	fs.StringSliceVar(&o.Clusters, "clusters", nil, "delete only the ManifestWorks on these clusters")
	fs.StringVarP(&o.Namespace, "namespace", "n", o.Namespace, "namespace of the ManifestWorkReplicaSet")
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

// Run finds everything to delete, then deletes it.
func (o *DeleteOptions) Run(ctx context.Context) error {
	if len(o.Clusters) > 0 {
		return o.deleteOnClusters(ctx)
	}
	deleted := 0
	set := &workv1alpha1.ManifestWorkReplicaSet{}
	err := o.Hub.Client.Get(ctx, client.ObjectKey{Namespace: o.Namespace, Name: o.Name}, set)
	switch {
	case err == nil && set.DeletionTimestamp != nil:
		fmt.Fprintf(o.Out, "manifestworkreplicaset %s in namespace %s is already being deleted, with its ManifestWorks\n", o.Name, o.Namespace)
		deleted++
	case err == nil:
		if err := o.Hub.Client.Delete(ctx, set); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting ManifestWorkReplicaSet %s/%s: %w", o.Namespace, o.Name, err)
		}
		fmt.Fprintf(o.Out, "manifestworkreplicaset %s deleted from namespace %s, with its ManifestWorks\n", o.Name, o.Namespace)
		deleted++
	case !apierrors.IsNotFound(err):
		return fmt.Errorf("reading ManifestWorkReplicaSet %s/%s: %w", o.Namespace, o.Name, err)
	}
	list := &workv1.ManifestWorkList{}
	err = o.Hub.Client.List(ctx, list)
	switch {
	case apierrors.IsForbidden(err) && deleted > 0:
		// A team's user: the set was theirs, the clusters' namespaces are not.
		ctrl.LoggerFrom(ctx).V(4).Info("May not list ManifestWorks", "err", err)
		fmt.Fprintf(o.Out, "ManifestWorks %s made with --clusters were not looked for: you may not list ManifestWorks on the clusters\n", o.Name)
		return nil
	case apierrors.IsForbidden(err):
		return fmt.Errorf("no ManifestWorkReplicaSet %s in namespace %s, and you may not list ManifestWorks on the clusters (see corral work get -n %s)", o.Name, o.Namespace, o.Namespace)
	case err != nil:
		return fmt.Errorf("listing ManifestWorks: %w", err)
	}
	for i := range list.Items {
		w := &list.Items[i]
		if w.Name != o.Name || w.Labels[workv1alpha1.ManifestWorkReplicaSetControllerNameLabelKey] != "" {
			continue
		}
		if err := o.deleteWork(ctx, w); err != nil {
			return err
		}
		deleted++
	}
	if deleted == 0 {
		return fmt.Errorf("no ManifestWorkReplicaSet %s in namespace %s and no ManifestWork %s on any cluster (see corral work get)", o.Name, o.Namespace, o.Name)
	}
	return nil
}

// deleteOnClusters deletes the work on each named cluster, once every
// one is known to have it and none belongs to a set.
func (o *DeleteOptions) deleteOnClusters(ctx context.Context) error {
	var works []*workv1.ManifestWork
	var unknown, missing []string
	for _, c := range o.Clusters {
		if err := o.Hub.Client.Get(ctx, client.ObjectKey{Name: c}, &clusterv1.ManagedCluster{}); apierrors.IsNotFound(err) {
			unknown = append(unknown, c)
			continue
		} else if err != nil {
			return fmt.Errorf("reading cluster %s: %w", c, err)
		}
		w := &workv1.ManifestWork{}
		if err := o.Hub.Client.Get(ctx, client.ObjectKey{Namespace: c, Name: o.Name}, w); apierrors.IsNotFound(err) {
			missing = append(missing, c)
			continue
		} else if err != nil {
			return fmt.Errorf("reading ManifestWork %s/%s: %w", c, o.Name, err)
		}
		if set := w.Labels[workv1alpha1.ManifestWorkReplicaSetControllerNameLabelKey]; set != "" {
			ns, name, _ := strings.Cut(set, ".")
			return fmt.Errorf("ManifestWork %s on cluster %s belongs to ManifestWorkReplicaSet %s/%s, which would make it again: delete the set (corral work delete %s -n %s) or change its placement; nothing was deleted",
				o.Name, c, ns, name, name, ns)
		}
		works = append(works, w)
	}
	switch {
	case len(unknown) > 0:
		return fmt.Errorf("no cluster %s on the hub (see corral get clusters); nothing was deleted", strings.Join(unknown, ", "))
	case len(missing) > 0:
		return fmt.Errorf("no ManifestWork %s on cluster %s (see corral work get %s); nothing was deleted", o.Name, strings.Join(missing, ", "), o.Name)
	}
	for _, w := range works {
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
