package agent

import (
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/validation"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/internal/kubeflags"
	regagent "github.com/corral-dev/corral/registration/agent"
	"github.com/corral-dev/corral/registration/common"
)

// ClusterFlags are what every verb run against a managed cluster shares:
// where it prints, the managed cluster (--kubeconfig, --context) and the
// cluster's name on the hub.
type ClusterFlags struct {
	Out         io.Writer
	Managed     *kubeflags.Flags
	ClusterName string
}

func NewClusterFlags(out io.Writer) ClusterFlags {
	return ClusterFlags{Out: out, Managed: kubeflags.New("managed cluster")}
}

func (o *ClusterFlags) AddFlags(fs *pflag.FlagSet) {
	o.Managed.AddFlags(fs)
	fs.StringVar(&o.ClusterName, "cluster-name", o.ClusterName, "the cluster's name on the hub, a DNS-1123 label (required)")
}

// ValidateClusterName says, in one line, what is wrong with --cluster-name.
func (o *ClusterFlags) ValidateClusterName() error {
	if o.ClusterName == "" {
		return fmt.Errorf("--cluster-name is required")
	}
	if err := common.ValidateClusterName(o.ClusterName); err != nil {
		return fmt.Errorf("--cluster-name: %w", err)
	}
	return nil
}

// ValidateHTTPSURL says, in one line, why value of flag is not an https URL.
func ValidateHTTPSURL(flag, value string) error {
	if u, err := url.Parse(value); err != nil || u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("%s %q is not an https URL", flag, value)
	}
	return nil
}

// ClusterMeta are the labels and annotations the agent gives the
// ManagedCluster when it creates it, and only then (the hub admin may
// change them afterwards), as OCM's klusterlet clusterLabels and
// clusterAnnotations.
type ClusterMeta struct {
	ClusterLabels      map[string]string
	ClusterAnnotations map[string]string
}

func (m *ClusterMeta) AddMetaFlags(fs *pflag.FlagSet) {
	fs.StringToStringVar(&m.ClusterLabels, "cluster-labels", nil,
		"labels the ManagedCluster gets when the agent creates it, k=v,... (e.g. to fall in a label-selector cluster set)")
	fs.StringToStringVar(&m.ClusterAnnotations, "cluster-annotations", nil,
		"annotations the ManagedCluster gets when the agent creates it, k=v,..., each key prefixed "+regagent.ClusterAnnotationPrefix)
}

// validate says, in one line, what is wrong with a label or annotation.
func (m *ClusterMeta) ValidateMeta() error {
	for k, v := range m.ClusterLabels {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return fmt.Errorf("--cluster-labels: %q is not a label key: %s", k, errs[0])
		}
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			return fmt.Errorf("--cluster-labels: %q is not a value of label %s: %s", v, k, errs[0])
		}
	}
	for k := range m.ClusterAnnotations {
		name, ok := strings.CutPrefix(k, regagent.ClusterAnnotationPrefix)
		if !ok {
			return fmt.Errorf("--cluster-annotations: %q does not start with %s, the prefix the agent may set", k, regagent.ClusterAnnotationPrefix)
		}
		if errs := validation.IsQualifiedName(name); len(errs) > 0 {
			return fmt.Errorf("--cluster-annotations: %q is not an annotation key: %s", k, errs[0])
		}
	}
	return nil
}

// AddClusterURLFlag adds --cluster-url, the managed cluster's API server
// address the agent declares to the hub, into url.
func AddClusterURLFlag(fs *pflag.FlagSet, url *string) {
	fs.StringVar(url, "cluster-url", "", "https address of the managed cluster's API server, for the hub (its ManagedCluster's managedClusterClientConfigs; optional)")
}

// ClientConfigs is --cluster-url as the ManagedCluster's client configs:
// none when it is empty, an error when it is not an https URL.
func ClientConfigs(url string) ([]clusterv1.ClientConfig, error) {
	if url == "" {
		return nil, nil
	}
	if err := ValidateHTTPSURL("--cluster-url", url); err != nil {
		return nil, err
	}
	return []clusterv1.ClientConfig{{URL: url}}, nil
}
