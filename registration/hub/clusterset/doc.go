// Package clusterset owns the hub's ManagedClusterSets, as OCM defines them:
//
//   - the built-in sets: `default` (ExclusiveClusterSetLabel: the clusters
//     labelled cluster.open-cluster-management.io/clusterset=default) and
//     `global` (LabelSelector with an empty selector: every cluster). Each
//     is created when missing — at start and whenever it is deleted — and
//     its spec.clusterSelector is put back if someone changes it, unless the
//     set is annotated cluster.open-cluster-management.io/autoupdate=false.
//     Labels, annotations and the rest of the spec are the user's.
//   - every set's ClusterSetEmpty condition: False (ClustersSelected, "N
//     ManagedClusters selected") while the set selects a cluster, True
//     (NoClusterMatched) otherwise. As upstream, a cluster with no set label
//     is in no exclusive set: adding the `default` label to such clusters is
//     the admission webhook's job.
//
// Which clusters a set holds is answered by registration/common's
// Selector, Members and SetsOf, which placement and the CLI use too.
//
// It watches ManagedClusterSets and ManagedClusters (their creation,
// deletion and label changes, mapped to the sets the cluster is or was in);
// it writes ManagedClusterSets (the built-in ones) and every set's status.
package clusterset
