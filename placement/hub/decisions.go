package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/corral-dev/corral/placement/hub/scheduler"
)

// writeDecisions makes the placement's PlacementDecisions hold the
// result's pages: each page created (owned by the placement) when missing
// and its status updated when its decisions differ; pages no longer
// needed are deleted. The state learns of each write at once, so the next
// placement's Balance counts it.
func (c *Controller) writeDecisions(ctx context.Context, w *work) error {
	w.scoresChanged = holdScores(w)
	w.pages = w.result.Pages(w.placement.Name)
	wanted := sets.New[string]()
	for i := range w.pages {
		pg := &w.pages[i]
		wanted.Insert(pg.Name)
		want := &clusterv1beta1.PlacementDecision{
			ObjectMeta: metav1.ObjectMeta{Namespace: w.key.Namespace, Name: pg.Name, Labels: pg.Labels(w.key.Name)},
			Status:     clusterv1beta1.PlacementDecisionStatus{Decisions: pg.Decisions},
		}
		if held := w.held[pg.Name]; held != nil && samePage(held, want) {
			continue
		}
		if err := c.writePage(ctx, w, want); err != nil {
			return err
		}
	}
	for name := range w.held {
		if wanted.Has(name) {
			continue
		}
		c.setPending(w.key, name, true)
		err := c.client.ClusterV1beta1().PlacementDecisions(w.key.Namespace).Delete(ctx, name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			c.setPending(w.key, name, false)
			return fmt.Errorf("deleting PlacementDecision %s: %w", name, err)
		}
		c.state.mu.Lock()
		c.state.setPage(w.key, name, nil)
		delete(c.state.pending, pageKey{w.key, name})
		c.state.mu.Unlock()
		ctrl.LoggerFrom(ctx).V(1).Info("Deleted a PlacementDecision no longer needed", "decision", name)
	}
	return nil
}

// OwnerRef is the owner reference a placement's PlacementDecisions
// carry: deleting the placement deletes them.
func OwnerRef(p *clusterv1beta1.Placement) metav1.OwnerReference {
	return *metav1.NewControllerRef(p, schema.GroupVersionKind{Group: clusterv1beta1.GroupName, Version: clusterv1beta1.GroupVersion.Version, Kind: "Placement"})
}

// writePage creates the page when the hub does not hold it, patches its
// labels when they differ, and updates its decisions; after a write that
// failed, the state catches up with the informer (catchUp).
func (c *Controller) writePage(ctx context.Context, w *work, want *clusterv1beta1.PlacementDecision) (err error) {
	client := c.client.ClusterV1beta1().PlacementDecisions(w.key.Namespace)
	held := w.held[want.Name]
	c.setPending(w.key, want.Name, true)
	defer func() {
		c.setPending(w.key, want.Name, false)
		if err != nil {
			c.catchUp(w.key, want.Name)
		}
	}()
	if held == nil {
		obj := want.DeepCopy()
		obj.Status = clusterv1beta1.PlacementDecisionStatus{}
		obj.OwnerReferences = []metav1.OwnerReference{OwnerRef(w.placement)}
		created, err := client.Create(ctx, obj, metav1.CreateOptions{})
		switch {
		case apierrors.IsAlreadyExists(err):
		case err != nil:
			return fmt.Errorf("creating PlacementDecision %s: %w", want.Name, err)
		default:
			held = created
			ctrl.LoggerFrom(ctx).V(1).Info("Created a PlacementDecision", "decision", want.Name)
		}
	}
	if held == nil || !maps.Equal(held.Labels, want.Labels) {
		patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"labels": want.Labels}})
		labelled, err := client.Patch(ctx, want.Name, types.MergePatchType, patch, metav1.PatchOptions{})
		if err != nil {
			return fmt.Errorf("labelling PlacementDecision %s: %w", want.Name, err)
		}
		held = labelled
	}
	// An update, not a patch: the API server spends less on it, and a
	// page changed since it was read is a conflict, looked at again.
	page := held.DeepCopy()
	page.Status.Decisions = want.Status.Decisions
	written, err := client.UpdateStatus(ctx, page, metav1.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("writing the decisions of PlacementDecision %s: %w", want.Name, err)
	}
	ctrl.LoggerFrom(ctx).V(4).Info("Wrote a PlacementDecision", "decision", want.Name, "clusters", len(want.Status.Decisions))
	c.state.mu.Lock()
	c.state.setPage(w.key, want.Name, c.shared(written))
	c.state.mu.Unlock()
	return nil
}

