package manifestwork

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/work/adoption"
	"github.com/corral-dev/corral/work/agent/apply"
	"github.com/corral-dev/corral/work/agent/status"
)

// Reasons of the conditions the agent writes.
const (
	ReasonResourceAvailable    = "ResourceAvailable"
	ReasonResourceNotAvailable = "ResourceNotAvailable"
	ReasonResourceUnknown      = "ResourceStatusUnknown"
	// ReasonApplyConflict is the Applied reason of a server-side apply
	// conflict: the api names it in its docs but has no constant for it.
	ReasonApplyConflict = "ApplyConflict"

	ReasonWorkApplied        = "AppliedManifestWorkComplete"
	ReasonWorkApplyFailed    = "AppliedManifestWorkFailed"
	ReasonWorkAvailable      = "ResourcesAvailable"
	ReasonWorkNotAvailable   = "ResourcesNotAvailable"
	ReasonWorkStatusUnknown  = "ResourcesStatusUnknown"
	ReasonWorkDegraded       = "ManifestsDegraded"
	ReasonWorkNotDegraded    = "ManifestsNotDegraded"
	manifestAvailableMessage = "the resource exists on the managed cluster"
	manifestMissingMessage   = "the resource does not exist on the managed cluster"
	manifestAppliedMessage   = "applied to the managed cluster"
	manifestReadOnlyMessage  = "read only: watched, never written"
	manifestCompleteMessage  = "complete, as its conditionRules say: no longer updated"
	manifestDriftKeptMessage = "applied, and left as changed on the cluster since (drift IfNotDrifted): see its Drifted condition"
)

func (r *Reconciler) readFeedback(_ context.Context, s *scope) (steps.Result, error) {
	for i := range s.manifests {
		m := &s.manifests[i]
		if m.config == nil || m.result.Object == nil {
			continue
		}
		if len(m.config.FeedbackRules) > 0 {
			m.feedback, m.feedbackErr = status.Read(m.result.Object, m.config.FeedbackRules, r.opts.RawFeedbackJSON)
			m.feedbackRead = true
		}
		if len(m.config.ConditionRules) > 0 && !m.complete {
			// a complete manifest stays so: its conditions are kept
			m.ruled = r.rules.Evaluate(m.result.Object, m.config.ConditionRules, s.work.Generation)
		}
	}
	return steps.Continue, nil
}

// previous is the manifest's condition in the status as it was, to keep
// transition times and feedback that was not read again.
func previous(old []workv1.ManifestCondition, ordinal int32) *workv1.ManifestCondition {
	for i := range old {
		if old[i].ResourceMeta.Ordinal == ordinal {
			return &old[i]
		}
	}
	return nil
}

// resourceMeta is how the status names the i-th manifest.
func (m manifest) resourceMeta(i int) workv1.ManifestResourceMeta {
	rm := workv1.ManifestResourceMeta{Ordinal: int32(i)}
	if m.obj != nil {
		gvk := m.obj.GroupVersionKind()
		rm.Group, rm.Version, rm.Kind = gvk.Group, gvk.Version, gvk.Kind
		rm.Name, rm.Namespace = m.obj.GetName(), m.obj.GetNamespace()
	}
	if m.mapping != nil {
		rm.Resource = m.mapping.Resource.Resource
		rm.Namespace = m.result.Key.Namespace
	}
	return rm
}

// completed says whether the status has the work Complete, or the i-th
// manifest, as it is now, marked Complete by its conditionRules: the api
// has it no longer updated.
func completed(s *scope, i int) bool {
	if meta.IsStatusConditionTrue(s.before.Status.Conditions, workv1.WorkComplete) {
		return true
	}
	m := s.manifests[i]
	prev := previous(s.before.Status.ResourceStatus.Manifests, int32(i))
	return prev != nil && prev.ResourceMeta == m.resourceMeta(i) && meta.IsStatusConditionTrue(prev.Conditions, workv1.ManifestComplete)
}

