package hub

import (
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	clusterinformers "open-cluster-management.io/api/client/cluster/informers/externalversions"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"

	"github.com/corral-dev/corral/placement/hub/scheduler"
)

// handler turns an informer's events into calls of on(old, new), with nil
// for an object that does not exist (added: old nil; deleted: new nil).
func handler[T any](on func(old, new *T)) cache.ResourceEventHandlerFuncs {
	unwrap := func(obj any) *T {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		t, _ := obj.(*T)
		return t
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { on(nil, unwrap(obj)) },
		UpdateFunc: func(old, obj any) { on(unwrap(old), unwrap(obj)) },
		DeleteFunc: func(obj any) { on(unwrap(obj), nil) },
	}
}

// watch registers the handlers that keep the state and enqueue the
// placements a change can affect, and returns when each has seen what its
// informer listed.
func (c *Controller) watch(f clusterinformers.SharedInformerFactory) ([]cache.InformerSynced, error) {
	cl := f.Cluster()
	regs := []struct {
		informer cache.SharedIndexInformer
		handler  cache.ResourceEventHandler
	}{
		{cl.V1().ManagedClusters().Informer(), handler(c.onCluster)},
		{cl.V1beta2().ManagedClusterSets().Informer(), handler(c.onSet)},
		{cl.V1beta2().ManagedClusterSetBindings().Informer(), handler(c.onBinding)},
		{cl.V1alpha1().AddOnPlacementScores().Informer(), handler(c.onScore)},
		{cl.V1beta1().Placements().Informer(), handler(c.onPlacement)},
		{cl.V1beta1().PlacementDecisions().Informer(), handler(c.onDecision)},
	}
	var synced []cache.InformerSynced
	for _, r := range regs {
		reg, err := r.informer.AddEventHandler(r.handler)
		if err != nil {
			return nil, err
		}
		synced = append(synced, reg.HasSynced)
	}
	return synced, nil
}

func nameOf[T interface{ GetName() string }](old, new T, isNil func(T) bool) string {
	if !isNil(new) {
		return new.GetName()
	}
	return old.GetName()
}

func (c *Controller) onCluster(old, new *clusterv1.ManagedCluster) {
	name := nameOf(old, new, func(c *clusterv1.ManagedCluster) bool { return c == nil })
	old, new = scheduler.Placeable(old), scheduler.Placeable(new)
	if old == nil && new == nil {
		return // deleted, and already let go of when it started to be
	}
	c.state.mu.Lock()
	oldSets := c.state.SetsOf(name)
	newSets := c.state.setCluster(name, new)
	c.state.mu.Unlock()
	if !c.isSynced() {
		return
	}
	now := c.opts.Clock.Now()
	oldV, newV := scheduler.Version{Cluster: old, Sets: oldSets}, scheduler.Version{Cluster: new, Sets: newSets}
	c.enqueueWhere(func(_ types.NamespacedName, e *entry) (time.Duration, bool) {
		return 0, e.plan == nil || e.plan.Affected(c.state, oldV, newV, now, e.last.Load())
	})
}

func (c *Controller) onSet(old, new *clusterv1beta2.ManagedClusterSet) {
	name := nameOf(old, new, func(s *clusterv1beta2.ManagedClusterSet) bool { return s == nil })
	if old != nil && new != nil && equality.Semantic.DeepEqual(old.Spec, new.Spec) {
		return // its status only: the set's members did not change
	}
	c.state.mu.Lock()
	c.state.setSet(name, new)
	var namespaces []string
	for ns, bindings := range c.state.bindings {
		for _, b := range bindings {
			if b.Spec.ClusterSet == name {
				namespaces = append(namespaces, ns)
			}
		}
	}
	c.state.mu.Unlock()
	c.enqueueNamespaces(namespaces)
}

func (c *Controller) onBinding(old, new *clusterv1beta2.ManagedClusterSetBinding) {
	b := new
	if b == nil {
		b = old
	}
	if old != nil && new != nil && old.Spec == new.Spec && scheduler.IsBound(old) == scheduler.IsBound(new) {
		return
	}
	c.state.mu.Lock()
	c.state.setBinding(b.Namespace, b.Name, new)
	c.state.mu.Unlock()
	c.enqueueNamespaces([]string{b.Namespace})
}

func (c *Controller) onScore(old, new *clusterv1alpha1.AddOnPlacementScore) {
	s := new
	if s == nil {
		s = old
	}
	if old != nil && new != nil && equality.Semantic.DeepEqual(old.Status.Scores, new.Status.Scores) &&
		equality.Semantic.DeepEqual(old.Status.ValidUntil, new.Status.ValidUntil) {
		return
	}
	c.state.mu.Lock()
	c.state.setScore(s.Namespace, s.Name, new)
	cluster := c.state.clusters[s.Namespace]
	sets := c.state.setsOf[s.Namespace]
	c.state.mu.Unlock()
	if !c.isSynced() || cluster == nil {
		return
	}
	now := c.opts.Clock.Now()
	v := scheduler.Version{Cluster: cluster, Sets: sets}
	c.enqueueWhere(func(key types.NamespacedName, e *entry) (time.Duration, bool) {
		if e.plan == nil || e.disabled() || !e.plan.ReadsScore(s.Name) {
			return 0, false
		}
		// A cluster the placement holds may have to go (a CEL predicate
		// reading the score), one it could select may have to come.
		held := c.state.decided[key].Has(cluster.Name)
		if !held && !e.plan.Feasible(c.state, v, now) {
			return 0, false
		}
		return c.afterScoreChange(e, held, e.plan.ScoreDelta(s.Name, old, new, now), now)
	})
}

