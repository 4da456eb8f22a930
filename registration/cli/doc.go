// Package cli holds the registration verbs of corral, clusteradm-style:
// init, get token, accept, deny and get clusters (join and unjoin are to
// come).
package cli
