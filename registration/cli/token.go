package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/corral-dev/corral/internal/kubeflags"
	"github.com/corral-dev/corral/registration/bootstrap"
)

// TokenOptions are the options of `corral get token`; `corral init` ends
// with the same.
type TokenOptions struct {
	Out      io.Writer
	Hub      *kubeflags.Flags
	TokenTTL time.Duration

	config *rest.Config
}

// NewTokenOptions returns the defaults: a one-hour bootstrap token.
func NewTokenOptions(out io.Writer) *TokenOptions {
	return &TokenOptions{Out: out, Hub: kubeflags.New("hub"), TokenTTL: time.Hour}
}

// NewCmdGetToken returns `corral get token`.
func NewCmdGetToken(out io.Writer) *cobra.Command {
	o := NewTokenOptions(out)
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Print the 'corral join' line, with a fresh bootstrap token, that a cluster joins with",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			if err := o.Complete(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	o.AddFlags(cmd, "how long the token is valid (at least 10m)")
	return cmd
}

// AddFlags registers --kubeconfig, --context and --token-ttl.
func (o *TokenOptions) AddFlags(cmd *cobra.Command, ttlHelp string) {
	o.Hub.AddFlags(cmd.Flags())
	cmd.Flags().DurationVar(&o.TokenTTL, "token-ttl", o.TokenTTL, ttlHelp)
}

// Validate refuses what the API server would: tokens under 10m.
func (o *TokenOptions) Validate() error {
	if o.TokenTTL < 10*time.Minute {
		return fmt.Errorf("--token-ttl is %s: the API server issues tokens for at least 10m", o.TokenTTL)
	}
	return nil
}

// Complete loads the hub's client configuration.
func (o *TokenOptions) Complete() error {
	cfg, err := o.Hub.RESTConfig()
	o.config = cfg
	return err
}

// Run issues a bootstrap token and prints the join line with it.
func (o *TokenOptions) Run(ctx context.Context) error {
	kube, err := kubernetes.NewForConfig(o.config)
	if err != nil {
		return err
	}
	token, until, err := bootstrap.TokenUntil(ctx, kube, int64(o.TokenTTL.Seconds()))
	if err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "  corral join --hub-apiserver %s --hub-token %s --cluster-name <cluster-name>\n", o.config.Host, token)
	left := time.Until(until).Round(time.Minute)
	valid := fmt.Sprintf("for %s (until %s)", left, until.UTC().Format(time.RFC3339))
	if left < o.TokenTTL-time.Minute {
		valid += fmt.Sprintf(", not the %s asked for: the hub's API server caps its tokens' lifetime", o.TokenTTL)
	}
	fmt.Fprintf(o.Out, "(run it against the managed cluster; the token is valid %s, 'corral get token' issues another)\n", valid)
	return nil
}
