package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/confirm"
	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/placement/hub/scheduler"
)

// DeleteOptions are the options of `corral placement delete`.
type DeleteOptions struct {
	Out       io.Writer
	Hub       hubclient.Hub
	Confirm   confirm.Options
	Name      string
	Namespace string
}

// NewDeleteOptions returns the defaults: namespace default, asking first.
func NewDeleteOptions(out io.Writer) *DeleteOptions {
	return &DeleteOptions{Out: out, Hub: hubclient.New(), Confirm: confirm.NewOptions(), Namespace: "default"}
}

// NewCmdDelete returns `corral placement delete`.
func NewCmdDelete(out io.Writer) *cobra.Command {
	o := NewDeleteOptions(out)
	cmd := &cobra.Command{
		Use:   "delete NAME [-n NAMESPACE]",
		Short: "Delete a placement, after showing what it selects and what is delivered through it",
		Long: `Delete the Placement NAME of NAMESPACE and its PlacementDecisions. First it
shows what that does: the clusters the placement selects, the
ManifestWorkReplicaSets of the namespace that follow it, and the addons an
install strategy puts on its clusters.

A ManifestWorkReplicaSet whose placement is gone keeps its ManifestWorks on
the clusters, as OCM's does: its PlacementVerified condition goes False and
it stops following the placement (no cluster gains or loses the work by it
until the placement is back). An addon installed by a strategy that names the
placement is uninstalled from the clusters none of its other placements
selects. Both are listed as removals: on a terminal it asks; elsewhere it
needs --yes. --dry-run shows it all and deletes nothing.`,
		Example: `  corral placement delete web -n team-a
  corral placement delete web -n team-a --dry-run
  corral placement delete web -n team-a --yes`,
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
	addNamespaceFlag(fs, &o.Namespace, "namespace of the placement")
}

// Validate checks the names.
func (o *DeleteOptions) Validate() error {
	if errs := validation.IsDNS1123Subdomain(o.Name); len(errs) > 0 {
		return fmt.Errorf("placement name %q is not valid: %s", o.Name, errs[0])
	}
	if errs := validation.IsDNS1123Label(o.Namespace); len(errs) > 0 {
		return fmt.Errorf("namespace %q is not valid: %s", o.Namespace, errs[0])
	}
	return nil
}

// Complete builds the hub client.
func (o *DeleteOptions) Complete() error { return o.Hub.Complete() }

// Run computes the effect, asks, and deletes.
func (o *DeleteOptions) Run(ctx context.Context) error {
	key := client.ObjectKey{Namespace: o.Namespace, Name: o.Name}
	p := &clusterv1beta1.Placement{}
	err := o.Hub.Client.Get(ctx, key, p)
	switch {
	case apierrors.IsNotFound(err):
		return fmt.Errorf("no placement %s in namespace %s: corral placement get -n %s lists them", o.Name, o.Namespace, o.Namespace)
	case err != nil:
		return fmt.Errorf("reading placement %s: %w", key, err)
	case p.DeletionTimestamp != nil:
		fmt.Fprintf(o.Out, "placement %s is already being deleted\n", key)
		return nil
	}
	effect, err := o.Effect(ctx)
	if err != nil {
		return err
	}
	ok, err := o.Confirm.Ask(o.Out, effect)
	if err != nil || !ok {
		return err
	}
	if err := o.Hub.Client.Delete(ctx, p, client.Preconditions{UID: &p.UID}); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("deleting placement %s: %w", key, err)
	}
	fmt.Fprintf(o.Out, "placement %s deleted\n", key)
	return nil
}

// Effect is what deleting the placement does: the clusters it selects,
// and what is delivered through it. What the user may not read is said in
// a note, not guessed.
func (o *DeleteOptions) Effect(ctx context.Context) (confirm.Effect, error) {
	key := o.Namespace + "/" + o.Name
	e := confirm.Effect{Verb: "delete placement " + key}
	clusters, err := decided(ctx, o.Hub.Client, o.Namespace, o.Name)
	if err != nil {
		return e, err
	}
	e.Changes = append(e.Changes, fmt.Sprintf("placement %s selects %s: %s", key, scheduler.Count(len(clusters), "cluster"), orNone(clusters)))
	e.Removes = append(e.Removes, fmt.Sprintf("placement %s and its PlacementDecisions", key))
	on := ""
	if len(clusters) > 0 {
		on = " on " + clusterList(clusters, 10)
	}

	sets := &workv1alpha1.ManifestWorkReplicaSetList{}
	err = o.Hub.Client.List(ctx, sets, client.InNamespace(o.Namespace))
	switch {
	case apierrors.IsForbidden(err):
		e.Changes = append(e.Changes, fmt.Sprintf("note: you may not list ManifestWorkReplicaSets in %s, so works delivered through the placement were not looked for; see %s", o.Namespace, teamsDoc))
	case err != nil:
		return e, fmt.Errorf("listing ManifestWorkReplicaSets in %s: %w", o.Namespace, err)
	}
	for _, s := range sets.Items {
		// One being deleted takes its works away itself (work delete
		// returns before its finalizer has): it follows nothing any more.
		if s.DeletionTimestamp.IsZero() && slices.ContainsFunc(s.Spec.PlacementRefs, func(r workv1alpha1.LocalPlacementReference) bool { return r.Name == o.Name }) {
			e.Removes = append(e.Removes, fmt.Sprintf("manifestworkreplicaset %s/%s stops following the placement: its works%s stay, but are no longer rolled out or withdrawn by it (PlacementVerified goes False)",
				s.Namespace, s.Name, on))
		}
	}

	addons := &addonv1alpha1.ClusterManagementAddOnList{}
	err = o.Hub.Client.List(ctx, addons)
	switch {
	case apierrors.IsForbidden(err):
		e.Changes = append(e.Changes, "note: you may not list ClusterManagementAddOns, so addons installed through the placement were not looked for; see "+teamsDoc)
	case err != nil:
		return e, fmt.Errorf("listing ClusterManagementAddOns: %w", err)
	}
	for _, a := range addons.Items {
		if a.Spec.InstallStrategy.Type != addonv1alpha1.AddonInstallStrategyPlacements {
			continue
		}
		named := slices.ContainsFunc(a.Spec.InstallStrategy.Placements, func(s addonv1alpha1.PlacementStrategy) bool {
			return s.Namespace == o.Namespace && s.Name == o.Name
		})
		if named {
			e.Removes = append(e.Removes, fmt.Sprintf("addon %s: uninstalled by its install strategy from the clusters%s that none of its other placements selects", a.Name, strings.TrimPrefix(on, " on")))
		}
	}
	return e, nil
}
