package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// DisableOptions are the options of `corral addon disable`.
type DisableOptions struct {
	hubOptions
	Addons []string
	target
}

// NewDisableOptions returns the defaults.
func NewDisableOptions(out io.Writer) *DisableOptions {
	return &DisableOptions{hubOptions: newHubOptions(out)}
}

// NewCmdDisable returns `corral addon disable`.
func NewCmdDisable(out io.Writer) *cobra.Command {
	o := NewDisableOptions(out)
	cmd := &cobra.Command{
		Use:   "disable ADDON... (--clusters CLUSTER,... | --clusterset SET | --all-clusters)",
		Short: "Disable addons on clusters: delete their ManagedClusterAddOns",
		Long: `Disable addons on clusters: delete each addon's ManagedClusterAddOn from each
cluster's namespace on the hub. The addon's agent stops on that cluster and its
hub credentials are revoked. Safe to run again: a cluster the addon is not
enabled on is reported and skipped.`,
		Example: `  corral addon disable hello --clusters cluster1
  corral addon disable hello --all-clusters`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Addons = args
			if err := o.Validate(); err != nil {
				return err
			}
			if err := o.Complete(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	o.Hub.AddFlags(cmd.Flags())
	f := cmd.Flags()
	f.StringSliceVar(&o.Clusters, "clusters", nil, "clusters to disable the addons on")
	f.StringVar(&o.ClusterSet, "clusterset", "", "disable the addons on every cluster of this cluster set")
	f.BoolVar(&o.AllClusters, "all-clusters", false, "disable the addons on every cluster they are enabled on")
	return cmd
}

// Validate checks names and the clusters flags.
func (o *DisableOptions) Validate() error {
	if err := validateAddonNames(o.Addons); err != nil {
		return err
	}
	return o.validateTarget(true)
}

// Run deletes the ManagedClusterAddOns.
func (o *DisableOptions) Run(ctx context.Context) error {
	clusters, err := o.clusterNames(ctx)
	if err != nil {
		return err
	}
	log := ctrl.LoggerFrom(ctx)
	for _, addon := range o.Addons {
		on := clusters
		if o.AllClusters {
			if on, err = enabledOn(ctx, o.client, addon); err != nil {
				return err
			}
			if len(on) == 0 {
				fmt.Fprintf(o.Out, "addon %s is not enabled on any cluster\n", addon)
			}
		}
		for _, cluster := range on {
			mca := &addonv1alpha1.ManagedClusterAddOn{}
			mca.Namespace, mca.Name = cluster, addon
			err := o.client.Delete(ctx, mca)
			switch {
			case apierrors.IsNotFound(err):
				fmt.Fprintf(o.Out, "addon %s is not enabled on cluster %s\n", addon, cluster)
			case err != nil:
				return fmt.Errorf("disabling addon %s on cluster %s: %w", addon, cluster, err)
			default:
				log.V(1).Info("Disabled addon", "addon", addon, "cluster", cluster)
				fmt.Fprintf(o.Out, "addon %s disabled on cluster %s\n", addon, cluster)
			}
		}
	}
	return nil
}

// clusterNames are the clusters --clusters or --clusterset name; none for
// --all-clusters, which is resolved per addon.
func (o *DisableOptions) clusterNames(ctx context.Context) ([]string, error) {
	if o.AllClusters {
		return nil, nil
	}
	if o.ClusterSet == "" {
		// Named clusters need not exist any more: their addons may linger.
		return o.Clusters, nil
	}
	members, err := o.resolve(ctx, o.client)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(members))
	for i := range members {
		names[i] = members[i].Name
	}
	return names, nil
}

// enabledOn lists the clusters addon is enabled on, sorted.
func enabledOn(ctx context.Context, c client.Reader, addon string) ([]string, error) {
	list := &addonv1alpha1.ManagedClusterAddOnList{}
	if err := c.List(ctx, list); err != nil {
		return nil, fmt.Errorf("listing enabled addons: %w", err)
	}
	var out []string
	for _, mca := range list.Items {
		if mca.Name == addon {
			out = append(out, mca.Namespace)
		}
	}
	slices.SortFunc(out, strings.Compare)
	return out, nil
}
