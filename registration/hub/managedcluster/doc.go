// Package managedcluster owns what accepting a ManagedCluster means on the
// hub, as OCM defines it:
//
//   - while spec.hubAcceptsClient is true: the cluster namespace (named as
//     the cluster), the RBAC that lets the cluster's identity (group
//     system:open-cluster-management:<cluster>) see and update only its own
//     ManagedCluster, renew its certificate, create CSRs and work in its own
//     namespace, the managed-cluster-lease its agent renews, and the
//     HubAcceptedManagedCluster condition;
//   - when it turns false: that RBAC revoked and the condition False;
//   - when someone deletes the namespace of a cluster that is not deleted:
//     the works being deleted there let go of (their agent lost its RBAC
//     with the namespace), and the namespace made anew once it is gone;
//   - when the ManagedCluster is deleted: behind its finalizer, its
//     ManagedClusterAddOns, then its ManifestWorks (by cleanup priority), the
//     work addons last, reported in the Deleting condition (content.go);
//     then the RBAC and the namespace with everything left in it.
//
// It watches ManagedClusters and the namespaces, ClusterRoles,
// ClusterRoleBindings, RoleBindings and Leases (their deletion) labelled
// with a cluster name, and lists (metadata only, past the cache) the
// ManagedClusterAddOns and ManifestWorks of a deleted cluster's namespace;
// it writes those namespaces, RBAC objects and Leases, deletes those
// addons and works and removes the work agent's finalizer from works whose
// agent cannot (with an Event), and writes the ManagedCluster's finalizer
// (with its first availability taint, see package taint) and status. It
// writes only what its cache shows missing or different, so that accepting
// many clusters at once, or restarting, costs the API server no more than
// the objects that are not there yet.
package managedcluster
