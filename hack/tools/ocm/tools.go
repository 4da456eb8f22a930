//go:build tools

// Package tools pins the upstream OCM registration command `make tools`
// builds, so that `go mod tidy` keeps its dependencies in go.sum.
package tools

import _ "open-cluster-management.io/ocm/cmd/registration"
