// Package common holds what both halves of the registration core must agree
// on and neither may import from the other.
package common

// LeaseName is the lease a cluster's agent renews in its cluster namespace
// on the hub, and the hub watches.
const LeaseName = "managed-cluster-lease"
