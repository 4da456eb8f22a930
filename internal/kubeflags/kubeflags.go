// Package kubeflags is how every corral verb says which cluster it talks to:
// --kubeconfig and --context, with kubectl's defaults ($KUBECONFIG, then
// ~/.kube/config, then the in-cluster config).
package kubeflags

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/corral-dev/corral/internal/devdir"
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
	if clientcmd.IsEmptyConfig(err) {
		return nil, fmt.Errorf("no kubeconfig for the %s: pass --kubeconfig or set KUBECONFIG%s", f.what, f.localFleetHint())
	}
	if err != nil {
		return nil, fmt.Errorf("no usable kubeconfig for the %s (%w): pass --kubeconfig or set KUBECONFIG", f.what, err)
	}
	return cfg, nil
}

// localFleetHint points at the local fleet's kubeconfig when one is there:
// the hub's for the hub, and the managed clusters' otherwise.
func (f *Flags) localFleetHint() string {
	dir := devdir.Dir()
	name := "hub"
	if f.what != "hub" {
		name = "cluster1"
	}
	path := filepath.Join(dir, name, "kubeconfig")
	if _, err := os.Stat(path); err != nil {
		return ""
	}
	if name == "hub" {
		return fmt.Sprintf(" (the local fleet's hub: --kubeconfig %s)", path)
	}
	return fmt.Sprintf(" (a local fleet's cluster: --kubeconfig %s)", path)
}
