// Package v1alpha1 is the propagation addon's API, apps.corral.dev/v1alpha1:
// Propagation and ClusterPropagation (which hub objects go to the clusters
// of which OCM Placements, and how), and PropagationRevision and
// ClusterPropagationRevision (the immutable, numbered snapshots of what they
// selected). docs/propagation.md is the design.
//
// zz_generated.deepcopy.go and crds/ are made by `make generate` from the
// markers here, and committed.
//
// +kubebuilder:object:generate=true
// +groupName=apps.corral.dev
package v1alpha1
