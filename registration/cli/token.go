package cli

import (
	"context"
	"io"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"

	"github.com/corral-dev/corral/internal/kubeflags"
)

// TokenOptions are the options of `corral get token`.
type TokenOptions struct {
	Out      io.Writer
	Hub      *kubeflags.Flags
	TokenTTL time.Duration
}

// NewCmdGetToken returns `corral get token`.
func NewCmdGetToken(out io.Writer) *cobra.Command {
	o := &TokenOptions{Out: out, Hub: kubeflags.New("hub"), TokenTTL: time.Hour}
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Print the 'corral join' line, with a fresh bootstrap token, that a cluster joins with",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := validateTokenTTL(o.TokenTTL); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	o.Hub.AddFlags(cmd.Flags())
	cmd.Flags().DurationVar(&o.TokenTTL, "token-ttl", o.TokenTTL, "how long the token is valid (at least 10m)")
	return cmd
}

// Run prints the hub address with a new token.
func (o *TokenOptions) Run(ctx context.Context) error {
	cfg, err := o.Hub.RESTConfig()
	if err != nil {
		return err
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	return printToken(ctx, o.Out, kube, cfg.Host, o.TokenTTL)
}
