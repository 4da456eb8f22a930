package v1alpha1

// Labels and annotations the propagation addon sets and reads.
const (
	// LabelPropagation is on revisions and ManifestWorks: the name of the
	// (Cluster)Propagation they are of.
	LabelPropagation = GroupName + "/propagation"
	// LabelPropagationNamespace is on ManifestWorks of a Propagation: its
	// namespace.
	LabelPropagationNamespace = GroupName + "/propagation-namespace"
	// LabelRevision is on revisions, ManifestWorks and delivered objects:
	// the revision number.
	LabelRevision = GroupName + "/revision"
	// LabelEnvelope, "true" on a ConfigMap, makes it an envelope: its data
	// values are YAML manifests delivered untouched in its place.
	LabelEnvelope = GroupName + "/envelope"
	// Finalizer is on (Cluster)Propagations while their works are cleaned.
	Finalizer = GroupName + "/propagation-cleanup"
)

// Condition types of a (Cluster)Propagation's status.
const (
	// ConditionSelected: the selectors resolved and the objects made a
	// revision.
	ConditionSelected = "Selected"
	// ConditionScheduled: the placements exist and selected clusters.
	ConditionScheduled = "Scheduled"
	// ConditionApplied: every selected cluster applied the delivered
	// revision.
	ConditionApplied = "Applied"
	// ConditionAvailable: every delivered object is available everywhere.
	ConditionAvailable = "Available"
	// ConditionFailed, per cluster: the revision failed to apply or to
	// become available there.
	ConditionFailed = "Failed"
)

// Condition reasons for bad input: each says what is wrong in one line.
const (
	ReasonNothingSelected   = "NothingSelected"
	ReasonPlacementNotFound = "PlacementNotFound"
	ReasonUnknownKind       = "UnknownKind"
	ReasonUndecodable       = "UndecodableObject"
	ReasonRevisionNotFound  = "RevisionNotFound"
	ReasonTooLarge          = "TooLarge"
	ReasonOverrideInvalid   = "OverrideInvalid"
	// ReasonOverrideFailed, per cluster: an override rule cannot apply
	// to what the cluster would receive; it keeps what it has.
	ReasonOverrideFailed = "OverrideFailed"
	// ReasonInvalidReplicaScheduling: spec.replicaScheduling cannot be
	// followed (a weight's cluster selector that does not compile).
	ReasonInvalidReplicaScheduling = "InvalidReplicaScheduling"
)

// Annotations on delivered objects.
const (
	// AnnotationEnvelope is on each object delivered out of an envelope:
	// the envelope ConfigMap's namespace/name. Such an object has no
	// template on the hub, so its status is never aggregated.
	AnnotationEnvelope = GroupName + "/envelope"
)
