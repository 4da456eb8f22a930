// Package clusterprofile keeps one ClusterProfile
// (sigs.k8s.io/cluster-inventory-api, multicluster.x-k8s.io/v1alpha1) per
// ManagedCluster, named after it, in one configurable namespace (default
// DefaultNamespace, created when missing), labelled
// x-k8s.io/cluster-manager=corral and with the cluster's name and cluster
// set. Its status follows the cluster's: version, the cluster claims as
// properties, capacity and allocatable as properties
// (capacity.<resource>, allocatable.<resource>), and the conditions
// ControlPlaneHealthy (the health addon's verdict when it runs on the
// cluster, else the cluster's Available condition) and Joined. The
// profile is deleted when the cluster is deleted.
//
// It watches ManagedClusters and ClusterProfiles (mapped back by the
// cluster-name label); it writes ClusterProfiles and creates the
// namespace.
package clusterprofile