// afterScoreChange says when a score change of a cluster the placement
// holds or could select, moving the cluster's total by delta, calls for
// scheduling the placement again: at once when it may change the
// clusters selected (it may change which pass the filters, or the
// changes since the last scheduling add up to the margin the last
// scheduling left); once the score rate limit allows when it only
// changes the scores of clusters held, to write them; never otherwise.
// Callers hold the state's read lock.
func (c *Controller) afterScoreChange(e *entry, held bool, delta int64, now time.Time) (time.Duration, bool) {
	last := e.last.Load()
	switch {
	case last == nil || e.plan.FiltersByScore():
		return 0, true
	case delta == 0:
		return 0, false
	case e.moved.Add(max(delta, -delta)) >= last.Margin:
		return 0, true
	case !held:
		return 0, false
	}
	written := e.placement.Status.LastScoreUpdateTime
	if written == nil {
		return 0, true
	}
	return max(written.Add(c.scoreLimit(e.plan)).Sub(now), 0), true
}

func (c *Controller) onPlacement(old, new *clusterv1beta1.Placement) {
	if old != nil && new != nil && old.Generation == new.Generation && old.UID == new.UID {
		// Its status or metadata: nothing the scheduler reads but the
		// annotation that disables its scheduling. Keep the newest copy
		// for the next status comparison all the same.
		enabled := false
		c.state.mu.Lock()
		if e := c.state.placements[keyOf(new)]; e != nil && !newer(e.placement.ResourceVersion, new.ResourceVersion) {
			enabled = e.disabled() && !scheduler.SchedulingDisabled(new)
			e.setPlacement(new)
		}
		c.state.mu.Unlock()
		if enabled && c.isSynced() {
			c.queue.Add(keyOf(new))
		}
		return
	}
	p := new
	if p == nil {
		p = old
	}
	key := keyOf(p)
	c.state.mu.Lock()
	if new == nil {
		delete(c.state.placements, key)
	} else {
		e := &entry{placement: new}
		e.plan, e.err = scheduler.Compile(new, c.state)
		c.state.placements[key] = e
	}
	c.state.mu.Unlock()
	if new != nil && c.isSynced() {
		c.queue.Add(key)
	}
}

func keyOf(p *clusterv1beta1.Placement) types.NamespacedName {
	return types.NamespacedName{Namespace: p.Namespace, Name: p.Name}
}

// onDecision keeps the state's decisions; a change this scheduler did not
// write (a page edited or deleted by someone else) schedules its
// placement again, to put it right.
func (c *Controller) onDecision(old, new *clusterv1beta1.PlacementDecision) {
	d := new
	if d == nil {
		d = old
	}
	placement := d.Labels[clusterv1beta1.PlacementLabel]
	if placement == "" {
		return
	}
	key := types.NamespacedName{Namespace: d.Namespace, Name: placement}
	c.state.mu.Lock()
	held, known := c.state.pages[key][d.Name]
	switch {
	case c.state.pending[pageKey{key, d.Name}]:
		c.state.mu.Unlock()
		return // the write's result will say
	case new == nil && !known:
		c.state.mu.Unlock()
		return // a page this scheduler deleted
	case new != nil && known && new.ResourceVersion == held.ResourceVersion:
		// What this scheduler wrote: keep the informer's copy, so that the
		// write's response can go.
		c.state.pages[key][d.Name] = new
		c.state.mu.Unlock()
		return
	case new != nil && known && !newer(new.ResourceVersion, held.ResourceVersion):
		c.state.mu.Unlock()
		return // older than what this scheduler wrote
	}
	echo := known && new != nil && samePage(held, new)
	c.state.setPage(key, d.Name, new)
	c.state.mu.Unlock()
	if !echo && c.isSynced() {
		c.log.V(4).Info("A PlacementDecision changed under the scheduler", "decision", klog.KObj(d))
		c.queue.Add(key)
	}
}

// samePage says whether two versions of a PlacementDecision hold the same
// labels and decisions.
func samePage(a, b *clusterv1beta1.PlacementDecision) bool {
	return equality.Semantic.DeepEqual(a.Labels, b.Labels) && equality.Semantic.DeepEqual(a.Status.Decisions, b.Status.Decisions)
}

// enqueueWhere enqueues the placements for which pick, called under the
// state's read lock, says so: at once, or after the wait it gives.
func (c *Controller) enqueueWhere(pick func(types.NamespacedName, *entry) (wait time.Duration, ok bool)) {
	type later struct {
		key  types.NamespacedName
		wait time.Duration
	}
	var keys []later
	c.state.mu.RLock()
	for key, e := range c.state.placements {
		if wait, ok := pick(key, e); ok {
			keys = append(keys, later{key, wait})
		}
	}
	c.state.mu.RUnlock()
	for _, k := range keys {
		if k.wait > 0 {
			c.timers.AddAfter(k.key, k.wait)
		} else {
			c.queue.Add(k.key)
		}
	}
}

func (c *Controller) enqueueNamespaces(namespaces []string) {
	if !c.isSynced() || len(namespaces) == 0 {
		return
	}
	in := map[string]bool{}
	for _, ns := range namespaces {
		in[ns] = true
	}
	c.enqueueWhere(func(key types.NamespacedName, _ *entry) (time.Duration, bool) { return 0, in[key.Namespace] })
}
