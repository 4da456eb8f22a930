package cli

import (
	"fmt"
	"io"
	"net/url"

	"github.com/spf13/pflag"

	"github.com/corral-dev/corral/internal/kubeflags"
	"github.com/corral-dev/corral/registration/agent"
)

// managedOptions are what every verb run against a managed cluster shares:
// where it prints, the managed cluster (--kubeconfig, --context) and the
// cluster's name on the hub.
type managedOptions struct {
	Out         io.Writer
	Managed     *kubeflags.Flags
	ClusterName string
}

func newManagedOptions(out io.Writer) managedOptions {
	return managedOptions{Out: out, Managed: kubeflags.New("managed cluster")}
}

func (o *managedOptions) addFlags(fs *pflag.FlagSet) {
	o.Managed.AddFlags(fs)
	fs.StringVar(&o.ClusterName, "cluster-name", o.ClusterName, "the cluster's name on the hub, a DNS-1123 label (required)")
}

// validateClusterName says, in one line, what is wrong with --cluster-name.
func (o *managedOptions) validateClusterName() error {
	if o.ClusterName == "" {
		return fmt.Errorf("--cluster-name is required")
	}
	if err := agent.ValidateClusterName(o.ClusterName); err != nil {
		return fmt.Errorf("--cluster-name: %w", err)
	}
	return nil
}

// validateHTTPSURL says, in one line, why value of flag is not an https URL.
func validateHTTPSURL(flag, value string) error {
	if u, err := url.Parse(value); err != nil || u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("%s %q is not an https URL", flag, value)
	}
	return nil
}
