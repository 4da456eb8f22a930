// Package testenv is what the integration and interop suites share: the
// control planes they run on (envtest from the binaries `make tools` puts
// in bin/, with the OCM CRDs installed; a hub with what `corral init`
// installs, StartHubCluster; and, for suites whose behaviour crosses a hub
// and a managed cluster, both as local clusters started side by side,
// StartHubAndManaged), one client over one Scheme, the hub run as `corral
// hub` runs it (StartHub, with HubOptions or AddonHubOptions), unique
// names, and clocks and identities for the agents' halves. ginkgo.go has
// the suites' Ginkgo forms of these, which fail the node on an error and
// clean up with it.
package testenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/corral-dev/corral/deploy/charts/corral-hub/crds"
	"github.com/corral-dev/corral/dev/localcluster"
	"github.com/corral-dev/corral/internal/clientgates"
)

// The suites run corral's controllers in-process with client-go's gates
// as the corral binary sets them.
func init() { clientgates.Set() }

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

// StartHubAndManaged starts a hub, with what `corral init` installs, and,
// beside it, a separate API server standing for a managed cluster (what
// the suites need of one is its API), at once, in the two directories.
// When either fails, the other is stopped.
func StartHubAndManaged(ctx context.Context, hubDir, managedDir string, progress io.Writer) (hub, managed *localcluster.Cluster, err error) {
	var managedErr error
	var wg sync.WaitGroup
	wg.Go(func() {
		managed, managedErr = localcluster.Start(ctx, localcluster.Options{
			Name: "managed", Profile: localcluster.ProfileHub, Dir: managedDir, Progress: progress,
		})
	})
	hub, err = StartHubCluster(ctx, hubDir, progress)
	wg.Wait()
	if err == nil && managedErr == nil {
		return hub, managed, nil
	}
	for _, c := range []*localcluster.Cluster{hub, managed} {
		if c != nil {
			_ = c.Stop()
		}
	}
	return nil, nil, errors.Join(err, managedErr)
}

// Go runs run (a suite's manager or agent) in a goroutine on a child of ctx
// and returns stop, which cancels that context and waits up to timeout for
// run to return: stop gives what run returned, or an error when it did not
// return in time. Suites call stop in their cleanup.
func Go(ctx context.Context, run func(context.Context) error) (stop func(timeout time.Duration) error) {
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- run(runCtx) }()
	return func(timeout time.Duration) error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(timeout):
			return fmt.Errorf("still running %s after it was stopped", timeout)
		}
	}
}
