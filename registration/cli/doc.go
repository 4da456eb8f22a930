// Package cli holds the registration verbs of corral, clusteradm-style: on
// the hub init, get token, accept, deny, get clusters and clusterset; on a
// managed cluster join and unjoin.
package cli
