package v1alpha1

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,shortName=op,categories=corral
// +kubebuilder:printcolumn:name="Priority",type=integer,JSONPath=`.spec.priority`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// OverridePolicy changes, cluster by cluster, objects of its namespace
// that Propagations deliver: each cluster a rule selects receives the
// object with the rule's changes.
type OverridePolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec says which objects change, where and how.
	// +required
	Spec OverridePolicySpec `json:"spec"`
}

// OverridePolicySpec is an OverridePolicy's spec.
type OverridePolicySpec struct {
	// resourceSelectors select the objects of the policy's namespace it
	// changes, as a Propagation's do.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +listType=atomic
	// +required
	ResourceSelectors []ResourceSelector `json:"resourceSelectors"`

	Overrides `json:",inline"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=cop,categories=corral
// +kubebuilder:printcolumn:name="Priority",type=integer,JSONPath=`.spec.priority`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// ClusterOverridePolicy changes, cluster by cluster, cluster-scoped
// objects and objects of any namespace that propagations deliver.
type ClusterOverridePolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec says which objects change, where and how.
	// +required
	Spec ClusterOverridePolicySpec `json:"spec"`
}

// ClusterOverridePolicySpec is a ClusterOverridePolicy's spec.
type ClusterOverridePolicySpec struct {
	// resourceSelectors select the objects the policy changes.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +listType=atomic
	// +required
	ResourceSelectors []ClusterOverrideResourceSelector `json:"resourceSelectors"`

	Overrides `json:",inline"`
}

// ClusterOverrideResourceSelector selects objects for a
// ClusterOverridePolicy: cluster-scoped ones, or namespaced ones of one
// namespace or of every namespace.
// +kubebuilder:validation:XValidation:rule="!(has(self.name) && has(self.labelSelector))",message="give name or labelSelector, not both"
type ClusterOverrideResourceSelector struct {
	ResourceSelector `json:",inline"`

	// namespace, for a namespaced kind, selects the objects of that
	// namespace only; left out, of every namespace.
	// +optional
	Namespace string `json:"namespace,omitempty"`
}

// Overrides are what an OverridePolicy and a ClusterOverridePolicy
// change. Every ClusterOverridePolicy applies before every
// OverridePolicy; within each, policies apply by priority, lowest first,
// then by name; rules in their order. The last change to a field wins.
type Overrides struct {
	// priority orders the policies of one kind: a higher one applies
	// later, and its changes win.
	// +optional
	Priority int32 `json:"priority,omitempty"`

	// rules change the objects on the clusters each selects, in order.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +listType=atomic
	// +required
	Rules []OverrideRule `json:"rules"`
}

// OverrideRule is what changes on the clusters a selector chooses.
// Strings it writes may hold variables, replaced per cluster:
// ${CLUSTER_NAME}, ${CLUSTER_LABEL:key} (the cluster's label key) and
// ${CLUSTER_CLAIM:name} (its ClusterClaim name); a label or claim the
// cluster lacks fails the rule there.
type OverrideRule struct {
	// name names the rule in the propagations' status; left out, rule-N
	// for the N-th (from 0).
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Name string `json:"name,omitempty"`

	// clusterSelector chooses the clusters, as an OCM Placement's
	// predicate does (labels, claims, CEL); left out, every cluster.
	// +optional
	ClusterSelector *clusterv1beta1.ClusterSelector `json:"clusterSelector,omitempty"`

	// jsonPatch changes the object by RFC 6902 operations.
	// +kubebuilder:validation:MaxItems=100
	// +listType=atomic
	// +optional
	JSONPatch []JSONPatchOperation `json:"jsonPatch,omitempty"`

	// images change the images of a workload's containers.
	// +kubebuilder:validation:MaxItems=100
	// +listType=atomic
	// +optional
	Images []ImageOverride `json:"images,omitempty"`

	// containers change a workload's containers' command and args.
	// +kubebuilder:validation:MaxItems=100
	// +listType=atomic
	// +optional
	Containers []ContainerOverride `json:"containers,omitempty"`

	// setLabels are labels given to the object, replacing those of the
	// same keys.
	// +optional
	SetLabels map[string]string `json:"setLabels,omitempty"`

	// removeLabels are label keys taken off the object.
	// +listType=set
	// +optional
	RemoveLabels []string `json:"removeLabels,omitempty"`

	// setAnnotations are annotations given to the object, replacing those
	// of the same keys.
	// +optional
	SetAnnotations map[string]string `json:"setAnnotations,omitempty"`

	// removeAnnotations are annotation keys taken off the object.
	// +listType=set
	// +optional
	RemoveAnnotations []string `json:"removeAnnotations,omitempty"`
}

// JSONPatchOp is an RFC 6902 operation an override may make.
// +kubebuilder:validation:Enum=add;remove;replace
type JSONPatchOp string

const (
	// JSONPatchAdd adds a value: a missing member of an object, or an
	// element of an array (path ending in an index, or "-" for the end).
	JSONPatchAdd JSONPatchOp = "add"
	// JSONPatchRemove removes the value at the path, which must exist.
	JSONPatchRemove JSONPatchOp = "remove"
	// JSONPatchReplace replaces the value at the path, which must exist.
	JSONPatchReplace JSONPatchOp = "replace"
)

// JSONPatchOperation is one RFC 6902 operation. add and replace take a
// value and remove none (checked as the rule applies: CEL cannot see a
// schemaless value).
type JSONPatchOperation struct {
	// op is add, remove or replace.
	// +required
	Op JSONPatchOp `json:"op"`

	// path is a JSON pointer (RFC 6901) into the object, for example
	// /spec/template/spec/containers/0/env/-.
	// +kubebuilder:validation:Pattern=`^/`
	// +required
	Path string `json:"path"`

	// value is what add and replace write.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	// +optional
	Value *apiextensionsv1.JSON `json:"value,omitempty"`
}

// ImageOverride replaces parts of container images,
// [registry/]repository[:tag][@digest]. Given for a Pod, or a workload
// with a pod template (Deployment, StatefulSet, DaemonSet, ReplicaSet,
// Job, CronJob); for another kind it fails the rule.
// +kubebuilder:validation:XValidation:rule="has(self.registry) || has(self.repository) || has(self.tag)",message="give registry, repository or tag"
type ImageOverride struct {
	// container is the name of the container (init containers included)
	// whose image changes; left out, every container's.
	// +optional
	Container string `json:"container,omitempty"`

	// registry replaces the image's registry (adding one where the image
	// names none).
	// +optional
	Registry string `json:"registry,omitempty"`

	// repository replaces the image's repository.
	// +optional
	Repository string `json:"repository,omitempty"`

	// tag replaces the image's tag, and drops its digest.
	// +optional
	Tag string `json:"tag,omitempty"`
}

// ContainerOverride replaces a container's command or args, in a Pod or
// a workload with a pod template, as ImageOverride.
// +kubebuilder:validation:XValidation:rule="has(self.command) || has(self.args)",message="give command or args"
type ContainerOverride struct {
	// container is the name of the container (init containers included).
	// +kubebuilder:validation:MinLength=1
	// +required
	Container string `json:"container"`

	// command replaces the container's command.
	// +listType=atomic
	// +optional
	Command []string `json:"command,omitempty"`

	// args replaces the container's args.
	// +listType=atomic
	// +optional
	Args []string `json:"args,omitempty"`
}

// +kubebuilder:object:root=true

// OverridePolicyList is a list of OverridePolicies.
type OverridePolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []OverridePolicy `json:"items"`
}

// +kubebuilder:object:root=true

// ClusterOverridePolicyList is a list of ClusterOverridePolicies.
type ClusterOverridePolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterOverridePolicy `json:"items"`
}
