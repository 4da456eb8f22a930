package distribute

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/work/adoption"
)

// Condition reasons besides the API's (v1alpha1.Reason*).
const (
	// ReasonScheduled: the placements select clusters for the revision.
	ReasonScheduled = "Scheduled"
	// ReasonNoClusters: the placements' decisions select no cluster.
	ReasonNoClusters = "NoClusters"
	// ReasonNotScheduled: nothing is delivered; Scheduled says why.
	ReasonNotScheduled = "NotScheduled"
	// ReasonDelivered, per cluster: its works carry the delivered revision.
	ReasonDelivered = "Delivered"
	// ReasonWaitingForRollout, per cluster: the rollout has not reached it.
	ReasonWaitingForRollout = "WaitingForRollout"
	// ReasonNotReported: the work agent has not reported on the current
	// works yet.
	ReasonNotReported = "NotReported"
	// ReasonApplied and ReasonAvailable: every work is.
	ReasonApplied   = "Applied"
	ReasonAvailable = "Available"
	// ReasonProgressing: some clusters are not there yet.
	ReasonProgressing = "Progressing"
	// ReasonFailed: some clusters failed.
	ReasonFailed = "Failed"
	// ReasonWriteFailed: a ManifestWork could not be written.
	ReasonWriteFailed = "WriteFailed"
	// ReasonApplyFailed, per cluster: the work agent could not apply a work.
	ReasonApplyFailed = "ApplyFailed"
	// ReasonProgressDeadlineExceeded, per cluster: not done within the
	// rollout's progressDeadline.
	ReasonProgressDeadlineExceeded = "ProgressDeadlineExceeded"
	// ReasonNoFailure, per cluster: Failed is False.
	ReasonNoFailure = "NoFailure"
	// ReasonReportDiff, per cluster: adoption mode ReportDiff applies
	// nothing.
	ReasonReportDiff = "ReportDiff"
	// ReasonAdoptionUnsupported, per cluster (AdoptionFollowed False):
	// its work agent ignores spec.adoption.
	ReasonAdoptionUnsupported = "AdoptionUnsupported"
)

// updateStatus writes the delivery's part of the status, once, when it
// changed, guarded by the resourceVersion read: the Selected condition is
// another controller's. A status in progress waits for the pacer.
func (r *Reconciler) updateStatus(ctx context.Context, s *scope) (steps.Result, error) {
	st := s.p.status
	gen := s.p.obj.GetGeneration()
	st.ObservedGeneration = gen
	if s.newest > 0 {
		st.CurrentRevision = s.newest
	}
	if s.delivered != nil {
		st.DeliveredRevision = s.delivered.number
		st.Objects = objectRefs(s.delivered.objects)
	}
	st.Clusters = s.clusterStatuses(ctx, st.Clusters)
	st.Summary = summarize(st.Clusters)
	for _, c := range []metav1.Condition{s.scheduled(st.Summary), s.applied(st.Summary, st.Clusters), s.available(st.Summary)} {
		c.ObservedGeneration = gen
		c.LastTransitionTime = metav1.NewTime(s.now)
		meta.SetStatusCondition(&st.Conditions, c)
	}
	key := client.ObjectKeyFromObject(s.original)
	if s.wroteWorks {
		r.pace.wrote(key)
	}
	if equality.Semantic.DeepEqual(view(s.original).status, st) {
		return steps.Continue, nil
	}
	if !settled(st) {
		if wait := r.pace.wait(key); wait > 0 {
			ctrl.LoggerFrom(ctx).V(4).Info("Holding the status in progress back", "for", wait, "summary", st.Summary)
			return steps.Result{RequeueAfter: wait}, nil
		}
	}
	// Not a merge patch of the difference: the summary's counters are
	// required, and a diff from a status that had no summary sends only
	// those that are not 0, which the API server refuses. The update
	// carries the resourceVersion read: a conflict brings the
	// propagation back rather than overwriting the selector's Selected.
	if err := r.Client.Status().Update(ctx, s.p.obj); err != nil {
		return steps.Continue, fmt.Errorf("updating the status: %w", err)
	}
	r.pace.wrote(key)
	ctrl.LoggerFrom(ctx).V(4).Info("Updated the status", "summary", st.Summary)
	return steps.Continue, nil
}

