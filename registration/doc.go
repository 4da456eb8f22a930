// Package registration is corral's registration core: the double-handshake
// join of a managed cluster (its agent asks with a CSR, a hub admin
// accepts), the cluster namespace and RBAC, leases, taints and cluster sets.
// The hub half lives in registration/hub, the agent half in
// registration/agent; neither imports the other.
package registration
