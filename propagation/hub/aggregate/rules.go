package aggregate

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	workv1 "open-cluster-management.io/api/work/v1"
)

// Names of the fed-back values that are not summed status counters.
// Counters are fed back under their status field's name.
const (
	// FeedbackGeneration is the member object's metadata.generation.
	FeedbackGeneration = "generation"
	// FeedbackObservedGeneration is the member's status.observedGeneration.
	FeedbackObservedGeneration = "observedGeneration"
	// FeedbackRevision is the member object's revision label
	// (apps.corral.dev/revision): which revision of the template it is.
	FeedbackRevision = "revision"
	// FeedbackProgressingReason is a Deployment's Progressing condition's
	// reason.
	FeedbackProgressingReason = "progressingReason"
	// FeedbackCurrentRevision and FeedbackUpdateRevision are a
	// StatefulSet's controller revisions.
	FeedbackCurrentRevision = "currentRevision"
	FeedbackUpdateRevision  = "updateRevision"
	// FeedbackComplete and FeedbackFailed are a Job's Complete and Failed
	// conditions' status; FeedbackFailedReason the Failed one's reason.
	FeedbackComplete     = "complete"
	FeedbackFailed       = "failedCondition"
	FeedbackFailedReason = "failedReason"
	// FeedbackStartTime and FeedbackCompletionTime are a Job's times.
	FeedbackStartTime      = "startTime"
	FeedbackCompletionTime = "completionTime"
	// FeedbackSpecReplicas is the member's own spec.replicas: its share
	// when the propagation divides the replicas, which it is settled at.
	FeedbackSpecReplicas = "specReplicas"
)

// revisionPath is the JSONPath of the revision label
// (v1alpha1.LabelRevision); the dots of the label's key are escaped so
// they are not read as steps.
const revisionPath = `.metadata.labels.apps\.corral\.dev/revision`

// workload is what aggregating one kind takes.
type workload struct {
	// counters are status fields summed over the members.
	counters []string
	// extra are the kind's fed-back values other than counters and the
	// generations.
	extra []workv1.JsonPath
	// generation: the kind's status has observedGeneration.
	generation bool
	// settled says whether a member that observed its generation is
	// done, as kubectl's check of the kind would say on that member's
	// object with the template's spec; or failed for good, which kubectl
	// reports as soon as the generation is observed.
	settled func(spec map[string]any, m Member) (bool, error)
	// finish adds what is not a sum (conditions, revisions) to status.
	finish func(status map[string]any, members []named) error
	// typed is a new value of the kind's typed status.
	typed func() any
}

var workloads = map[schema.GroupKind]*workload{
	{Group: "apps", Kind: "Deployment"}:  deployment,
	{Group: "apps", Kind: "StatefulSet"}: statefulSet,
	{Group: "apps", Kind: "DaemonSet"}:   daemonSet,
	{Group: "apps", Kind: "ReplicaSet"}:  replicaSet,
	{Group: "batch", Kind: "Job"}:        job,
}

// Supported says whether Status aggregates objects of gvk's group and
// kind (any version).
func Supported(gvk schema.GroupVersionKind) bool {
	_, ok := workloads[gvk.GroupKind()]
	return ok
}

// FeedbackRules are the status feedback rules a ManifestWork carries for
// an object of gvk so that NewMember and Status can read the cluster's
// values; nil for a kind Status does not aggregate. Every path points at
// one scalar, which OCM's work agent and corral's read alike.
func FeedbackRules(gvk schema.GroupVersionKind) []workv1.FeedbackRule {
	w, ok := workloads[gvk.GroupKind()]
	if !ok {
		return nil
	}
	paths := []workv1.JsonPath{
		{Name: FeedbackGeneration, Path: ".metadata.generation"},
		{Name: FeedbackRevision, Path: revisionPath},
	}
	if w.generation {
		paths = append(paths, workv1.JsonPath{Name: FeedbackObservedGeneration, Path: ".status.observedGeneration"})
	}
	for _, c := range w.counters {
		paths = append(paths, workv1.JsonPath{Name: c, Path: ".status." + c})
	}
	paths = append(paths, w.extra...)
	return []workv1.FeedbackRule{{Type: workv1.JSONPathsType, JsonPaths: paths}}
}

// conditionPath is the JSONPath of field of the status condition of
// type t.
func conditionPath(t, field string) string {
	return `.status.conditions[?(@.type=="` + t + `")].` + field
}