// decided are the clusters the placements select, by the placement ref
// that has them.
func (s *scope) decided() sets.Set[string] {
	out := sets.New[string]()
	for _, p := range s.placements {
		out = out.Union(p.decided)
	}
	return out
}

// clusterStatuses are the status of every selected cluster, in name
// order, from the old ones (for their conditions' transition times).
func (s *scope) clusterStatuses(ctx context.Context, old []v1alpha1.ClusterStatus) []v1alpha1.ClusterStatus {
	timedOut := sets.New[string]()
	for _, p := range s.placements {
		timedOut = timedOut.Union(p.timedOut)
	}
	byCluster := s.worksByCluster()
	var out []v1alpha1.ClusterStatus
	for _, cluster := range sets.List(s.decided()) {
		cs := v1alpha1.ClusterStatus{Cluster: cluster}
		if i := slices.IndexFunc(old, func(c v1alpha1.ClusterStatus) bool { return c.Cluster == cluster }); i >= 0 {
			cs.Conditions = slices.Clone(old[i].Conditions)
		}
		works := byCluster[cluster]
		cs.Revision = lowestRevision(works)
		cont := s.contentOf(ctx, cluster)
		cs.Overrides, cs.Replicas = cont.overrides, cont.replicas
		cs.Drift = driftOf(works)
		for _, c := range s.clusterConditions(ctx, cluster, works, timedOut.Has(cluster)) {
			c.LastTransitionTime = metav1.NewTime(s.now)
			meta.SetStatusCondition(&cs.Conditions, c)
		}
		if ignoresAdoption(works) {
			meta.SetStatusCondition(&cs.Conditions, metav1.Condition{Type: adoption.WorkConditionType, Status: metav1.ConditionFalse,
				Reason: ReasonAdoptionUnsupported, Message: adoptionUnsupported, LastTransitionTime: metav1.NewTime(s.now)})
		} else {
			meta.RemoveStatusCondition(&cs.Conditions, adoption.WorkConditionType)
		}
		out = append(out, cs)
	}
	return out
}

// lowestRevision is the lowest revision the works carry, 0 for none.
func lowestRevision(works []workv1.ManifestWork) int64 {
	var out int64
	for i := range works {
		if n := revisionOf(&works[i]); out == 0 || n < out {
			out = n
		}
	}
	return out
}

// clusterConditions are a cluster's Scheduled, Applied, Available and
// Failed, from its works; Scheduled False and Failed when the revision
// cannot be made for it.
func (s *scope) clusterConditions(ctx context.Context, cluster string, works []workv1.ManifestWork, timedOut bool) []metav1.Condition {
	scheduled := metav1.Condition{Type: v1alpha1.ConditionScheduled, Status: metav1.ConditionTrue, Reason: ReasonDelivered,
		Message: fmt.Sprintf("revision %d in %d ManifestWorks", lowestRevision(works), len(works))}
	failed := failedCondition(works, timedOut)
	switch cont := s.contentOf(ctx, cluster); {
	case s.delivered == nil:
		scheduled.Status, scheduled.Reason, scheduled.Message = metav1.ConditionFalse, s.revisionProblem, s.revisionMessage
	case cont.err != nil:
		msg := fmt.Sprintf("revision %d: %v; the cluster keeps what it has", s.delivered.number, cont.err)
		scheduled.Status, scheduled.Reason, scheduled.Message = metav1.ConditionFalse, cont.reason(), msg
		failed = metav1.Condition{Type: v1alpha1.ConditionFailed, Status: metav1.ConditionTrue, Reason: cont.reason(), Message: msg}
	case !s.carriesDelivered(ctx, cluster, works):
		scheduled.Status, scheduled.Reason = metav1.ConditionFalse, ReasonWaitingForRollout
		scheduled.Message = fmt.Sprintf("the rollout of revision %d has not reached the cluster", s.delivered.number)
	}
	applied := worksCondition(works, workv1.WorkApplied, ReasonApplied)
	available := worksCondition(works, workv1.WorkAvailable, ReasonAvailable)
	switch {
	case scheduled.Status != metav1.ConditionTrue:
		applied.Status, applied.Reason, applied.Message = metav1.ConditionFalse, ReasonNotScheduled, scheduled.Message
		available.Status, available.Reason, available.Message = metav1.ConditionFalse, ReasonNotScheduled, scheduled.Message
	case s.adoption.Mode == adoption.ModeReportDiff:
		const msg = "adoption mode ReportDiff: nothing is applied; drift lists what applying would change"
		applied.Status, applied.Reason, applied.Message = metav1.ConditionFalse, ReasonReportDiff, msg
		available.Status, available.Reason, available.Message = metav1.ConditionFalse, ReasonReportDiff, msg
	}
	return []metav1.Condition{scheduled, applied, available, failed}
}

