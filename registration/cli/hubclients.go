package cli

import (
	"io"

	"k8s.io/client-go/kubernetes"
	clusterclient "open-cluster-management.io/api/client/cluster/clientset/versioned"

	"github.com/corral-dev/corral/internal/kubeflags"
)

// hubOptions are what every verb that works on the hub shares: where it
// prints, which hub (--kubeconfig, --context) and, once completed, the hub
// clients.
type hubOptions struct {
	Out io.Writer
	Hub *kubeflags.Flags

	kube     kubernetes.Interface
	clusters clusterclient.Interface
}

func newHubOptions(out io.Writer) hubOptions {
	return hubOptions{Out: out, Hub: kubeflags.New("hub")}
}

// Complete builds the hub clients.
func (o *hubOptions) Complete() error {
	cfg, err := o.Hub.RESTConfig()
	if err != nil {
		return err
	}
	if o.kube, err = kubernetes.NewForConfig(cfg); err != nil {
		return err
	}
	o.clusters, err = clusterclient.NewForConfig(cfg)
	return err
}
