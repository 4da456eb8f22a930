package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,shortName=proprev,categories=corral
// +kubebuilder:printcolumn:name="Propagation",type=string,JSONPath=`.metadata.labels.apps\.corral\.dev/propagation`
// +kubebuilder:printcolumn:name="Revision",type=integer,JSONPath=`.spec.revision`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// PropagationRevision is an immutable, numbered snapshot of the objects a
// Propagation selected, in its namespace, named <propagation>-<revision>.
type PropagationRevision struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the snapshot; it cannot change.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="a revision's spec is immutable"
	// +required
	Spec RevisionSpec `json:"spec"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=cproprev,categories=corral
// +kubebuilder:printcolumn:name="Propagation",type=string,JSONPath=`.metadata.labels.apps\.corral\.dev/propagation`
// +kubebuilder:printcolumn:name="Revision",type=integer,JSONPath=`.spec.revision`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// ClusterPropagationRevision is an immutable, numbered snapshot of the
// objects a ClusterPropagation selected, named
// <clusterpropagation>-<revision>.
type ClusterPropagationRevision struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the snapshot; it cannot change.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="a revision's spec is immutable"
	// +required
	Spec RevisionSpec `json:"spec"`
}

// RevisionSpec is a revision's snapshot.
type RevisionSpec struct {
	// revision is the snapshot's number, counting from 1.
	// +kubebuilder:validation:Minimum=1
	// +required
	Revision int64 `json:"revision"`

	// hash is "sha256:" and the hex SHA-256 of the objects, as
	// propagation/hub/revision.Hash computes it.
	// +kubebuilder:validation:Pattern=`^sha256:[0-9a-f]{64}$`
	// +required
	Hash string `json:"hash"`

	// objects are the selected objects, cleaned of what must not travel,
	// in delivery order.
	// Each is an OCM work Manifest, as it travels in a ManifestWork.
	// +listType=atomic
	// +required
	Objects []workv1.Manifest `json:"objects"`

	// overrides are the override policies that change any of the objects,
	// as they were when the revision was made, in the order they apply:
	// a change of a policy makes a new revision, which rolls out as a
	// change of the objects does, and a rollback restores both.
	// +listType=atomic
	// +optional
	Overrides []OverrideSnapshot `json:"overrides,omitempty"`
}

// OverrideSnapshot is an override policy as a revision holds it.
type OverrideSnapshot struct {
	// name is the policy's: <namespace>/<name> for an OverridePolicy,
	// <name> for a ClusterOverridePolicy.
	// +kubebuilder:validation:MinLength=1
	// +required
	Name string `json:"name"`

	// clusterScoped: a ClusterOverridePolicy.
	// +optional
	ClusterScoped bool `json:"clusterScoped,omitempty"`

	// priority is the policy's.
	// +optional
	Priority int32 `json:"priority,omitempty"`

	// objects are the indexes in objects of those the policy changes.
	// +kubebuilder:validation:MinItems=1
	// +listType=atomic
	// +required
	Objects []int32 `json:"objects"`

	// rules are the policy's.
	// +listType=atomic
	// +required
	Rules []OverrideRule `json:"rules"`
}

// +kubebuilder:object:root=true

// PropagationRevisionList is a list of PropagationRevisions.
type PropagationRevisionList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []PropagationRevision `json:"items"`
}

// +kubebuilder:object:root=true

// ClusterPropagationRevisionList is a list of ClusterPropagationRevisions.
type ClusterPropagationRevisionList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterPropagationRevision `json:"items"`
}
