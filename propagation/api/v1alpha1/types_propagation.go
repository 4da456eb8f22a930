package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
)

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=prop,categories=corral
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 63",message="the name is at most 63 characters: it is the value of the apps.corral.dev/propagation label on revisions and works"
// +kubebuilder:printcolumn:name="Revision",type=integer,JSONPath=`.status.currentRevision`,description="The newest revision of the selected objects"
// +kubebuilder:printcolumn:name="Delivered",type=integer,JSONPath=`.status.deliveredRevision`,description="The revision the rollout delivers"
// +kubebuilder:printcolumn:name="Clusters",type=integer,JSONPath=`.status.summary.total`
// +kubebuilder:printcolumn:name="Available",type=integer,JSONPath=`.status.summary.available`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// Propagation delivers objects of its own namespace on the hub to the
// clusters that OCM Placements of that namespace select, as ManifestWorks.
type Propagation struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec says what is delivered, where, and how.
	// +required
	Spec PropagationSpec `json:"spec"`

	// status is what the propagation addon observed.
	// +optional
	Status PropagationStatus `json:"status,omitempty"`
}

// PropagationSpec is a Propagation's spec.
type PropagationSpec struct {
	// resourceSelectors select the objects of the Propagation's namespace
	// to deliver. An object selected by several selectors is delivered once.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +listType=atomic
	// +required
	ResourceSelectors []ResourceSelector `json:"resourceSelectors"`

	// placementRefs name OCM Placements of the Propagation's namespace; the
	// objects go to the clusters any of them selects.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=10
	// +listType=map
	// +listMapKey=name
	// +required
	PlacementRefs []LocalPlacementReference `json:"placementRefs"`

	PropagationPolicy `json:",inline"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=cprop,categories=corral
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 63",message="the name is at most 63 characters: it is the value of the apps.corral.dev/propagation label on revisions and works"
// +kubebuilder:printcolumn:name="Revision",type=integer,JSONPath=`.status.currentRevision`,description="The newest revision of the selected objects"
// +kubebuilder:printcolumn:name="Delivered",type=integer,JSONPath=`.status.deliveredRevision`,description="The revision the rollout delivers"
// +kubebuilder:printcolumn:name="Clusters",type=integer,JSONPath=`.status.summary.total`
// +kubebuilder:printcolumn:name="Available",type=integer,JSONPath=`.status.summary.available`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// ClusterPropagation delivers cluster-scoped objects of the hub, and whole
// namespaces with everything in them, to the clusters that OCM Placements
// select, as ManifestWorks.
type ClusterPropagation struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec says what is delivered, where, and how.
	// +required
	Spec ClusterPropagationSpec `json:"spec"`

	// status is what the propagation addon observed.
	// +optional
	Status PropagationStatus `json:"status,omitempty"`
}

// ClusterPropagationSpec is a ClusterPropagation's spec.
type ClusterPropagationSpec struct {
	// resourceSelectors select cluster-scoped objects to deliver; a
	// Namespace brings what is in it unless its selectionScope says
	// NamespaceOnly.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +listType=atomic
	// +required
	ResourceSelectors []ClusterResourceSelector `json:"resourceSelectors"`

	// placementRefs name OCM Placements, each with its namespace; the
	// objects go to the clusters any of them selects.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=10
	// +listType=map
	// +listMapKey=namespace
	// +listMapKey=name
	// +required
	PlacementRefs []PlacementReference `json:"placementRefs"`

	PropagationPolicy `json:",inline"`
}

// ResourceSelector selects objects by group, version and kind, and then by
// name or by labels; with neither, every object of the kind in scope.
// +kubebuilder:validation:XValidation:rule="!(has(self.name) && has(self.labelSelector))",message="give name or labelSelector, not both"
type ResourceSelector struct {
	// group is the kind's API group; empty for the core group.
	// +optional
	Group string `json:"group,omitempty"`

	// version is the API version the objects are read and delivered in.
	// +kubebuilder:validation:MinLength=1
	// +required
	Version string `json:"version"`

	// kind is the objects' kind, any kind the hub serves, custom resources
	// included.
	// +kubebuilder:validation:MinLength=1
	// +required
	Kind string `json:"kind"`

	// name selects the one object of that name.
	// +kubebuilder:validation:MinLength=1
	// +optional
	Name string `json:"name,omitempty"`

	// labelSelector selects the objects whose labels it matches.
	// +optional
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`
}

