package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/registration/agent"
	"github.com/corral-dev/corral/registration/bootstrap"
)

// TokenOptions are the options of `corral get token`; `corral init` ends
// with the same.
type TokenOptions struct {
	Out      io.Writer
	Hub      hubclient.Hub
	TokenTTL time.Duration
	// KubeconfigFile, when set, also receives the bootstrap kubeconfig
	// (the hub's address and CA, and the token), for the agent chart's
	// bootstrapHubKubeconfig.
	KubeconfigFile string
}

// NewTokenOptions returns the defaults: a one-hour bootstrap token.
func NewTokenOptions(out io.Writer) *TokenOptions {
	return &TokenOptions{Out: out, Hub: hubclient.New(), TokenTTL: time.Hour}
}

// NewCmdGetToken returns `corral get token`.
func NewCmdGetToken(out io.Writer) *cobra.Command {
	o := NewTokenOptions(out)
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Print the 'corral join' line, with a fresh bootstrap token, that a cluster joins with",
		Long: `Print the 'corral join' line, with a fresh bootstrap token, that a cluster
joins with. --bootstrap-kubeconfig also writes the kubeconfig the agent
joins with (the hub's address and CA, and the token), for installing the
agent with Helm: helm install ... --set-file bootstrapHubKubeconfig=FILE.`,
		Example: "  corral get token\n  corral get token --bootstrap-kubeconfig bootstrap.kubeconfig",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return hubclient.Run(cmd.Context(), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the hub's flags and --token-ttl.
func (o *TokenOptions) AddFlags(fs *pflag.FlagSet) {
	o.addFlags(fs, "how long the token is valid (at least 10m)")
	fs.StringVar(&o.KubeconfigFile, "bootstrap-kubeconfig", "", "also write the bootstrap kubeconfig (hub address, CA, token) to this file, for the agent chart")
}

// addFlags registers the hub's flags and --token-ttl, saying ttlHelp.
func (o *TokenOptions) addFlags(fs *pflag.FlagSet, ttlHelp string) {
	o.Hub.AddFlags(fs)
	fs.DurationVar(&o.TokenTTL, "token-ttl", o.TokenTTL, ttlHelp)
}

// Validate refuses what the API server would: tokens under 10m.
func (o *TokenOptions) Validate() error {
	if o.TokenTTL < 10*time.Minute {
		return fmt.Errorf("--token-ttl is %s: the API server issues tokens for at least 10m", o.TokenTTL)
	}
	return nil
}

// Complete builds the hub clients.
func (o *TokenOptions) Complete() error { return o.Hub.Complete() }

// Run issues a bootstrap token and prints the join line with it.
func (o *TokenOptions) Run(ctx context.Context) error {
	token, until, err := bootstrap.TokenUntil(ctx, o.Hub.Kube, int64(o.TokenTTL.Seconds()))
	if err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "  corral join --hub-apiserver %s --hub-token %s --cluster-name <cluster-name>\n", o.Hub.Config.Host, token)
	if o.KubeconfigFile != "" {
		if err := o.writeKubeconfig(token); err != nil {
			return err
		}
	}
	left := time.Until(until).Round(time.Minute)
	valid := fmt.Sprintf("for %s (until %s)", left, until.UTC().Format(time.RFC3339))
	if left < o.TokenTTL-time.Minute {
		valid += fmt.Sprintf(", not the %s asked for: the hub's API server caps its tokens' lifetime", o.TokenTTL)
	}
	fmt.Fprintf(o.Out, "(run it against the managed cluster; the token is valid %s, 'corral get token' issues another)\n", valid)
	return nil
}

// writeKubeconfig writes the bootstrap kubeconfig of token to
// KubeconfigFile, readable by its owner only: it holds the token.
func (o *TokenOptions) writeKubeconfig(token string) error {
	ca, err := bootstrap.CAData(o.Hub.Config)
	if err != nil {
		return err
	}
	kubeconfig, err := agent.BootstrapKubeconfig(o.Hub.Config.Host, ca, token)
	if err != nil {
		return err
	}
	if err := os.WriteFile(o.KubeconfigFile, kubeconfig, 0o600); err != nil {
		return fmt.Errorf("--bootstrap-kubeconfig: %w", err)
	}
	fmt.Fprintf(o.Out, "(the bootstrap kubeconfig, with the same token, is in %s)\n", o.KubeconfigFile)
	return nil
}
