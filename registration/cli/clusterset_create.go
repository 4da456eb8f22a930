package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"

	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/registration/common"
)

// ClusterSetCreateOptions are the options of `corral clusterset create`.
type ClusterSetCreateOptions struct {
	Out io.Writer
	Hub hubclient.Hub
	// Name is the set to create.
	Name string
	// SelectorType is ExclusiveClusterSetLabel or LabelSelector; empty
	// means LabelSelector when LabelSelector is given, else exclusive.
	SelectorType string
	// LabelSelector selects a LabelSelector set's clusters, in kubectl's
	// -l syntax.
	LabelSelector string

	selector clusterv1beta2.ManagedClusterSelector
}

// NewClusterSetCreateOptions returns the defaults.
func NewClusterSetCreateOptions(out io.Writer) *ClusterSetCreateOptions {
	return &ClusterSetCreateOptions{Out: out, Hub: hubclient.New()}
}

// NewCmdClusterSetCreate returns `corral clusterset create`.
func NewCmdClusterSetCreate(out io.Writer) *cobra.Command {
	o := NewClusterSetCreateOptions(out)
	cmd := &cobra.Command{
		Use:   "create SET",
		Short: "Create a cluster set",
		Long: `Create a ManagedClusterSet. By default it is an exclusive set: put clusters
in it with 'corral clusterset set SET --clusters …'. With --label-selector it
holds every cluster whose labels match, whichever exclusive set it is in.
Safe to run again with the same flags.`,
		Example: `  corral clusterset create prod
  corral clusterset create eu --label-selector region=eu
  corral clusterset create big --selector-type LabelSelector --label-selector 'size in (l,xl)'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return hubclient.Run(cmd.Context(), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the hub's flags, --selector-type and --label-selector.
func (o *ClusterSetCreateOptions) AddFlags(fs *pflag.FlagSet) {
	o.Hub.AddFlags(fs)
	fs.StringVar(&o.SelectorType, "selector-type", o.SelectorType,
		"ExclusiveClusterSetLabel or LabelSelector (default: LabelSelector with --label-selector, else ExclusiveClusterSetLabel)")
	fs.StringVar(&o.LabelSelector, "label-selector", o.LabelSelector, "the clusters a LabelSelector set holds, e.g. env=prod,region in (eu,us)")
}

// Validate checks the name and works out the set's selector.
func (o *ClusterSetCreateOptions) Validate() error {
	if err := common.ValidateClusterSetName(o.Name); err != nil {
		return err
	}
	switch clusterv1beta2.SelectorType(o.SelectorType) {
	case "":
		if o.LabelSelector == "" {
			o.selector = clusterv1beta2.ManagedClusterSelector{SelectorType: clusterv1beta2.ExclusiveClusterSetLabel}
			return nil
		}
	case clusterv1beta2.ExclusiveClusterSetLabel:
		if o.LabelSelector != "" {
			return fmt.Errorf("--label-selector is for LabelSelector sets: an ExclusiveClusterSetLabel set holds the clusters labelled %s=%s", clusterv1beta2.ClusterSetLabel, o.Name)
		}
		o.selector = clusterv1beta2.ManagedClusterSelector{SelectorType: clusterv1beta2.ExclusiveClusterSetLabel}
		return nil
	case clusterv1beta2.LabelSelector:
		if o.LabelSelector == "" {
			return fmt.Errorf("a LabelSelector set needs --label-selector (e.g. env=prod); the global set already holds every cluster")
		}
	default:
		return fmt.Errorf("--selector-type %q is not a selector type: use %s or %s", o.SelectorType, clusterv1beta2.ExclusiveClusterSetLabel, clusterv1beta2.LabelSelector)
	}
	sel, err := metav1.ParseToLabelSelector(o.LabelSelector)
	if err != nil {
		return fmt.Errorf("--label-selector %q: %w", o.LabelSelector, err)
	}
	o.selector = clusterv1beta2.ManagedClusterSelector{SelectorType: clusterv1beta2.LabelSelector, LabelSelector: sel}
	return nil
}

// Complete builds the hub clients.
func (o *ClusterSetCreateOptions) Complete() error { return o.Hub.Complete() }

// Run creates the set; an existing set with the same selector is fine, one
// with another selector is an error.
func (o *ClusterSetCreateOptions) Run(ctx context.Context) error {
	set := &clusterv1beta2.ManagedClusterSet{
		ObjectMeta: metav1.ObjectMeta{Name: o.Name},
		Spec:       clusterv1beta2.ManagedClusterSetSpec{ClusterSelector: o.selector},
	}
	_, err := o.Hub.Clusters.ClusterV1beta2().ManagedClusterSets().Create(ctx, set, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		existing, err := getSet(ctx, o.Hub.Client, o.Name)
		if err != nil {
			return err
		}
		if !equality.Semantic.DeepEqual(existing.Spec.ClusterSelector, o.selector) {
			return fmt.Errorf("cluster set %s already exists and selects %s: delete it first, or pick another name", o.Name, describeSelector(existing))
		}
		fmt.Fprintf(o.Out, "cluster set %s already exists\n", o.Name)
		return nil
	}
	if err != nil {
		return fmt.Errorf("creating cluster set %s: %w", o.Name, err)
	}
	fmt.Fprintf(o.Out, "cluster set %s created\n", o.Name)
	if o.selector.SelectorType == clusterv1beta2.ExclusiveClusterSetLabel {
		fmt.Fprintf(o.Out, "put clusters in it with: corral clusterset set %s --clusters CLUSTER,...\n", o.Name)
	}
	return nil
}