// SelectionScope says what selecting a Namespace brings.
type SelectionScope string

const (
	// NamespaceWithResources delivers the namespace and every object in
	// it that may be selected. The default.
	NamespaceWithResources SelectionScope = "NamespaceWithResources"
	// NamespaceOnly delivers the namespace alone.
	NamespaceOnly SelectionScope = "NamespaceOnly"
)

// ClusterResourceSelector is a ResourceSelector of a ClusterPropagation.
// +kubebuilder:validation:XValidation:rule="!(has(self.name) && has(self.labelSelector))",message="give name or labelSelector, not both"
// +kubebuilder:validation:XValidation:rule="!has(self.selectionScope) || (self.kind == 'Namespace' && (!has(self.group) || size(self.group) == 0))",message="selectionScope is for selectors of kind Namespace in the core group"
type ClusterResourceSelector struct {
	ResourceSelector `json:",inline"`

	// selectionScope, for a Namespace selector only, says whether the
	// namespace's objects go with it (NamespaceWithResources, the default)
	// or not (NamespaceOnly).
	// +kubebuilder:validation:Enum=NamespaceWithResources;NamespaceOnly
	// +optional
	SelectionScope SelectionScope `json:"selectionScope,omitempty"`
}

// LocalPlacementReference names an OCM Placement of the Propagation's
// namespace and how to roll out to its clusters, as a
// ManifestWorkReplicaSet's placementRefs do.
type LocalPlacementReference struct {
	// name is the Placement's name.
	// +kubebuilder:validation:MinLength=1
	// +required
	Name string `json:"name"`

	// rolloutStrategy is OCM's: All, Progressive or ProgressivePerGroup.
	// +kubebuilder:default={type: All, all: {progressDeadline: None}}
	// +optional
	RolloutStrategy clusterv1alpha1.RolloutStrategy `json:"rolloutStrategy"`
}

// PlacementReference names an OCM Placement in any namespace, for a
// ClusterPropagation, and how to roll out to its clusters.
type PlacementReference struct {
	// namespace is the Placement's namespace.
	// +kubebuilder:validation:MinLength=1
	// +required
	Namespace string `json:"namespace"`

	LocalPlacementReference `json:",inline"`
}

// DeletionPolicy says what becomes of delivered objects when their
// Propagation is deleted or their cluster leaves its placements.
type DeletionPolicy string

const (
	// DeletionPolicyDelete deletes them from the cluster. The default.
	DeletionPolicyDelete DeletionPolicy = "Delete"
	// DeletionPolicyOrphan leaves them on the cluster, no longer managed.
	DeletionPolicyOrphan DeletionPolicy = "Orphan"
)

// StatusAggregation says whether the members' status of a workload is
// summed into the hub template's own .status.
type StatusAggregation string

const (
	// StatusAggregationEnabled sums the members' status of Deployments,
	// StatefulSets, DaemonSets, ReplicaSets and Jobs into the template's
	// .status. The default.
	StatusAggregationEnabled StatusAggregation = "Enabled"
	// StatusAggregationDisabled leaves the templates' status alone: for a
	// hub that runs workload controllers of its own.
	StatusAggregationDisabled StatusAggregation = "Disabled"
)

