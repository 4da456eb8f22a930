package simulate

import (
	"context"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
)

// availability follows the simulated clusters' Available condition and
// taints: to count the times the hub set Available other than True on a
// cluster that was heartbeating (a false Unknown), and to time the hub
// marking the clusters of an outage gone, and back.
type availability struct {
	mu       sync.Mutex
	watching map[string]bool // clusters heartbeating
	live     map[string]bool // Available True as last seen
	falses   int

	// The outage: its clusters, from when they stopped until the hub
	// marked them back; when they stopped and resumed; how long the hub
	// took to mark each gone and back.
	down             map[string]bool
	stopped, resumed time.Time
	gone, back       map[string]time.Duration
	allGone, allBack chan struct{}
	outageSize       int
}

func newAvailability() *availability {
	return &availability{watching: map[string]bool{}, live: map[string]bool{},
		down: map[string]bool{}, gone: map[string]time.Duration{}, back: map[string]time.Duration{},
		allGone: make(chan struct{}), allBack: make(chan struct{})}
}

func (a *availability) see(mc *clusterv1.ManagedCluster) {
	live := meta.IsStatusConditionTrue(mc.Status.Conditions, clusterv1.ManagedClusterConditionAvailable)
	unreachable := slices.ContainsFunc(mc.Spec.Taints, func(t clusterv1.Taint) bool {
		return t.Key == clusterv1.ManagedClusterTaintUnreachable
	})
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.watching[mc.Name] && a.live[mc.Name] && !live {
		a.falses++
	}
	a.live[mc.Name] = live
	if !a.down[mc.Name] {
		return
	}
	if _, seen := a.gone[mc.Name]; !seen && !live && unreachable {
		a.gone[mc.Name] = time.Since(a.stopped)
		if len(a.gone) == a.outageSize {
			close(a.allGone)
		}
	}
	if _, seen := a.back[mc.Name]; !seen && !a.resumed.IsZero() && live && !unreachable {
		a.back[mc.Name] = time.Since(a.resumed)
		delete(a.down, mc.Name)
		a.watching[mc.Name] = true
		if len(a.back) == a.outageSize {
			close(a.allBack)
		}
	}
}

// watch starts counting for cluster, which heartbeats from now on.
func (a *availability) watch(cluster string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.watching[cluster] = true
}

func (a *availability) falseUnknown() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.falses
}

// running says whether cluster's agent runs: it joined in this run
// and is not stopped by the outage.
func (a *availability) running(cluster string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.watching[cluster] || a.down[cluster] && !a.resumed.IsZero()
}

// isDown says whether cluster's agent is stopped by the outage.
func (a *availability) isDown(cluster string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.down[cluster] && a.resumed.IsZero()
}

// Outage is what an outage measured: its clusters' agents stopped at
// once, then resumed once the hub had marked every one gone.
type Outage struct {
	Clusters int `json:"clusters"`
	// Gone counts the clusters the hub marked Available Unknown (or
	// False) and tainted unreachable, GoneAfter how long after their
	// agents stopped; Back those it marked Available without the taint
	// again, BackAfter how long after they resumed.
	Gone      int         `json:"gone"`
	GoneAfter Percentiles `json:"goneAfterSeconds"`
	Back      int         `json:"back"`
	BackAfter Percentiles `json:"backAfterSeconds"`
}

// outage stops the agents of n of members (spread over them) at once,
// waits (up to goneWithin) until the hub has marked every one gone,
// resumes them (each renews its lease and reports itself available, as
// an agent starting again does), and waits (up to backWithin) until the
// hub has marked every one back; then it returns what it measured. It
// ends early, with what it measured, when ctx ends.
func (a *availability) outage(ctx context.Context, members []*Cluster, n, parallel int, goneWithin, backWithin time.Duration) *Outage {
	var picked []*Cluster
	for i := range n {
		picked = append(picked, members[i*len(members)/n])
	}
	a.mu.Lock()
	a.outageSize, a.stopped = n, time.Now()
	for _, c := range picked {
		a.down[c.Name], a.watching[c.Name] = true, false
	}
	a.mu.Unlock()
	if !waitFor(ctx, a.allGone, goneWithin) {
		return a.outageReport()
	}
	a.mu.Lock()
	a.resumed = time.Now()
	a.mu.Unlock()
	work := make(chan *Cluster)
	var wg sync.WaitGroup
	for range min(parallel, n) {
		wg.Go(func() {
			for c := range work {
				_ = c.resume(ctx) // a cluster not back shows in the report
			}
		})
	}
	for _, c := range picked {
		work <- c
	}
	close(work)
	wg.Wait()
	waitFor(ctx, a.allBack, backWithin)
	return a.outageReport()
}

// waitFor waits for done to close, up to d and while ctx is on; it says
// whether done closed.
func waitFor(ctx context.Context, done <-chan struct{}, d time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return false
	}
}

func (a *availability) outageReport() *Outage {
	a.mu.Lock()
	defer a.mu.Unlock()
	durations := func(m map[string]time.Duration) []time.Duration {
		var ds []time.Duration
		for _, d := range m {
			ds = append(ds, d)
		}
		return ds
	}
	return &Outage{Clusters: a.outageSize, Gone: len(a.gone), GoneAfter: percentiles(durations(a.gone)),
		Back: len(a.back), BackAfter: percentiles(durations(a.back))}
}
