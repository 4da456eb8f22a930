// Package cli holds the registration verbs of corral, clusteradm-style:
// init, get token, and (as they land) join, accept, deny, unjoin.
package cli
