package testenv

import (
	"context"
	"fmt"
	"io"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	cpv1alpha1 "sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/dev/localcluster"
	"github.com/corral-dev/corral/internal/hubclient"
	registrationcli "github.com/corral-dev/corral/registration/cli"
)

// Scheme has every type the suites read and write: the CLI's
// (hubclient.Scheme), and the addon API's v1beta1, CRDs and
// ClusterProfiles.
func Scheme() (*runtime.Scheme, error) {
	s, err := hubclient.Scheme()
	if err != nil {
		return nil, err
	}
	for _, install := range []func(*runtime.Scheme) error{addonv1beta1.Install, apiextensionsv1.AddToScheme, cpv1alpha1.AddToScheme} {
		if err := install(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Client is a client of the API server at cfg over Scheme.
func Client(cfg *rest.Config) (client.Client, error) {
	s, err := Scheme()
	if err != nil {
		return nil, err
	}
	return client.New(cfg, client.Options{Scheme: s})
}

// StartHubCluster starts a hub control plane in dir (etcd, kube-apiserver
// and the controller-manager that signs CSRs, deletes namespaces and
// collects garbage) and installs on it what `corral init` does.
func StartHubCluster(ctx context.Context, dir string, progress io.Writer) (*localcluster.Cluster, error) {
	c, err := localcluster.Start(ctx, localcluster.Options{Name: "hub", Profile: localcluster.ProfileHub, Dir: dir, Progress: progress})
	if err != nil {
		return nil, err
	}
	if err := registrationcli.InstallHub(ctx, c.Config, progress); err != nil {
		return nil, stopAfter(err, c)
	}
	return c, nil
}

// stopAfter stops c after err, and says so if that failed too.
func stopAfter(err error, c *localcluster.Cluster) error {
	if stopErr := c.Stop(); stopErr != nil {
		return fmt.Errorf("%w (and stopping the cluster: %w)", err, stopErr)
	}
	return err
}