func (r *Reconciler) manifestCondition(s *scope, i int) workv1.ManifestCondition {
	m := s.manifests[i]
	gen := s.work.Generation
	mc := workv1.ManifestCondition{ResourceMeta: m.resourceMeta(i)}
	prev := previous(s.before.Status.ResourceStatus.Manifests, int32(i))
	if prev != nil && prev.ResourceMeta == mc.ResourceMeta {
		mc.Conditions = append(mc.Conditions, prev.Conditions...)
		mc.StatusFeedbacks = prev.StatusFeedbacks
	}
	err := m.err
	if err == nil {
		err = m.result.Err
	}
	set := func(t string, st metav1.ConditionStatus, reason, msg string) {
		meta.SetStatusCondition(&mc.Conditions, metav1.Condition{Type: t, Status: st, Reason: reason, Message: msg, ObservedGeneration: gen})
	}
	switch {
	case err != nil:
		set(workv1.ManifestApplied, metav1.ConditionFalse, notAppliedReason(err), err.Error())
		set(workv1.ManifestAvailable, metav1.ConditionUnknown, ReasonResourceUnknown, "the manifest was not applied: "+err.Error())
	case m.readOnly():
		set(workv1.ManifestApplied, metav1.ConditionTrue, workv1.AppliedManifestComplete, manifestReadOnlyMessage)
	case m.complete:
		set(workv1.ManifestApplied, metav1.ConditionTrue, workv1.AppliedManifestComplete, manifestCompleteMessage)
	case m.result.Adoption != nil && m.result.Adoption.Reason == adoption.ReasonDrifted:
		set(workv1.ManifestApplied, metav1.ConditionTrue, adoption.ReasonDrifted, manifestDriftKeptMessage)
	default:
		set(workv1.ManifestApplied, metav1.ConditionTrue, workv1.AppliedManifestComplete, manifestAppliedMessage)
	}
	switch v := m.result.Adoption; {
	case v != nil:
		st := metav1.ConditionTrue
		if v.Reason == adoption.ReasonInSync || v.Reason == adoption.ReasonPutBack {
			st = metav1.ConditionFalse
		}
		set(adoption.ConditionType, st, v.Reason, adoption.Message(adoptionSentences[v.Reason], v.Fields))
	case s.adoption == nil:
		meta.RemoveStatusCondition(&mc.Conditions, adoption.ConditionType)
	}
	if err == nil {
		if m.result.Exists {
			set(workv1.ManifestAvailable, metav1.ConditionTrue, ReasonResourceAvailable, manifestAvailableMessage)
		} else {
			set(workv1.ManifestAvailable, metav1.ConditionFalse, ReasonResourceNotAvailable, manifestMissingMessage)
		}
	}
	switch {
	case m.config == nil || len(m.config.FeedbackRules) == 0:
		meta.RemoveStatusCondition(&mc.Conditions, status.ConditionStatusFeedbackSynced)
		mc.StatusFeedbacks = workv1.StatusFeedbackResult{}
	case m.feedbackErr != nil:
		mc.StatusFeedbacks = m.feedback
		set(status.ConditionStatusFeedbackSynced, metav1.ConditionFalse, status.ReasonFeedbackNotSynced, m.feedbackErr.Error())
	case m.feedbackRead:
		mc.StatusFeedbacks = m.feedback
		set(status.ConditionStatusFeedbackSynced, metav1.ConditionTrue, status.ReasonFeedbackSynced, "status feedback read from the managed cluster")
	}
	for _, c := range m.ruled {
		meta.SetStatusCondition(&mc.Conditions, c)
	}
	return mc
}

// notAppliedReason is the reason of the Applied condition of a manifest
// that failed to apply with err.
func notAppliedReason(err error) string {
	var conflict *apply.ConflictError
	var ignoreFields *apply.IgnoreFieldsError
	var notAdopted *apply.NotAdoptedError
	switch {
	case errors.As(err, &notAdopted):
		return adoption.ReasonNotAdopted
	case errors.As(err, &conflict):
		return ReasonApplyConflict
	case errors.As(err, &ignoreFields):
		return workv1.AppliedManifestSSAIgnoreFieldError
	}
	return workv1.AppliedManifestFailed
}

// adoptionSentences say what each verdict of an adoption policy means,
// in the adoption.ConditionType condition's message.
var adoptionSentences = map[string]string{
	adoption.ReasonInSync:      "the object is as the manifest says",
	adoption.ReasonNotAdopted:  "the cluster had the object, made by no ManifestWork, and the adoption policy leaves it as it is",
	adoption.ReasonDrifted:     "changed on the cluster since it was applied, and left so (drift IfNotDrifted)",
	adoption.ReasonPutBack:     "changed on the cluster since it was applied, and put back (drift Always)",
	adoption.ReasonWouldChange: "applying would change the object (mode ReportDiff: nothing is applied)",
	adoption.ReasonWouldCreate: "applying would create the object (mode ReportDiff: nothing is applied)",
}

