package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/registration/clientcsr"
	"github.com/corral-dev/corral/registration/common"
)

// ReasonDenied is the reason of CSRs denied by `corral deny`.
const ReasonDenied = "DeniedByHubAdmin"

// DenyOptions are the options of `corral deny`.
type DenyOptions struct {
	Out      io.Writer
	Hub      hubclient.Hub
	Clusters []string
}

// NewDenyOptions returns the defaults.
func NewDenyOptions(out io.Writer) *DenyOptions {
	return &DenyOptions{Out: out, Hub: hubclient.New()}
}

// NewCmdDeny returns `corral deny`.
func NewCmdDeny(out io.Writer) *cobra.Command {
	o := NewDenyOptions(out)
	cmd := &cobra.Command{
		Use:   "deny CLUSTER...",
		Short: "Deny clusters: revoke their access to the hub and deny their pending requests",
		Long: `Deny clusters: set spec.hubAcceptsClient to false, which makes the hub revoke
the cluster's permissions, and deny its pending certificate requests. Its
namespace and what is in it stay; delete the ManagedCluster to remove them.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Clusters = args
			return hubclient.Run(cmd.Context(), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the hub's flags.
func (o *DenyOptions) AddFlags(fs *pflag.FlagSet) { o.Hub.AddFlags(fs) }

// Validate checks the cluster names, and takes each once.
func (o *DenyOptions) Validate() (err error) {
	o.Clusters, err = common.ClusterNames(o.Clusters)
	return err
}

// Complete builds the hub clients.
func (o *DenyOptions) Complete() error { return o.Hub.Complete() }

// Run checks every cluster exists, then denies each.
func (o *DenyOptions) Run(ctx context.Context) error {
	var errs []error
	for _, name := range o.Clusters {
		if _, err := o.Hub.Clusters.ClusterV1().ManagedClusters().Get(ctx, name, metav1.GetOptions{}); apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("there is no ManagedCluster %s on the hub", name))
		} else if err != nil {
			errs = append(errs, err)
		}
	}
	if err := oneLine(errs); err != nil {
		return fmt.Errorf("nothing was changed: %w", err)
	}
	for _, name := range o.Clusters {
		if err := setHubAcceptsClient(ctx, o.Hub.Clusters, name, false); err != nil {
			return err
		}
		if err := o.denyPending(ctx, name); err != nil {
			return err
		}
		fmt.Fprintf(o.Out, "%s: denied\n", name)
	}
	return nil
}

func (o *DenyOptions) denyPending(ctx context.Context, name string) error {
	pending, err := pendingCSRs(ctx, o.Hub.Kube, name)
	if err != nil {
		return err
	}
	for _, csr := range pending {
		clientcsr.Deny(csr, ReasonDenied, "denied by a hub admin with corral deny")
		if _, err := o.Hub.Kube.CertificatesV1().CertificateSigningRequests().UpdateApproval(ctx, csr.Name, csr, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("denying %s: %w", csr.Name, err)
		}
		fmt.Fprintf(o.Out, "%s: denied request %s\n", name, csr.Name)
	}
	return nil
}
