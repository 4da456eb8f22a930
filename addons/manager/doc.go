// Package manager is the hub's addon manager: what OCM's cluster manager
// runs as its addon manager, plus addon-framework's manager for corral's
// built-in addons. SetupWithManager is its one setup seam, which `corral
// hub`, the embedded hub of `corral dev up` and the integration suite call.
//
// For every addon (built-in or third-party, unless its
// ClusterManagementAddOn says lifecycle=self) it runs the lifecycle:
// ManagedClusterAddOns owned by their ClusterManagementAddOn (addonowner),
// install strategies `Manual` and `Placements` and the
// ClusterManagementAddOn's status (install), and each ManagedClusterAddOn's
// desired configs — defaults, placement's, its own — (addonconfig). It
// labels each ManagedCluster feature.open-cluster-management.io/addon-<addon>
// with the state of each addon enabled on it (addonfeature), and marks
// the addons of a cluster whose Available condition is Unknown Unknown too
// (unreachable).
//
// For each built-in addon it creates the ClusterManagementAddOn (Manual,
// AddOnDeploymentConfig supported) when there is none, runs the addon's
// hub half, and hands the addon framework an agent.AgentAddon (builtinAgent)
// that deploys nothing (the agent half runs in `corral agent`) and:
//   - registers the agent with a kube-apiserver-client certificate of the
//     framework's default subject (CN
//     system:open-cluster-management:cluster:<cluster>:addon:<addon>:agent:<addon>,
//     groups system:open-cluster-management:cluster:<cluster>:addon:<addon>
//     and system:open-cluster-management:addon:<addon>), which the
//     framework puts in the ManagedClusterAddOn's status.registrations;
//   - approves such a CSR only for an enabled addon (its
//     ManagedClusterAddOn exists and is not being deleted) on an accepted
//     cluster, with that cluster's and addon's subject, client-auth usages
//     only, requested by the cluster's registration identity
//     (system:open-cluster-management:<cluster>:<agent>, which makes addon
//     CSRs in OCM's agent as in corral's) — approveCSR;
//   - gives the agent its HubRules as a Role, bound to the addon's group of
//     that cluster, in the cluster namespace only, owned by the
//     ManagedClusterAddOn so that disabling the addon removes them;
//   - probes health by lease (the agent side turns the addon's lease into
//     the Available condition; the framework sets healthCheck.mode).
//
// It writes ClusterManagementAddOns, ManagedClusterAddOns, ManagedClusters'
// addon labels, addon CSR approvals, and Roles and RoleBindings in cluster
// namespaces.
package manager
