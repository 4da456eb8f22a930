package hub

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/types"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/corral-dev/corral/internal/steps"
	"github.com/corral-dev/corral/placement/hub/scheduler"
)

// next works on one placement from the queue; false once the queue shuts
// down.
func (c *Controller) next(ctx context.Context) bool {
	key, shutdown := c.queue.Get()
	if shutdown {
		return false
	}
	defer c.queue.Done(key)
	log := ctrl.LoggerFrom(ctx).WithValues("placement", key.String())
	requeue, err := c.sync(ctrl.LoggerInto(ctx, log), key)
	switch {
	case err != nil:
		log.Error(err, "Scheduling the placement failed; retrying")
		c.queue.AddRateLimited(key)
	default:
		c.queue.Forget(key)
		if requeue > 0 {
			c.timers.AddAfter(key, requeue)
		}
	}
	return true
}

// work is one placement's scheduling: what the scheduler decided and what
// the hub holds.
type work struct {
	key       types.NamespacedName
	placement *clusterv1beta1.Placement
	result    *scheduler.Result
	// held are the PlacementDecisions the hub holds, by name.
	held map[string]*clusterv1beta1.PlacementDecision
	// pages are the PlacementDecisions written, as the result splits
	// them; the status names them.
	pages []scheduler.Page
	now   time.Time
	// scoreLimit is the placement's score rate limit; 0: none.
	scoreLimit time.Duration
	// scoresChanged: the decisions written carry new scores.
	scoresChanged bool
	// heldFor is how long the decisions keep their old scores, when
	// the score rate limit holds them.
	heldFor time.Duration
}

// sync schedules one placement and writes what changed, in steps: its
// PlacementDecisions, then its status. It returns when to look again.
func (c *Controller) sync(ctx context.Context, key types.NamespacedName) (time.Duration, error) {
	w, ok := c.schedule(key)
	if !ok {
		return 0, nil // deleted, or its scheduling disabled
	}
	res, err := steps.Run(ctx, w,
		steps.Step[*work]{Name: "decisions", Run: c.decisionsStep},
		steps.Step[*work]{Name: "status", Run: c.statusStep},
	)
	return res.RequeueAfter, err
}

// decisionsStep writes the PlacementDecisions; a misconfigured placement
// keeps the ones it has.
func (c *Controller) decisionsStep(ctx context.Context, w *work) (steps.Result, error) {
	if reason := w.result.MisconfiguredMessage; reason != "" {
		ctrl.LoggerFrom(ctx).V(1).Info("The placement is misconfigured", "reason", reason)
		return steps.Continue, nil
	}
	if err := c.writeDecisions(ctx, w); err != nil {
		return steps.StopList, err
	}
	requeue := w.result.RequeueAfter
	if w.heldFor > 0 && (requeue == 0 || w.heldFor < requeue) {
		requeue = w.heldFor // to write the scores held back
	}
	return steps.Result{RequeueAfter: requeue}, nil
}

// statusStep writes the placement's status.
func (c *Controller) statusStep(ctx context.Context, w *work) (steps.Result, error) {
	return steps.Continue, c.writeStatus(ctx, w)
}

// schedule runs the scheduler over the state; false when the placement is
// gone or its scheduling is disabled: it and its decisions are then left
// to whoever disabled it.
func (c *Controller) schedule(key types.NamespacedName) (*work, bool) {
	now := c.opts.Clock.Now()
	c.state.mu.RLock()
	defer c.state.mu.RUnlock()
	e := c.state.placements[key]
	if e == nil || e.disabled() {
		return nil, false
	}
	w := &work{key: key, placement: e.placement, now: now, held: map[string]*clusterv1beta1.PlacementDecision{}}
	for name, pg := range c.state.pages[key] {
		w.held[name] = pg
	}
	if e.err != nil {
		w.result = &scheduler.Result{Misconfigured: e.err, MisconfiguredMessage: e.err.Error()}
		return w, true
	}
	w.result = e.plan.Schedule(c.state, scheduler.Options{Now: now})
	w.scoreLimit = c.scoreLimit(e.plan)
	e.last.Store(w.result.Memo())
	e.moved.Store(0)
	return w, true
}