// PropagationPolicy is what a Propagation and a ClusterPropagation share
// besides what they select and where.
type PropagationPolicy struct {
	// deletionPolicy says what becomes of the delivered objects when the
	// propagation is deleted, and on a cluster that leaves every placement:
	// Delete (the default) removes them, Orphan leaves them.
	// +kubebuilder:validation:Enum=Delete;Orphan
	// +kubebuilder:default=Delete
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`

	// revisionHistoryLimit is how many revisions are kept besides the
	// newest and the pinned one.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	// +kubebuilder:default=10
	// +optional
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty"`

	// revision pins the revision delivered, instead of the newest: setting
	// it to an earlier one rolls back, unsetting it rolls forward again.
	// +kubebuilder:validation:Minimum=1
	// +optional
	Revision *int64 `json:"revision,omitempty"`

	// statusAggregation says whether the members' status of Deployments,
	// StatefulSets, DaemonSets, ReplicaSets and Jobs is summed into the hub
	// template's own .status: Enabled (the default) or Disabled.
	// +kubebuilder:validation:Enum=Enabled;Disabled
	// +kubebuilder:default=Enabled
	// +optional
	StatusAggregation StatusAggregation `json:"statusAggregation,omitempty"`

	// replicaScheduling says how many replicas each cluster runs of a
	// delivered workload: every cluster the template's (Duplicated, the
	// default), or the template's divided over the clusters the
	// placements select (Divided).
	// +optional
	ReplicaScheduling *ReplicaScheduling `json:"replicaScheduling,omitempty"`

	// adoption says what becomes of a delivered object a cluster already
	// has, and of a change made to one on a cluster. Unset: takeOver
	// IfNoDiff, drift Always, mode Apply.
	// +optional
	Adoption *Adoption `json:"adoption,omitempty"`
}

// Adoption says what corral's work agent does with objects it finds on a
// cluster; a cluster running OCM's work agent takes every object over and
// puts every change back, and reports no differences.
type Adoption struct {
	// takeOver is for an object the cluster has that corral did not make:
	// Always take it over; IfNoDiff (the default) take it over only when
	// it already is as delivered; Never. A refused object is left as it
	// is, and the fields that differ are reported. A Namespace is always
	// taken over: it is shared.
	// +kubebuilder:validation:Enum=Always;IfNoDiff;Never
	// +kubebuilder:default=IfNoDiff
	// +optional
	TakeOver string `json:"takeOver,omitempty"`

	// drift is for a delivered object someone changed on the cluster:
	// Always (the default) put it back; IfNotDrifted leave it. Either way
	// the change is reported; a new revision is applied over it.
	// +kubebuilder:validation:Enum=Always;IfNotDrifted
	// +kubebuilder:default=Always
	// +optional
	Drift string `json:"drift,omitempty"`

	// mode: Apply (the default), or ReportDiff: nothing is applied on any
	// cluster, and what applying would change is reported.
	// +kubebuilder:validation:Enum=Apply;ReportDiff
	// +kubebuilder:default=Apply
	// +optional
	Mode string `json:"mode,omitempty"`

	// ignoreFields are fields a controller on the clusters owns (an HPA's
	// replicas): delivered objects leave them as they are there, and
	// their changes are not drift. The objects of those kinds are applied
	// with server-side apply.
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=50
	// +optional
	IgnoreFields []IgnoreFields `json:"ignoreFields,omitempty"`
}

// IgnoreFields are fields of one kind left to the clusters.
type IgnoreFields struct {
	// group is the kind's API group; empty for the core group.
	// +optional
	Group string `json:"group,omitempty"`

	// kind is the kind.
	// +kubebuilder:validation:MinLength=1
	// +required
	Kind string `json:"kind"`

	// jsonPaths name the fields, as kubectl's JSON paths: .spec.replicas,
	// .spec.template.spec.containers[0].image.
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=50
	// +required
	JSONPaths []string `json:"jsonPaths"`
}

// ReplicaSchedulingType is Duplicated or Divided.
type ReplicaSchedulingType string

