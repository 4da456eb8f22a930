package status

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/api/meta"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/aggregate"
	"github.com/corral-dev/corral/propagation/hub/workindex"
)

// collectMembers reads, for each target, each cluster's member from the
// propagation's works. The clusters are those of status.clusters and
// those holding a work that is not being deleted. A target one of whose
// members cannot be read is left out (nil), and said so.
func (r *Reconciler) collectMembers(ctx context.Context, s *scope) (steps.Result, error) {
	// Read only: the works are the cache's own.
	works, err := workindex.List(ctx, r.Client, s.obj.GetNamespace(), s.obj.GetName(), true)
	if err != nil {
		return steps.StopList, err
	}
	byCluster := map[string][]*workv1.ManifestWork{}
	for _, c := range s.status.Clusters {
		byCluster[c.Cluster] = nil
	}
	for i := range works {
		w := &works[i]
		if w.DeletionTimestamp.IsZero() {
			byCluster[w.Namespace] = append(byCluster[w.Namespace], w)
		}
	}
	var errs []error
	s.members = make([]map[string]aggregate.Member, len(s.targets))
	for i, t := range s.targets {
		members := make(map[string]aggregate.Member, len(byCluster))
		var err error
		for cluster, works := range byCluster {
			if members[cluster], err = memberOf(t, works, s.status.DeliveredRevision); err != nil {
				errs = append(errs, fmt.Errorf("%s %s/%s on cluster %s: %w", t.gvk.Kind, t.id.Namespace, t.id.Name, cluster, err))
				break
			}
		}
		if err == nil {
			s.members[i] = members
		}
	}
	return steps.Continue, errors.Join(errs...)
}

// memberOf is the cluster's member for t, read from the first of its
// works that reports t; the zero Member when none does. An object that
// fed its revision label back is Outdated when the label is not the
// delivered revision (aggregate.NewMember), whatever its work says: the
// work agent may have applied the new spec and still report feedback it
// read from the object before, until it polls again. An object that fed
// no label (delivered before objects carried it, or by an agent that
// reads no such rule) is Outdated when its work is not current.
func memberOf(t target, works []*workv1.ManifestWork, delivered int64) (aggregate.Member, error) {
	for _, w := range works {
		for _, mc := range w.Status.ResourceStatus.Manifests {
			rm := mc.ResourceMeta
			if rm.Group != t.id.Group || rm.Resource != t.id.Resource || rm.Namespace != t.id.Namespace || rm.Name != t.id.Name {
				continue
			}
			m, err := aggregate.NewMember(mc.StatusFeedbacks, delivered)
			if err != nil {
				return aggregate.Member{}, err
			}
			if _, labelled := m.Values[aggregate.FeedbackRevision]; !labelled || delivered == 0 {
				m.Outdated = !current(w, delivered)
			}
			return m, nil
		}
	}
	return aggregate.Member{}, nil
}

// current says whether w carries the delivered revision and its work
// agent applied w's current generation.
func current(w *workv1.ManifestWork, delivered int64) bool {
	if w.Labels[v1alpha1.LabelRevision] != strconv.FormatInt(delivered, 10) {
		return false
	}
	applied := meta.FindStatusCondition(w.Status.Conditions, workv1.WorkApplied)
	return applied != nil && applied.ObservedGeneration == w.Generation
}
