package cli

import (
	"fmt"
	"io"
	"net/url"

	"github.com/spf13/pflag"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/internal/kubeflags"
	"github.com/corral-dev/corral/registration/common"
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
	if err := common.ValidateClusterName(o.ClusterName); err != nil {
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

// addClusterURLFlag adds --cluster-url, the managed cluster's API server
// address the agent declares to the hub, into url.
func addClusterURLFlag(fs *pflag.FlagSet, url *string) {
	fs.StringVar(url, "cluster-url", "", "https address of the managed cluster's API server, for the hub (its ManagedCluster's managedClusterClientConfigs; optional)")
}

// clientConfigs is --cluster-url as the ManagedCluster's client configs:
// none when it is empty, an error when it is not an https URL.
func clientConfigs(url string) ([]clusterv1.ClientConfig, error) {
	if url == "" {
		return nil, nil
	}
	if err := validateHTTPSURL("--cluster-url", url); err != nil {
		return nil, err
	}
	return []clusterv1.ClientConfig{{URL: url}}, nil
}