// worksCondition is condType of a cluster: True when every work reports
// it True for its current generation; else False, with the reason and
// message of the first work that does not.
func worksCondition(works []workv1.ManifestWork, condType, reason string) metav1.Condition {
	out := metav1.Condition{Type: condType, Status: metav1.ConditionTrue, Reason: reason,
		Message: fmt.Sprintf("%s on all %d ManifestWorks", condType, len(works))}
	for i := range works {
		w := &works[i]
		c := meta.FindStatusCondition(w.Status.Conditions, condType)
		switch {
		case !observed(c, w.Generation):
			out.Status, out.Reason, out.Message = metav1.ConditionFalse, ReasonNotReported, fmt.Sprintf("the work agent has not reported %s on ManifestWork %s yet", condType, w.Name)
		case c.Status != metav1.ConditionTrue:
			out.Status, out.Reason, out.Message = metav1.ConditionFalse, orReason(c.Reason, ReasonProgressing), fmt.Sprintf("ManifestWork %s: %s", w.Name, c.Message)
		default:
			continue
		}
		return out
	}
	return out
}

// failedCondition is a cluster's Failed: True past its progressDeadline,
// or when a work could not be applied or is Degraded.
func failedCondition(works []workv1.ManifestWork, timedOut bool) metav1.Condition {
	for i := range works {
		w := &works[i]
		if c := meta.FindStatusCondition(w.Status.Conditions, workv1.WorkApplied); observed(c, w.Generation) && c.Status == metav1.ConditionFalse {
			return metav1.Condition{Type: v1alpha1.ConditionFailed, Status: metav1.ConditionTrue, Reason: ReasonApplyFailed, Message: fmt.Sprintf("ManifestWork %s: %s", w.Name, c.Message)}
		}
		if c := meta.FindStatusCondition(w.Status.Conditions, workv1.WorkDegraded); observed(c, w.Generation) && c.Status == metav1.ConditionTrue {
			return metav1.Condition{Type: v1alpha1.ConditionFailed, Status: metav1.ConditionTrue, Reason: orReason(c.Reason, ReasonFailed), Message: fmt.Sprintf("ManifestWork %s: %s", w.Name, c.Message)}
		}
	}
	if timedOut {
		return metav1.Condition{Type: v1alpha1.ConditionFailed, Status: metav1.ConditionTrue, Reason: ReasonProgressDeadlineExceeded, Message: "not done within the rollout's progressDeadline"}
	}
	return metav1.Condition{Type: v1alpha1.ConditionFailed, Status: metav1.ConditionFalse, Reason: ReasonNoFailure, Message: "no ManifestWork failed"}
}

// orReason is a work's condition reason, or def when the agent gave none.
func orReason(reason, def string) string {
	if reason == "" {
		return def
	}
	return reason
}

// summarize counts the clusters by their conditions.
func summarize(clusters []v1alpha1.ClusterStatus) v1alpha1.PropagationSummary {
	sum := v1alpha1.PropagationSummary{Total: int32(len(clusters))}
	for _, c := range clusters {
		if meta.IsStatusConditionTrue(c.Conditions, v1alpha1.ConditionApplied) {
			sum.Applied++
		}
		if meta.IsStatusConditionTrue(c.Conditions, v1alpha1.ConditionAvailable) {
			sum.Available++
		}
		if meta.IsStatusConditionTrue(c.Conditions, v1alpha1.ConditionFailed) {
			sum.Failed++
		}
	}
	return sum
}

