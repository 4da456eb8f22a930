// Package realnode_test runs dev/realnode's network, namespaces and cgroups
// for real (it needs root, as the fleet's real nodes do): what a node
// makes works, and what it leaves is found and removed by the fleet's id
// alone — the crash case, where nothing else is known.
package realnode_test

import (
	"os"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestRealnode(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "realnode")
}

var _ = BeforeSuite(func() {
	if os.Geteuid() != 0 {
		Skip("real nodes need root")
	}
})