func (r *Reconciler) writeStatus(ctx context.Context, s *scope) (steps.Result, error) {
	st := s.work.Status.DeepCopy()
	st.ResourceStatus.Manifests = make([]workv1.ManifestCondition, len(s.manifests))
	applied, failed, available, unknown, degraded := 0, 0, 0, 0, 0
	for i := range s.manifests {
		mc := r.manifestCondition(s, i)
		st.ResourceStatus.Manifests[i] = mc
		switch {
		case meta.IsStatusConditionTrue(mc.Conditions, workv1.ManifestApplied):
			applied++
		case !s.manifests[i].waiting:
			failed++
		}
		if meta.IsStatusConditionTrue(mc.Conditions, workv1.ManifestDegraded) {
			degraded++
		}
		switch c := meta.FindStatusCondition(mc.Conditions, workv1.ManifestAvailable); {
		case c == nil || c.Status == metav1.ConditionUnknown:
			unknown++
		case c.Status == metav1.ConditionTrue:
			available++
		}
	}
	n := len(s.manifests)
	gen := s.work.Generation
	set := func(t string, ok bool, yes, no, msg string) {
		c := metav1.Condition{Type: t, Status: metav1.ConditionTrue, Reason: yes, Message: msg, ObservedGeneration: gen}
		if !ok {
			c.Status, c.Reason = metav1.ConditionFalse, no
		}
		meta.SetStatusCondition(&st.Conditions, c)
	}
	set(workv1.WorkApplied, applied == n, ReasonWorkApplied, ReasonWorkApplyFailed, fmt.Sprintf("%d of %d manifests applied", applied, n))
	if unknown > 0 && available+unknown == n {
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: workv1.WorkAvailable, Status: metav1.ConditionUnknown,
			Reason: ReasonWorkStatusUnknown, Message: fmt.Sprintf("%d of %d manifests have no known status", unknown, n), ObservedGeneration: gen})
	} else {
		set(workv1.WorkAvailable, available == n, ReasonWorkAvailable, ReasonWorkNotAvailable, fmt.Sprintf("%d of %d resources available", available, n))
	}
	done := applied == n && available == n
	progressing := metav1.Condition{Type: workv1.WorkProgressing, Status: metav1.ConditionFalse, Reason: workv1.WorkProgressingReasonCompleted,
		Message: "every manifest is applied and available", ObservedGeneration: gen}
	switch {
	case failed > 0:
		progressing.Status, progressing.Reason, progressing.Message = metav1.ConditionTrue, workv1.WorkProgressingReasonFailed,
			fmt.Sprintf("%d of %d manifests failed to apply: see their Applied conditions", failed, n)
	case !done:
		progressing.Status, progressing.Reason, progressing.Message = metav1.ConditionTrue, workv1.WorkProgressingReasonApplying, "not every manifest is applied and available yet"
	}
	meta.SetStatusCondition(&st.Conditions, progressing)
	set(workv1.WorkDegraded, degraded > 0, ReasonWorkDegraded, ReasonWorkNotDegraded, fmt.Sprintf("%d of %d manifests degraded", degraded, n))
	if s.adoption != nil {
		set(adoption.WorkConditionType, true, adoption.ReasonFollowed, "", "the agent follows the work's adoption policy: see each manifest's "+adoption.ConditionType+" condition")
	} else {
		meta.RemoveStatusCondition(&st.Conditions, adoption.WorkConditionType)
	}
	r.setComplete(s, st)
	if equality.Semantic.DeepEqual(*st, s.before.Status) || r.statuses.seen(s.work.UID, withoutTransitionTimes(st)) {
		return steps.Continue, nil
	}
	s.work.Status = *st
	if err := r.hub.Status().Update(ctx, s.work); err != nil {
		r.statuses.forget(s.work.UID)
		return steps.StopList, fmt.Errorf("writing the status: %w", err)
	}
	return steps.Continue, nil
}

// withoutTransitionTimes is st with every condition's transition time
// cleared: two computations of one status differ in those alone when a
// condition was set anew from a cache that had not seen it yet.
func withoutTransitionTimes(st *workv1.ManifestWorkStatus) *workv1.ManifestWorkStatus {
	st = st.DeepCopy()
	clear := func(cs []metav1.Condition) {
		for i := range cs {
			cs[i].LastTransitionTime = metav1.Time{}
		}
	}
	clear(st.Conditions)
	for i := range st.ResourceStatus.Manifests {
		clear(st.ResourceStatus.Manifests[i].Conditions)
	}
	return st
}

// setComplete sets the work's Complete condition when manifests have a
// Complete condition rule: True once all of those are Complete.
func (r *Reconciler) setComplete(s *scope, st *workv1.ManifestWorkStatus) {
	ruled, complete := 0, 0
	for i, m := range s.manifests {
		if m.config == nil || !slices.ContainsFunc(m.config.ConditionRules, func(c workv1.ConditionRule) bool {
			return c.Condition == workv1.ManifestComplete || (c.Condition == "" && c.Type == workv1.WellKnownConditionsType)
		}) {
			continue
		}
		ruled++
		if meta.IsStatusConditionTrue(st.ResourceStatus.Manifests[i].Conditions, workv1.ManifestComplete) {
			complete++
		}
	}
	if ruled == 0 {
		meta.RemoveStatusCondition(&st.Conditions, workv1.WorkComplete)
		return
	}
	c := metav1.Condition{Type: workv1.WorkComplete, Status: metav1.ConditionFalse, Reason: workv1.WorkManifestsComplete,
		Message: fmt.Sprintf("%d of %d manifests with a Complete rule are complete", complete, ruled), ObservedGeneration: s.work.Generation}
	if complete == ruled {
		c.Status = metav1.ConditionTrue
	}
	meta.SetStatusCondition(&st.Conditions, c)
}