// scheduled is the propagation's Scheduled: True when there is a revision
// to deliver and the placements, all found, select clusters.
func (s *scope) scheduled(sum v1alpha1.PropagationSummary) metav1.Condition {
	c := metav1.Condition{Type: v1alpha1.ConditionScheduled, Status: metav1.ConditionFalse}
	if s.delivered == nil {
		c.Reason, c.Message = s.revisionProblem, s.revisionMessage
		return c
	}
	var names []string
	for _, p := range s.placements {
		if p.problem != "" {
			c.Reason, c.Message = p.problem, p.message
			return c
		}
		names = append(names, p.ref.String())
	}
	if sum.Total == 0 {
		c.Reason, c.Message = ReasonNoClusters, "the placements' decisions select no cluster"
		return c
	}
	c.Status, c.Reason = metav1.ConditionTrue, ReasonScheduled
	c.Message = fmt.Sprintf("revision %d to %d clusters selected by %s", s.delivered.number, sum.Total, strings.Join(names, ", "))
	return c
}

// applied is the propagation's Applied: True when every selected cluster
// applied the delivered revision.
func (s *scope) applied(sum v1alpha1.PropagationSummary, clusters []v1alpha1.ClusterStatus) metav1.Condition {
	c := metav1.Condition{Type: v1alpha1.ConditionApplied, Status: metav1.ConditionFalse}
	switch {
	case s.rolloutErr != nil:
		c.Reason, c.Message = ReasonWriteFailed, firstLine(s.rolloutErr.Error())
	case s.delivered == nil || sum.Total == 0:
		c.Reason, c.Message = ReasonNotScheduled, "nothing is delivered: see Scheduled"
	case sum.Failed > 0:
		c.Reason, c.Message = ReasonFailed, fmt.Sprintf("%d of %d clusters failed; %s", sum.Failed, sum.Total, firstFailure(clusters))
	case sum.Applied == sum.Total:
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, ReasonApplied, fmt.Sprintf("all %d clusters applied revision %d", sum.Total, s.delivered.number)
	default:
		c.Reason, c.Message = ReasonProgressing, fmt.Sprintf("%d of %d clusters applied revision %d", sum.Applied, sum.Total, s.delivered.number)
	}
	return c
}

// available is the propagation's Available: True when every delivered
// object is available on every selected cluster.
func (s *scope) available(sum v1alpha1.PropagationSummary) metav1.Condition {
	c := metav1.Condition{Type: v1alpha1.ConditionAvailable, Status: metav1.ConditionFalse}
	switch {
	case s.delivered == nil || sum.Total == 0:
		c.Reason, c.Message = ReasonNotScheduled, "nothing is delivered: see Scheduled"
	case sum.Available == sum.Total:
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, ReasonAvailable, fmt.Sprintf("revision %d is available on all %d clusters", s.delivered.number, sum.Total)
	default:
		c.Reason, c.Message = ReasonProgressing, fmt.Sprintf("revision %d is available on %d of %d clusters", s.delivered.number, sum.Available, sum.Total)
	}
	return c
}

// firstFailure names the first failed cluster and why.
func firstFailure(clusters []v1alpha1.ClusterStatus) string {
	for _, cs := range clusters {
		if c := meta.FindStatusCondition(cs.Conditions, v1alpha1.ConditionFailed); c != nil && c.Status == metav1.ConditionTrue {
			return fmt.Sprintf("%s: %s", cs.Cluster, c.Message)
		}
	}
	return ""
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// objectRefs names the manifests' objects, as far as they decode.
func objectRefs(manifests []workv1.Manifest) []v1alpha1.ObjectReference {
	out := make([]v1alpha1.ObjectReference, 0, len(manifests))
	for _, m := range manifests {
		var obj struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct {
				Namespace string `json:"namespace"`
				Name      string `json:"name"`
			} `json:"metadata"`
		}
		if json.Unmarshal(m.Raw, &obj) != nil {
			continue
		}
		gv, _ := schema.ParseGroupVersion(obj.APIVersion)
		out = append(out, v1alpha1.ObjectReference{Group: gv.Group, Version: gv.Version, Kind: obj.Kind, Namespace: obj.Metadata.Namespace, Name: obj.Metadata.Name})
	}
	return out
}

// observed says c is reported for the work's current generation.
func observed(c *metav1.Condition, generation int64) bool {
	return c != nil && c.ObservedGeneration == generation
}
