// Package testenv starts the control planes integration suites run on:
// envtest (one kube-apiserver and etcd) from the binaries `make tools` puts in
// bin/, with the OCM CRDs installed. Suites that need a whole cluster (a
// controller-manager, a scheduler, nodes) use internal/localcluster instead.
package testenv

import (
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/corral-dev/corral/deploy/crds"
	"github.com/corral-dev/corral/internal/localcluster"
)

// AssetsEnv is the variable envtest reads for its binaries.
const AssetsEnv = "KUBEBUILDER_ASSETS"

// Environment returns an envtest environment on bin/ (or
// $KUBEBUILDER_ASSETS) that installs every OCM CRD.
func Environment() (*envtest.Environment, error) {
	dir := os.Getenv(AssetsEnv)
	if dir == "" {
		var err error
		if dir, err = localcluster.FindBinDir(); err != nil {
			return nil, err
		}
	}
	for _, name := range []string{"etcd", "kube-apiserver"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return nil, fmt.Errorf("%w (%s not found in %s)", localcluster.ErrToolsMissing, name, dir)
		}
	}
	all, err := crds.All()
	if err != nil {
		return nil, err
	}
	return &envtest.Environment{
		BinaryAssetsDirectory: dir,
		CRDInstallOptions: envtest.CRDInstallOptions{
			CRDs: all,
		},
	}, nil
}

// Start starts Environment and returns it with an admin config.
func Start() (*envtest.Environment, *rest.Config, error) {
	env, err := Environment()
	if err != nil {
		return nil, nil, err
	}
	cfg, err := env.Start()
	if err != nil {
		return nil, nil, fmt.Errorf("starting envtest from %s: %w", env.BinaryAssetsDirectory, err)
	}
	return env, cfg, nil
}
