// Package hubclient is how every corral verb that works on the hub reaches
// it: which hub (--kubeconfig and --context, as internal/kubeflags reads
// them), the clients the verbs use, built from one scheme that holds every
// kind they read and write, and the one order a verb's options are
// validated, completed and run in.
package hubclient

import (
	"context"
	"errors"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterclient "open-cluster-management.io/api/client/cluster/clientset/versioned"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/kubeflags"
	propagationv1alpha1 "github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// Hub is which hub a verb talks to and, once completed, its clients.
type Hub struct {
	// Flags are --kubeconfig and --context.
	*kubeflags.Flags

	// Config and the clients are what Complete builds. A test gives the
	// clients it needs instead.
	Config *rest.Config
	// Kube and Clusters are the typed clientsets of Kubernetes' and Open
	// Cluster Management's cluster APIs.
	Kube     kubernetes.Interface
	Clusters clusterclient.Interface
	// Client reads, writes and watches every kind of Scheme.
	Client client.WithWatch
}

// New returns the hub's flags, with kubectl's defaults.
func New() Hub { return Hub{Flags: kubeflags.New("hub")} }

// Complete loads the hub's client configuration and builds the clients,
// unless a test gave them.
func (h *Hub) Complete() error {
	if h.Kube != nil || h.Clusters != nil || h.Client != nil {
		return nil
	}
	cfg, err := h.RESTConfig()
	if err != nil {
		return err
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	clusters, err := clusterclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	scheme, err := Scheme()
	if err != nil {
		return err
	}
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	h.Config, h.Kube, h.Clusters, h.Client = cfg, kube, clusters, c
	return nil
}

// Scheme holds every kind the corral verbs read and write on the hub.
func Scheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, install := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme,
		clusterv1.Install, clusterv1alpha1.Install, clusterv1beta1.Install, clusterv1beta2.Install,
		addonv1alpha1.Install,
		workv1.Install, workv1alpha1.Install,
		propagationv1alpha1.Install,
	} {
		if err := install(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Verb is a verb's options, kubectl style: Validate checks the flags and
// arguments, each problem in one line; Complete builds what Run needs from
// them (the hub's clients); Run does the work.
type Verb interface {
	Validate() error
	Complete() error
	Run(ctx context.Context) error
}

// Run validates, completes and runs v: the one order every verb follows.
// Validate comes first, so that a mistake in the flags is told without a
// hub to ask, or before a kubeconfig that is missing.
func Run(ctx context.Context, v Verb) error {
	if err := v.Validate(); err != nil {
		return err
	}
	if err := v.Complete(); err != nil {
		return err
	}
	return notAHub(v.Run(ctx))
}

// notAHub says plainly what err means when the cluster asked does not
// serve the Open Cluster Management APIs at all: a managed cluster's
// kubeconfig passed as the hub's, or a cluster 'corral init' has not run
// on. Any other error is returned as it is.
func notAHub(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	unserved := meta.IsNoMatchError(err) ||
		apierrors.IsNotFound(err) && strings.Contains(msg, "the server could not find the requested resource")
	if unserved && strings.Contains(msg, "apps.corral.dev") {
		return errors.New("this hub does not serve corral's propagation API (apps.corral.dev): " +
			"the propagation addon is not installed on it yet (see docs/propagation.md for its status)")
	}
	if !unserved || !strings.Contains(msg, "open-cluster-management.io") {
		return err
	}
	return errors.New("this cluster does not serve the Open Cluster Management APIs: it is not a corral or OCM hub " +
		"(is --kubeconfig a managed cluster's?), or 'corral init' has not run on it")
}
