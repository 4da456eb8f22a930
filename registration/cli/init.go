package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/deploy/crds"
	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/registration/bootstrap"
	"github.com/corral-dev/corral/registration/hub/managedcluster"
)

// InitOptions are the options of `corral init`: it ends as `corral get
// token` does.
type InitOptions struct {
	TokenOptions
}

// NewInitOptions returns the defaults: a one-hour bootstrap token.
func NewInitOptions(out io.Writer) *InitOptions {
	return &InitOptions{TokenOptions: *NewTokenOptions(out)}
}

// NewCmdInit returns `corral init`.
func NewCmdInit(out io.Writer) *cobra.Command {
	o := NewInitOptions(out)
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Make a Kubernetes cluster a corral hub and print a bootstrap token",
		Long: `Make a Kubernetes cluster a corral hub: install the Open Cluster Management
CRDs, the roles every cluster namespace binds, and the bootstrap identity new
clusters use to ask to join. Then print the 'corral join' line, with a
bootstrap token, that a cluster joins with.

Safe to run again. The hub's controllers run with 'corral hub', which also
serves the admission webhooks and registers their configurations with the
hub: init installs none, since a webhook configuration with no server behind
it would refuse every ManagedCluster write.`,
		Example: "  corral init --kubeconfig ~/.corral/dev/hub/kubeconfig",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return hubclient.Run(cmd.Context(), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the hub's flags and --token-ttl.
func (o *InitOptions) AddFlags(fs *pflag.FlagSet) {
	o.addFlags(fs, "how long the printed bootstrap token is valid (at least 10m)")
}

// Run installs what a hub needs and prints the join line.
func (o *InitOptions) Run(ctx context.Context) error {
	if err := InstallHub(ctx, o.Hub.Config, o.Out); err != nil {
		return err
	}
	fmt.Fprintln(o.Out, "\nThe hub is ready. A cluster's agent asks to join with:")
	return o.TokenOptions.Run(ctx)
}

// InstallHub installs what `corral init` does — the CRDs, the shared
// cluster roles, the bootstrap identity — saying each step on out.
func InstallHub(ctx context.Context, cfg *rest.Config, out io.Writer) error {
	fmt.Fprintf(out, "installing the Open Cluster Management CRDs on %s\n", cfg.Host)
	if err := crds.Install(ctx, cfg); err != nil {
		return err
	}
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "installing the roles cluster namespaces bind")
	for _, role := range managedcluster.SharedClusterRoles() {
		if err := c.Apply(ctx, role, client.FieldOwner(managedcluster.FieldOwner), client.ForceOwnership); err != nil {
			return fmt.Errorf("cluster role %s: %w", *role.Name, err)
		}
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "installing the bootstrap identity %s\n", bootstrap.User)
	if err := bootstrap.Install(ctx, kube); err != nil {
		return err
	}
	fmt.Fprintf(out, "publishing the hub's address and CA in %s/%s\n", bootstrap.ClusterInfoNamespace, bootstrap.ClusterInfoName)
	return bootstrap.PublishClusterInfo(ctx, kube, cfg)
}
