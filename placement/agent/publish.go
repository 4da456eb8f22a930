package agent

import (
	"context"
	"fmt"
	"slices"
	"time"

	placementapi "github.com/corral-dev/corral/placement/api"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	clusterv1alpha1client "open-cluster-management.io/api/client/cluster/clientset/versioned/typed/cluster/v1alpha1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
)

// publisher keeps the AddOnPlacementScore resource-usage of one cluster
// namespace on the hub.
type publisher struct {
	client    clusterv1alpha1client.AddOnPlacementScoresGetter
	namespace string
	clock     clock.PassiveClock
	validFor  time.Duration
	// last is what the hub held after the last read or write; nil until
	// then, or after a failed write.
	last *clusterv1alpha1.AddOnPlacementScore
}

// needsWrite says whether status must be rewritten to hold scores: when a
// score differs, or validUntil is unset or less than half of validFor away.
func needsWrite(status clusterv1alpha1.AddOnPlacementScoreStatus, scores []clusterv1alpha1.AddOnPlacementScoreItem, now time.Time, validFor time.Duration) bool {
	if !slices.Equal(status.Scores, scores) {
		return true
	}
	return status.ValidUntil == nil || status.ValidUntil.Sub(now) <= validFor/2
}

// refreshAt is when scores valid until validUntil must be written again.
func (p *publisher) refreshAt(validUntil time.Time) time.Time {
	return validUntil.Add(-p.validFor / 2)
}

// publish writes scores unless the hub holds them already with enough
// validity left, and says when they must be written again and whether it
// wrote.
func (p *publisher) publish(ctx context.Context, scores []clusterv1alpha1.AddOnPlacementScoreItem) (time.Time, bool, error) {
	now := p.clock.Now()
	if p.last != nil && !needsWrite(p.last.Status, scores, now, p.validFor) {
		return p.refreshAt(p.last.Status.ValidUntil.Time), false, nil
	}
	current, err := p.read(ctx)
	if err != nil {
		return time.Time{}, false, err
	}
	if !needsWrite(current.Status, scores, now, p.validFor) {
		p.last = current
		return p.refreshAt(current.Status.ValidUntil.Time), false, nil
	}
	updated := current.DeepCopy()
	updated.Status.Scores = scores
	// The API keeps seconds; so does validUntil here, so that what is
	// written is what is read back.
	validUntil := metav1.NewTime(now.Add(p.validFor).Truncate(time.Second))
	updated.Status.ValidUntil = &validUntil
	written, err := p.client.AddOnPlacementScores(p.namespace).UpdateStatus(ctx, updated, metav1.UpdateOptions{})
	if err != nil {
		p.last = nil
		return time.Time{}, false, fmt.Errorf("writing the scores of AddOnPlacementScore %s/%s: %w", p.namespace, placementapi.ScoreName, err)
	}
	p.last = written
	klog.FromContext(ctx).V(1).Info("Published the cluster's resource scores", "scores", scores, "validUntil", validUntil.Time)
	return p.refreshAt(validUntil.Time), true, nil
}

// read gets the AddOnPlacementScore, creating it (with no scores) when
// there is none.
func (p *publisher) read(ctx context.Context) (*clusterv1alpha1.AddOnPlacementScore, error) {
	scores := p.client.AddOnPlacementScores(p.namespace)
	current, err := scores.Get(ctx, placementapi.ScoreName, metav1.GetOptions{})
	if err == nil {
		return current, nil
	}
	if !apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("reading AddOnPlacementScore %s/%s: %w", p.namespace, placementapi.ScoreName, err)
	}
	current, err = scores.Create(ctx, &clusterv1alpha1.AddOnPlacementScore{
		ObjectMeta: metav1.ObjectMeta{Name: placementapi.ScoreName, Namespace: p.namespace},
	}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("creating AddOnPlacementScore %s/%s: %w", p.namespace, placementapi.ScoreName, err)
	}
	klog.FromContext(ctx).V(1).Info("Created the AddOnPlacementScore", "namespace", p.namespace, "name", placementapi.ScoreName)
	return current, nil
}