const (
	// ReplicaSchedulingDuplicated gives every cluster the template's
	// replicas.
	ReplicaSchedulingDuplicated ReplicaSchedulingType = "Duplicated"
	// ReplicaSchedulingDivided divides the template's replicas over the
	// clusters, their shares adding up to it.
	ReplicaSchedulingDivided ReplicaSchedulingType = "Divided"
)

// ReplicaScheduling says how the replicas of delivered workloads are set
// per cluster: spec.replicas of Deployments, StatefulSets and
// ReplicaSets, spec.parallelism of Jobs, and the replicaPaths given.
// +kubebuilder:validation:XValidation:rule="self.type == 'Divided' || (!has(self.weights) && !has(self.dynamic))",message="weights and dynamic are for type Divided"
// +kubebuilder:validation:XValidation:rule="!has(self.weights) || !has(self.dynamic)",message="give weights or dynamic, not both"
type ReplicaScheduling struct {
	// type is Duplicated (the default) or Divided.
	// +kubebuilder:validation:Enum=Duplicated;Divided
	// +kubebuilder:default=Duplicated
	// +optional
	Type ReplicaSchedulingType `json:"type,omitempty"`

	// weights, for Divided, weigh the clusters by cluster selector: a
	// cluster takes the weight of the first entry that selects it, 0 when
	// none does. Without weights or dynamic, every cluster weighs the
	// same.
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=100
	// +optional
	Weights []ClusterWeight `json:"weights,omitempty"`

	// dynamic, for Divided, weighs each cluster by what it can still run.
	// +optional
	Dynamic *DynamicWeight `json:"dynamic,omitempty"`

	// replicaPaths say where the replicas are in kinds besides the
	// built-in ones; a kind given here uses its path instead.
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=50
	// +optional
	ReplicaPaths []ReplicaPath `json:"replicaPaths,omitempty"`
}

// ClusterWeight is the weight of the clusters a selector selects.
type ClusterWeight struct {
	// clusterSelector selects clusters as a Placement's predicate does:
	// labels, claims, CEL; empty selects every cluster.
	// +optional
	ClusterSelector clusterv1beta1.ClusterSelector `json:"clusterSelector,omitempty"`

	// weight is the clusters' weight; 0 gives them no replicas.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000000
	// +required
	Weight int32 `json:"weight"`
}

// DynamicWeight weighs clusters by the free amount of a resource.
type DynamicWeight struct {
	// resource is cpu (the default) or memory: each cluster weighs its
	// free amount, as the placement addon's resource-usage
	// AddOnPlacementScore reports it (cpuAvailable, memAvailable); when a
	// selected cluster has no such score, every cluster weighs its
	// allocatable amount from its ManagedCluster status instead.
	// +kubebuilder:validation:Enum=cpu;memory
	// +kubebuilder:default=cpu
	// +optional
	Resource string `json:"resource,omitempty"`
}

// ReplicaPath is where a kind holds its replica count.
type ReplicaPath struct {
	// group is the kind's API group; empty for the core group.
	// +optional
	Group string `json:"group,omitempty"`

	// kind is the kind.
	// +kubebuilder:validation:MinLength=1
	// +required
	Kind string `json:"kind"`

	// path is a JSON pointer (RFC 6901) to an integer field, for example
	// /spec/replicas.
	// +kubebuilder:validation:Pattern=`^(/[^/]+)+$`
	// +required
	Path string `json:"path"`
}

