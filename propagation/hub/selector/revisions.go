package selector

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/revision"
	"github.com/corral-dev/corral/propagation/hub/revisionindex"
)

// DefaultRevisionHistoryLimit is how many revisions are kept besides the
// newest and the pinned one when the spec says nothing (the CRD defaults
// it; a Go client may not).
const DefaultRevisionHistoryLimit = 10

// RevisionName is the name of a propagation's revision n.
func RevisionName(propagation string, n int64) string {
	return propagation + "-" + strconv.FormatInt(n, 10)
}

// newest is the newest revision's number, 0 for none.
func (s *scope) newest() int64 {
	if len(s.revisions) == 0 {
		return 0
	}
	return s.revisions[len(s.revisions)-1].Spec.Revision
}

// listRevisions reads the propagation's revisions, oldest first.
func (r *Reconciler) listRevisions(ctx context.Context, s *scope) (steps.Result, error) {
	revs, err := revisionindex.List(ctx, r.Client, s.namespace, s.obj.GetName())
	if err != nil {
		return steps.StopList, err
	}
	s.revisions = revs
	return steps.Continue, nil
}

// writeRevision writes the selected objects, with the override policies
// that change them, as revision newest+1 when their hash differs from the
// newest revision's, each labelled with the
// revision's number (revision.Labelled; the hash is of the objects
// without it), but the Namespace a Propagation brings. A revision of that
// number existing already (the cache has not seen it yet) is looked at
// again soon.
func (r *Reconciler) writeRevision(ctx context.Context, s *scope) (steps.Result, error) {
	if s.blocked() {
		return steps.Continue, nil
	}
	hash, err := revision.HashWithOverrides(s.objects, s.overrides)
	if err != nil {
		s.block(v1alpha1.ReasonUndecodable, err.Error())
		return steps.Continue, nil
	}
	if n := len(s.revisions); n > 0 && s.revisions[n-1].Spec.Hash == hash {
		return steps.Continue, nil
	}
	n := s.newest() + 1
	objs := revision.Labelled(s.objects, n)
	for i, obj := range s.objects {
		if obj == s.brought {
			objs[i] = obj // shared on the clusters: see bringNamespace
		}
	}
	manifests, err := revision.Manifests(objs)
	if err != nil {
		s.block(v1alpha1.ReasonUndecodable, err.Error())
		return steps.Continue, nil
	}
	spec := v1alpha1.RevisionSpec{Revision: n, Hash: hash, Objects: manifests, Overrides: s.overrides}
	rev := s.newRevisionObject(spec)
	if err := controllerutil.SetControllerReference(s.obj, rev, r.Client.Scheme()); err != nil {
		return steps.StopList, err
	}
	if err := r.Client.Create(ctx, rev); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return steps.Result{Stop: true, RequeueAfter: steps.ConflictRetry}, nil
		}
		if apierrors.IsRequestEntityTooLargeError(err) {
			s.block(v1alpha1.ReasonTooLarge, fmt.Sprintf("revision %d is too large to write: %v", spec.Revision, err))
			return steps.Continue, nil
		}
		if apierrors.IsInvalid(err) {
			s.block(v1alpha1.ReasonUndecodable, fmt.Sprintf("revision %d was refused: %v", spec.Revision, err))
			return steps.Continue, nil
		}
		return steps.StopList, fmt.Errorf("creating revision %d: %w", spec.Revision, err)
	}
	ctrl.LoggerFrom(ctx).V(1).Info("Wrote a new revision", "revision", spec.Revision, "hash", hash, "objects", len(manifests))
	s.revisions = append(s.revisions, revisionindex.Revision{Obj: rev, Spec: spec})
	return steps.Continue, nil
}

// newRevisionObject is the revision object of spec, named and labelled
// for the propagation.
func (s *scope) newRevisionObject(spec v1alpha1.RevisionSpec) client.Object {
	meta := metav1.ObjectMeta{
		Name:      RevisionName(s.obj.GetName(), spec.Revision),
		Namespace: s.namespace,
		Labels: map[string]string{
			v1alpha1.LabelPropagation: s.obj.GetName(),
			v1alpha1.LabelRevision:    strconv.FormatInt(spec.Revision, 10),
		},
	}
	if s.namespace != "" {
		return &v1alpha1.PropagationRevision{ObjectMeta: meta, Spec: spec}
	}
	return &v1alpha1.ClusterPropagationRevision{ObjectMeta: meta, Spec: spec}
}

// prune deletes the oldest revisions beyond revisionHistoryLimit, never
// the newest nor the pinned one.
func (r *Reconciler) prune(ctx context.Context, s *scope) (steps.Result, error) {
	limit := DefaultRevisionHistoryLimit
	if s.policy.RevisionHistoryLimit != nil {
		limit = int(*s.policy.RevisionHistoryLimit)
	}
	newest := s.newest()
	var keep []revisionindex.Revision
	kept := 0
	// Newest first: the first limit others are kept.
	for i := len(s.revisions) - 1; i >= 0; i-- {
		rev := s.revisions[i]
		n := rev.Spec.Revision
		pinned := s.policy.Revision != nil && *s.policy.Revision == n
		if n == newest || pinned {
			keep = append(keep, rev)
			continue
		}
		if kept < limit {
			kept++
			keep = append(keep, rev)
			continue
		}
		if err := r.Client.Delete(ctx, rev.Obj); client.IgnoreNotFound(err) != nil {
			return steps.StopList, fmt.Errorf("pruning revision %d: %w", n, err)
		}
		ctrl.LoggerFrom(ctx).V(1).Info("Pruned a revision", "revision", n)
	}
	slices.Reverse(keep)
	s.revisions = keep
	return steps.Continue, nil
}
