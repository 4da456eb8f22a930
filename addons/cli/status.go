package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/internal/output"
)

// StatusOptions are the options of `corral addon status`.
type StatusOptions struct {
	Out    io.Writer
	Hub    hubclient.Hub
	Addon  string
	Output string
	// Watch prints again after each change, until stopped.
	Watch bool
}

// NewStatusOptions returns the defaults: a table.
func NewStatusOptions(out io.Writer) *StatusOptions {
	return &StatusOptions{Out: out, Hub: hubclient.New()}
}

// NewCmdStatus returns `corral addon status`.
func NewCmdStatus(out io.Writer) *cobra.Command {
	o := NewStatusOptions(out)
	cmd := &cobra.Command{
		Use:   "status ADDON",
		Short: "Show an addon's state on every cluster it is enabled on",
		Long: `Show an addon's state on every cluster it is enabled on: its Available,
Degraded and Progressing conditions, its registrations (the hub identities its
agent asks for) with whether their permissions and certificates are ready, and
what is wrong, if anything. For an addon installed by placements, it also says
how far each placement has rolled the addon's configs out. With -w it prints
again after each change to the addon, until stopped (Ctrl-C).`,
		Example: "  corral addon status hello\n  corral addon status hello -o json\n  corral addon status hello -w",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Addon = args[0]
			return hubclient.Run(cmd.Context(), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the hub's flags, --output and --watch.
func (o *StatusOptions) AddFlags(fs *pflag.FlagSet) {
	o.Hub.AddFlags(fs)
	output.AddFlag(fs, &o.Output)
	hubclient.AddWatchFlag(fs, &o.Watch)
}

// Validate checks the addon name and output format.
func (o *StatusOptions) Validate() error {
	if err := validateAddonNames([]string{o.Addon}); err != nil {
		return err
	}
	return output.Validate(o.Output)
}

// Complete builds the hub client.
func (o *StatusOptions) Complete() error { return o.Hub.Complete() }

// Run reads the addon and prints its state per cluster; with Watch, again
// after each change to the addon's objects.
func (o *StatusOptions) Run(ctx context.Context) error {
	if !o.Watch {
		return o.show(ctx)
	}
	return o.Hub.Watch(ctx, o.show, addonKinds...)
}

// show reads the addon and prints its state per cluster.
func (o *StatusOptions) show(ctx context.Context) error {
	var cma *addonv1alpha1.ClusterManagementAddOn
	got := &addonv1alpha1.ClusterManagementAddOn{}
	switch err := o.Hub.Client.Get(ctx, client.ObjectKey{Name: o.Addon}, got); {
	case err == nil:
		cma = got
	case !apierrors.IsNotFound(err):
		return fmt.Errorf("reading addon %s: %w", o.Addon, err)
	}
	mcas := &addonv1alpha1.ManagedClusterAddOnList{}
	if err := o.Hub.Client.List(ctx, mcas); err != nil {
		return fmt.Errorf("listing enabled addons: %w", err)
	}
	var enabled []addonv1alpha1.ManagedClusterAddOn
	for _, mca := range mcas.Items {
		if mca.Name == o.Addon {
			enabled = append(enabled, mca)
		}
	}
	if cma == nil && len(enabled) == 0 {
		return fmt.Errorf("the hub has no addon %s (no ClusterManagementAddOn, enabled nowhere): see corral addon list", o.Addon)
	}
	state := stateOf(o.Addon, cma, enabled)
	return output.Print(o.Out, o.Output, state, func(w io.Writer) { printStatus(w, state) })
}

func printStatus(w io.Writer, s AddonState) {
	if !s.Known {
		fmt.Fprintf(w, "Addon %s is not known to the hub (no ClusterManagementAddOn) but is enabled on clusters:\n", s.Name)
	}
	if s.Template {
		fmt.Fprintf(w, "Note: %s.\n", templateNotice(s.Name))
	}
	if len(s.Clusters) == 0 {
		fmt.Fprintf(w, "Addon %s is not enabled on any cluster: corral addon enable %s --clusters ...\n", s.Name, s.Name)
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CLUSTER\tAVAILABLE\tDEGRADED\tPROGRESSING\tREGISTRATIONS\tCREDENTIALS\tMESSAGE")
	for _, c := range s.Clusters {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.Cluster, output.OrDash(c.Available), output.OrDash(c.Degraded), output.OrDash(c.Progressing),
			output.OrDash(strings.Join(c.Registrations, ",")), c.Credentials, c.Message)
	}
	_ = tw.Flush()
	for _, r := range s.Rollouts {
		fmt.Fprintf(w, "Configs rolled out by placement %s: %s (%s)\n", r.Placement, r.Status, r.Message)
	}
}