// PropagationStatus is the status of a Propagation or ClusterPropagation.
type PropagationStatus struct {
	// observedGeneration is the generation this status is of.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Selected, Scheduled, Applied, Available.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// currentRevision is the newest revision of the selected objects.
	// +optional
	CurrentRevision int64 `json:"currentRevision,omitempty"`

	// deliveredRevision is the revision the rollout delivers: the pinned
	// one, else the newest.
	// +optional
	DeliveredRevision int64 `json:"deliveredRevision,omitempty"`

	// objects are what the delivered revision holds, in delivery order.
	// +listType=atomic
	// +optional
	Objects []ObjectReference `json:"objects,omitempty"`

	// summary counts the clusters.
	// +optional
	Summary PropagationSummary `json:"summary,omitempty"`

	// clusters is the status on each cluster the placements select.
	// +listType=map
	// +listMapKey=cluster
	// +optional
	Clusters []ClusterStatus `json:"clusters,omitempty"`
}

// ObjectReference names a delivered object.
type ObjectReference struct {
	// +optional
	Group string `json:"group,omitempty"`
	// +required
	Version string `json:"version"`
	// +required
	Kind string `json:"kind"`
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// +required
	Name string `json:"name"`
}

// PropagationSummary counts the clusters a propagation delivers to.
type PropagationSummary struct {
	// total is how many clusters the placements select.
	Total int32 `json:"total"`
	// applied is how many have applied the delivered revision.
	Applied int32 `json:"applied"`
	// available is how many report every delivered object available.
	Available int32 `json:"available"`
	// failed is how many failed to apply or did not become available in
	// the rollout's progressDeadline.
	Failed int32 `json:"failed"`
}

// ClusterStatus is a propagation's status on one cluster.
type ClusterStatus struct {
	// cluster is the ManagedCluster's name.
	// +required
	Cluster string `json:"cluster"`

	// revision is the revision on the cluster, 0 for none yet.
	// +optional
	Revision int64 `json:"revision,omitempty"`

	// conditions: Scheduled, Applied, Available, Failed.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// overrides are the override rules applied to what the cluster
	// receives, each once, as "<policy kind> <policy>, rule <rule>", in
	// the order they apply.
	// +listType=atomic
	// +optional
	Overrides []string `json:"overrides,omitempty"`

	// replicas are the cluster's shares of the workloads whose replicas
	// are Divided: what the next division moves the fewest replicas from.
	// +listType=atomic
	// +optional
	Replicas []ReplicaShare `json:"replicas,omitempty"`

	// drift are the delivered objects that differ on the cluster from
	// what it receives, as corral's work agent reports them.
	// +listType=atomic
	// +optional
	Drift []ObjectDrift `json:"drift,omitempty"`
}

// ObjectDrift is a delivered object that differs on a cluster.
type ObjectDrift struct {
	ObjectReference `json:",inline"`

	// reason: NotAdopted (the cluster had it, and it differs: left as it
	// is), Drifted (changed on the cluster: left so), PutBack (changed on
	// the cluster: put back), WouldChange or WouldCreate (mode
	// ReportDiff).
	// +required
	Reason string `json:"reason"`

	// fields are the fields that differ (at most 20).
	// +listType=atomic
	// +optional
	Fields []FieldDiff `json:"fields,omitempty"`

	// since is when it was first seen.
	// +optional
	Since metav1.Time `json:"since,omitempty"`
}

// FieldDiff is one field that differs.
type FieldDiff struct {
	// path is the field's, as a JSON path: .spec.replicas.
	// +required
	Path string `json:"path"`

	// hub is its value as delivered, as JSON; null for none.
	// +optional
	Hub string `json:"hub,omitempty"`

	// cluster is its value on the cluster, as JSON; null for none.
	// +optional
	Cluster string `json:"cluster,omitempty"`
}

// ReplicaShare is a cluster's share of a workload's replicas.
type ReplicaShare struct {
	ObjectReference `json:",inline"`

	// replicas is the cluster's share.
	// +required
	Replicas int32 `json:"replicas"`
}

// +kubebuilder:object:root=true

// PropagationList is a list of Propagations.
type PropagationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Propagation `json:"items"`
}

// +kubebuilder:object:root=true

// ClusterPropagationList is a list of ClusterPropagations.
type ClusterPropagationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterPropagation `json:"items"`
}
