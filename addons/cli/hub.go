package cli

import (
	"io"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/internal/kubeflags"
)

// hubOptions are what every addon verb shares: where it prints, which hub
// (--kubeconfig, --context) and, once completed, the hub client.
type hubOptions struct {
	Out io.Writer
	Hub *kubeflags.Flags

	client client.Client
}

func newHubOptions(out io.Writer) hubOptions {
	return hubOptions{Out: out, Hub: kubeflags.New("hub")}
}

// Complete builds the hub client, unless one was given (tests).
func (o *hubOptions) Complete() error {
	if o.client != nil {
		return nil
	}
	cfg, err := o.Hub.RESTConfig()
	if err != nil {
		return err
	}
	scheme, err := Scheme()
	if err != nil {
		return err
	}
	o.client, err = client.New(cfg, client.Options{Scheme: scheme})
	return err
}

// Scheme holds the kinds `corral addon` reads and writes.
func Scheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, install := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme, clusterv1.Install, clusterv1beta1.Install, clusterv1beta2.Install, addonv1alpha1.Install,
	} {
		if err := install(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// NewCmdAddon returns `corral addon` and its verbs; builtins are the
// built-in addons, whose configs enable checks.
func NewCmdAddon(out io.Writer, builtins ...addons.Addon) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "addon",
		Short: "List, enable, disable and inspect addons on the hub's clusters",
		Long: `Addons are everything beyond registration. The hub knows an addon by its
ClusterManagementAddOn; enabling it on a cluster creates a ManagedClusterAddOn
in the cluster's namespace, and the addon's agent then runs on that cluster.`,
	}
	cmd.AddCommand(NewCmdList(out), NewCmdEnable(out, builtins...), NewCmdDisable(out), NewCmdStatus(out))
	return cmd
}
