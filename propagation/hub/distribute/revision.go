package distribute

import (
	"context"
	"errors"
	"fmt"

	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/override"
	revisions "github.com/corral-dev/corral/propagation/hub/revision"
)

// ReasonNoRevision says the propagation has no revision yet: the selector
// controller has not made one.
const ReasonNoRevision = "NoRevision"

// pickRevision finds the revision to deliver: the pinned one, or the
// newest; and splits its manifests into the parts of a cluster's works.
// When there is none, or no work can carry it, the reason is kept for the
// status and nothing is delivered: what runs on the clusters stays.
func (r *Reconciler) pickRevision(ctx context.Context, s *scope) (steps.Result, error) {
	all, err := s.p.revisions(ctx, r.Client)
	if err != nil {
		return steps.StopList, err
	}
	var newest, pinned *revision
	for i := range all {
		rev := &all[i]
		if newest == nil || rev.number > newest.number {
			newest = rev
		}
		if pin := s.p.policy.Revision; pin != nil && rev.number == *pin {
			pinned = rev
		}
	}
	if newest != nil {
		s.newest = newest.number
	}
	switch pin := s.p.policy.Revision; {
	case pin != nil && pinned == nil:
		s.revisionProblem, s.revisionMessage = v1alpha1.ReasonRevisionNotFound, fmt.Sprintf("revision %d, which spec.revision pins, does not exist; the clusters keep what they run", *pin)
		return steps.Continue, nil
	case pin != nil:
		s.delivered = pinned
	case newest == nil:
		s.revisionProblem, s.revisionMessage = ReasonNoRevision, "no revision of the selected objects yet"
		return steps.Continue, nil
	default:
		s.delivered = newest
	}
	contents, err := r.newContents(s.delivered, s.p.policy)
	switch {
	case errors.As(err, new(*policyError)):
		s.revisionProblem, s.revisionMessage = v1alpha1.ReasonInvalidReplicaScheduling, fmt.Sprintf("%v; the clusters keep what they run", err)
	case errors.Is(err, revisions.ErrTooLarge):
		s.revisionProblem, s.revisionMessage = v1alpha1.ReasonTooLarge, fmt.Sprintf("revision %d: %v", s.delivered.number, err)
	case errors.As(err, new(*override.Error)):
		s.revisionProblem, s.revisionMessage = v1alpha1.ReasonOverrideInvalid, fmt.Sprintf("revision %d: %v; the clusters keep what they run", s.delivered.number, err)
	case err != nil:
		return steps.StopList, fmt.Errorf("splitting revision %d: %w", s.delivered.number, err)
	default:
		s.contents, s.adoption = contents, policyOf(s.p.policy.Adoption)
		if s.strategies, err = strategies(s.p.policy.Adoption, s.delivered.objects, r.Mapper); err == nil {
			return steps.Continue, nil
		}
		s.revisionProblem, s.revisionMessage = v1alpha1.ReasonUnknownKind, fmt.Sprintf("revision %d: %v; the clusters keep what they run", s.delivered.number, err)
	}
	s.delivered = nil
	return steps.Continue, nil
}