// catchUp gives the state the informer's copy of page name of key when
// it is newer than the state's, or forgets the page when the informer no
// longer has it. onDecision ignores the events of a page being written,
// so after a write that failed (it lost to another writer's edit, or the
// page was deleted meanwhile) the state would otherwise keep the version
// it lost to, and every later write of it would fail the same way.
func (c *Controller) catchUp(key types.NamespacedName, name string) {
	cached, err := c.decisions.PlacementDecisions(key.Namespace).Get(name)
	c.state.mu.Lock()
	defer c.state.mu.Unlock()
	held, known := c.state.pages[key][name]
	switch {
	case apierrors.IsNotFound(err) && known:
		c.state.setPage(key, name, nil)
	case err == nil && (!known || newer(cached.ResourceVersion, held.ResourceVersion)):
		c.state.setPage(key, name, cached)
	}
}

// shared is the informer's copy of a PlacementDecision this scheduler
// just wrote when the informer already holds that version, otherwise the
// write's response. onDecision ignores the informer's event for a page
// being written, so without this the state would keep the response and
// the informer its own copy: every such page twice.
func (c *Controller) shared(written *clusterv1beta1.PlacementDecision) *clusterv1beta1.PlacementDecision {
	cached, err := c.decisions.PlacementDecisions(written.Namespace).Get(written.Name)
	if err != nil || cached.ResourceVersion != written.ResourceVersion {
		return written
	}
	return cached
}

// holdScores keeps the scores the hub's decisions hold when the selected
// clusters are the same and the scores were last written less than the
// score rate limit ago: as spec.scoreRateLimit says, score changes that
// do not change the selected clusters are not reflected in decisions
// more often than that. It says whether the result carries new scores,
// and when it keeps old ones it sets w.heldFor and gives w.result's
// groups the scores held, so that pages are ordered by the scores they
// show across all of a group's pages.
func holdScores(w *work) bool {
	heldScores := map[string]int64{}
	for _, pg := range w.held {
		for _, d := range pg.Status.Decisions {
			heldScores[d.ClusterName] = d.Score
		}
	}
	same, changed := len(heldScores) == len(w.result.Selected), false
	for _, d := range w.result.Selected {
		s, ok := heldScores[d.Cluster]
		same = same && ok
		changed = changed || s != d.Score
	}
	last := w.placement.Status.LastScoreUpdateTime
	if !same || !changed || last == nil || w.scoreLimit == 0 {
		return changed
	}
	if w.heldFor = last.Add(w.scoreLimit).Sub(w.now); w.heldFor <= 0 {
		w.heldFor = 0
		return true
	}
	held := *w.result
	held.Groups = make([]scheduler.Group, len(w.result.Groups))
	for i, g := range w.result.Groups {
		g.Clusters = slices.Clone(g.Clusters)
		for j := range g.Clusters {
			g.Clusters[j].Score = heldScores[g.Clusters[j].Cluster]
		}
		held.Groups[i] = g
	}
	w.result = &held
	return false
}

// scoreLimit is the plan's score rate limit: spec.scoreRateLimit (0s: no
// limit), or Options.ScoreInterval when the spec leaves it out.
func (c *Controller) scoreLimit(pl *scheduler.Plan) time.Duration {
	if d, ok := pl.ScoreRateLimit(); ok {
		return d
	}
	return c.opts.ScoreInterval
}

// pageKey names one PlacementDecision of a placement.
type pageKey struct {
	placement types.NamespacedName
	name      string
}

// setPending marks a page as being written: the informer's events for it
// are ignored until the write's result is in the state.
func (c *Controller) setPending(key types.NamespacedName, name string, pending bool) {
	c.state.mu.Lock()
	defer c.state.mu.Unlock()
	if pending {
		c.state.pending[pageKey{key, name}] = true
	} else {
		delete(c.state.pending, pageKey{key, name})
	}
}

// newer says whether resource version a is newer than b. Resource
// versions are opaque, but the hub's are etcd revisions: when both parse
// as numbers they compare as such; otherwise any other version is newer.
func newer(a, b string) bool {
	if a == b {
		return false
	}
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	return errA != nil || errB != nil || x > y
}
