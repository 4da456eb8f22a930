package cli

import (
	"io"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/kubeflags"
	workhub "github.com/corral-dev/corral/work/hub"
)

// hub is what every work verb shares: where it prints, which hub, and
// (once completed, or given by a test) the hub client.
type hub struct {
	Out   io.Writer
	Flags *kubeflags.Flags

	client client.Client
}

func newHub(out io.Writer) hub { return hub{Out: out, Flags: kubeflags.New("hub")} }

// complete builds the hub client unless a test gave one.
func (h *hub) complete() error {
	if h.client != nil {
		return nil
	}
	cfg, err := h.Flags.RESTConfig()
	if err != nil {
		return err
	}
	scheme, err := Scheme()
	if err != nil {
		return err
	}
	h.client, err = client.New(cfg, client.Options{Scheme: scheme})
	return err
}

// Scheme holds the kinds `corral work` reads and writes.
func Scheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, install := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, clusterv1.Install, addonv1alpha1.Install, workhub.AddToScheme} {
		if err := install(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// NewCmdWork returns `corral work` and its verbs.
func NewCmdWork(out io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "work",
		Short: "Deliver Kubernetes objects to clusters as ManifestWorks, and see how they fare",
		Long: `A ManifestWork in a cluster's namespace on the hub holds Kubernetes objects
the work addon's agent applies to that cluster, reporting back their status.
A ManifestWorkReplicaSet makes one ManifestWork per cluster a Placement
selects, following the placement as its decisions change.`,
	}
	cmd.AddCommand(NewCmdCreate(out), NewCmdApply(out), NewCmdGet(out), NewCmdDelete(out))
	return cmd
}
