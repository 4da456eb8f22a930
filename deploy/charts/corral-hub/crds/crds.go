// Package crds holds the CustomResourceDefinitions of the
// open-cluster-management.io/api module, copied by hack/update-crds.sh and
// checked against the pinned module by this package's test, so that corral
// installs exactly the contract its dependency defines.
package crds

import (
	"embed"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/corral-dev/corral/internal/crdfiles"
)

//go:embed *.crd.yaml
var files embed.FS

// All returns every CRD, in file-name order.
func All() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	return crdfiles.Read(files, "*.crd.yaml")
}
