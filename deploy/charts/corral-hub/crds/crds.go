// Package crds holds the CustomResourceDefinitions a corral hub serves:
// those of the open-cluster-management.io/api module (*.crd.yaml), copied
// by hack/update-crds.sh and checked against the pinned module by this
// package's test, so that corral installs exactly the contract its
// dependency defines; and corral's own, apps.corral.dev (apps.corral.dev_*.yaml),
// which `make generate` writes from propagation/api. Helm installs them
// all from here, as `corral init`, the dev fleet and the suites do through
// All.
package crds

import (
	"embed"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/corral-dev/corral/internal/crdfiles"
)

// ocmFiles matches the api module's CRDs, ownFiles corral's.
const (
	ocmFiles = "*.crd.yaml"
	ownFiles = "apps.corral.dev_*.yaml"
)

//go:embed *.crd.yaml apps.corral.dev_*.yaml
var files embed.FS

// All returns every CRD, the api module's then corral's, each in
// file-name order.
func All() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	ocm, err := crdfiles.Read(files, ocmFiles)
	if err != nil {
		return nil, err
	}
	own, err := Own()
	if err != nil {
		return nil, err
	}
	return append(ocm, own...), nil
}

// Own returns corral's own CRDs (apps.corral.dev), in file-name order.
func Own() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	return crdfiles.Read(files, ownFiles)
}
