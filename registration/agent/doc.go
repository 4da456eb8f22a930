// Package agent is the agent half of corral's registration core, speaking
// OCM's protocol so that it can join a corral hub or an OCM hub:
//
//  1. with the bootstrap kubeconfig, create the cluster's ManagedCluster
//     (hubAcceptsClient false) and a CSR for a fresh key, with subject
//     system:open-cluster-management:<cluster>:<agent>;
//  2. wait, with backoff and through hub restarts, until a hub admin has
//     accepted the cluster and the CSR has a certificate;
//  3. keep key and certificate as the hub kubeconfig — the Secret
//     open-cluster-management-agent/hub-kubeconfig-secret on the managed
//     cluster (OCM's keys), and a file for local runs — and switch to it;
//  4. renew the managed-cluster-lease as often as the ManagedCluster's
//     spec.leaseDurationSeconds says, keep its managedClusterClientConfigs
//     as the agent was given them, and report ManagedClusterJoined and
//     ManagedClusterConditionAvailable (the managed API server's /livez).
//
// A restart reuses the stored identity: the same agent id (recorded as
// soon as it asks to join), key and certificate, while the certificate is
// valid.
package agent
