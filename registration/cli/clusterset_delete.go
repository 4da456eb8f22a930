package cli

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"

	"github.com/corral-dev/corral/internal/hubclient"
)

// ClusterSetDeleteOptions are the options of `corral clusterset delete`.
type ClusterSetDeleteOptions struct {
	Out  io.Writer
	Hub  hubclient.Hub
	Name string
}

// NewClusterSetDeleteOptions returns the defaults.
func NewClusterSetDeleteOptions(out io.Writer) *ClusterSetDeleteOptions {
	return &ClusterSetDeleteOptions{Out: out, Hub: hubclient.New()}
}

// NewCmdClusterSetDelete returns `corral clusterset delete`.
func NewCmdClusterSetDelete(out io.Writer) *cobra.Command {
	o := NewClusterSetDeleteOptions(out)
	cmd := &cobra.Command{
		Use:   "delete SET",
		Short: "Delete a cluster set that no namespace binds",
		Long: `Delete a ManagedClusterSet. A set still bound in a namespace is not deleted:
unbind it first, so that no placement loses its clusters by surprise. The
hub's own sets, default and global, cannot be deleted (the hub would create
them again at once). Clusters keep their labels.`,
		Example: "  corral clusterset delete prod",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return hubclient.Run(cmd.Context(), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the hub's flags.
func (o *ClusterSetDeleteOptions) AddFlags(fs *pflag.FlagSet) { o.Hub.AddFlags(fs) }

// Validate refuses the hub's own sets.
func (o *ClusterSetDeleteOptions) Validate() error {
	if isBuiltin(o.Name) {
		return fmt.Errorf("cluster set %s is kept by the hub and would be created again at once: nothing was deleted", o.Name)
	}
	return nil
}

// Complete builds the hub clients.
func (o *ClusterSetDeleteOptions) Complete() error { return o.Hub.Complete() }

// Run deletes the set if it exists and nothing binds it.
func (o *ClusterSetDeleteOptions) Run(ctx context.Context) error {
	set, err := getSet(ctx, o.Hub.Clusters, o.Name)
	if err != nil {
		return err
	}
	bindings, err := o.Hub.Clusters.ClusterV1beta2().ManagedClusterSetBindings(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing cluster set bindings: %w", err)
	}
	if namespaces := bindingsOf(o.Name, bindings.Items); len(namespaces) > 0 {
		return fmt.Errorf("cluster set %s is still bound in namespace %s: unbind it first ('corral clusterset unbind %s --namespace %s'); nothing was deleted",
			o.Name, strings.Join(namespaces, ", "), o.Name, namespaces[0])
	}
	if err := o.Hub.Clusters.ClusterV1beta2().ManagedClusterSets().Delete(ctx, o.Name,
		metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &set.UID}}); err != nil {
		return fmt.Errorf("deleting cluster set %s: %w", o.Name, err)
	}
	fmt.Fprintf(o.Out, "cluster set %s deleted\n", o.Name)
	if set.Spec.ClusterSelector.SelectorType != clusterv1beta2.LabelSelector {
		labelled, err := o.Hub.Clusters.ClusterV1().ManagedClusters().List(ctx, metav1.ListOptions{LabelSelector: clusterv1beta2.ClusterSetLabel + "=" + o.Name})
		if err == nil && len(labelled.Items) > 0 {
			names := make([]string, len(labelled.Items))
			for i := range labelled.Items {
				names[i] = labelled.Items[i].Name
			}
			sort.Strings(names)
			fmt.Fprintf(o.Out, "%s: in no exclusive cluster set now (still labelled %s=%s); move them with 'corral clusterset set SET --clusters %s'\n",
				strings.Join(names, ", "), clusterv1beta2.ClusterSetLabel, o.Name, strings.Join(names, ","))
		}
	}
	return nil
}
