package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/internal/output"
)

// ListOptions are the options of `corral addon list`.
type ListOptions struct {
	Out    io.Writer
	Hub    hubclient.Hub
	Output string
	// Watch prints again after each change, until stopped.
	Watch bool
}

// NewListOptions returns the defaults: a table.
func NewListOptions(out io.Writer) *ListOptions {
	return &ListOptions{Out: out, Hub: hubclient.New()}
}

// NewCmdList returns `corral addon list`.
func NewCmdList(out io.Writer) *cobra.Command {
	o := NewListOptions(out)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the addons the hub knows, where they are enabled, and their health",
		Long: `List the addons the hub knows (its ClusterManagementAddOns): how each is
installed, on which clusters it is enabled and on how many it is Available.
An addon enabled on clusters that the hub no longer knows is listed too.
With -w it prints again after each change to the addons, until stopped
(Ctrl-C).`,
		Example: "  corral addon list\n  corral addon list -o yaml\n  corral addon list -w",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return hubclient.Run(cmd.Context(), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the hub's flags, --output and --watch.
func (o *ListOptions) AddFlags(fs *pflag.FlagSet) {
	o.Hub.AddFlags(fs)
	output.AddFlag(fs, &o.Output)
	hubclient.AddWatchFlag(fs, &o.Watch)
}

// Validate checks the output format.
func (o *ListOptions) Validate() error { return output.Validate(o.Output) }

// Complete builds the hub client.
func (o *ListOptions) Complete() error { return o.Hub.Complete() }

// AddonList is what `corral addon list -o json|yaml` prints.
type AddonList struct {
	Items []AddonState `json:"items"`
}

// Run lists the addons and prints them; with Watch, again after each
// change to the ClusterManagementAddOns or ManagedClusterAddOns.
func (o *ListOptions) Run(ctx context.Context) error {
	if !o.Watch {
		return o.show(ctx)
	}
	return o.Hub.Watch(ctx, o.show, addonKinds...)
}

// addonKinds are what the addon verbs' tables are made of.
var addonKinds = []hubclient.Watched{
	{List: &addonv1alpha1.ClusterManagementAddOnList{}}, {List: &addonv1alpha1.ManagedClusterAddOnList{}},
}

// show lists the addons and prints them.
func (o *ListOptions) show(ctx context.Context) error {
	states, err := listStates(ctx, o.Hub.Client)
	if err != nil {
		return err
	}
	return output.Print(o.Out, o.Output, AddonList{Items: states}, func(w io.Writer) { printList(w, states) })
}

// listStates reads every addon the hub knows or that is enabled somewhere.
func listStates(ctx context.Context, c client.Reader) ([]AddonState, error) {
	cmas := &addonv1alpha1.ClusterManagementAddOnList{}
	if err := c.List(ctx, cmas); err != nil {
		return nil, fmt.Errorf("listing the hub's addons: %w", err)
	}
	mcas := &addonv1alpha1.ManagedClusterAddOnList{}
	if err := c.List(ctx, mcas); err != nil {
		return nil, fmt.Errorf("listing enabled addons: %w", err)
	}
	byAddon := map[string][]addonv1alpha1.ManagedClusterAddOn{}
	for _, mca := range mcas.Items {
		byAddon[mca.Name] = append(byAddon[mca.Name], mca)
	}
	var states []AddonState
	for i := range cmas.Items {
		name := cmas.Items[i].Name
		states = append(states, stateOf(name, &cmas.Items[i], byAddon[name]))
		delete(byAddon, name)
	}
	for name, enabled := range byAddon {
		states = append(states, stateOf(name, nil, enabled))
	}
	slices.SortFunc(states, func(a, b AddonState) int { return strings.Compare(a.Name, b.Name) })
	return states, nil
}

func printList(w io.Writer, states []AddonState) {
	if len(states) == 0 {
		fmt.Fprintln(w, "No addons on this hub yet.")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tINSTALL\tENABLED\tAVAILABLE\tCLUSTERS\tDESCRIPTION")
	for _, s := range states {
		clusters := make([]string, len(s.Clusters))
		for i, c := range s.Clusters {
			clusters[i] = c.Cluster
		}
		install, description := output.OrDash(s.InstallStrategy), output.OrDash(s.Description)
		if !s.Known {
			install, description = "-", "not known to the hub (no ClusterManagementAddOn)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d/%d\t%s\t%s\n", s.Name, install, len(s.Clusters), s.availableCount(), len(s.Clusters),
			output.OrDash(strings.Join(clusters, ",")), description)
	}
	_ = tw.Flush()
}
