// Package kubeflags is how every corral verb says which cluster it talks to:
// --kubeconfig and --context, with kubectl's defaults ($KUBECONFIG, then
// ~/.kube/config, then the in-cluster config).
package kubeflags

import (
	"fmt"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Flags name a cluster.
type Flags struct {
	Kubeconfig string
	Context    string
	// what says which cluster the flags are for, in help and errors ("hub").
	what string
}

// New returns flags for the cluster described by what, e.g. "hub".
func New(what string) *Flags { return &Flags{what: what} }

// AddFlags registers --kubeconfig and --context.
func (f *Flags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.Kubeconfig, "kubeconfig", f.Kubeconfig, fmt.Sprintf("kubeconfig of the %s (default: $KUBECONFIG, then ~/.kube/config)", f.what))
	fs.StringVar(&f.Context, "context", f.Context, "kubeconfig context to use (default: the current one)")
}

// RESTConfig loads the client configuration, or says in one line what is
// missing.
func (f *Flags) RESTConfig() (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = f.Kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules,
		&clientcmd.ConfigOverrides{CurrentContext: f.Context}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("no usable kubeconfig for the %s (%w): pass --kubeconfig or set KUBECONFIG", f.what, err)
	}
	return cfg, nil
}
