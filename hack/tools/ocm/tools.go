//go:build tools

// Package tools pins the upstream OCM registration, work, placement and
// addon-manager commands and the addon framework's helloworld example that
// `make tools` builds, so that `go mod tidy` keeps their dependencies in
// go.sum.
package tools

import (
	_ "open-cluster-management.io/addon-framework/cmd/example/helloworld"
	_ "open-cluster-management.io/ocm/cmd/addon"
	_ "open-cluster-management.io/ocm/cmd/placement"
	_ "open-cluster-management.io/ocm/cmd/registration"
	_ "open-cluster-management.io/ocm/cmd/work"
)
