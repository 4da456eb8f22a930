package propagation_test

import (
	"context"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	toolscache "k8s.io/client-go/tools/cache"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// hooks are how the floor learns what its writes wait for; corral's hub
// learns it from its own watches.
type hooks struct {
	// reported is told, once per revision, when the simulated agent has
	// reported every cluster's work of the propagation of that revision
	// at its generation.
	reported func(name string, revision int64)
}

// watcher counts, from the events of one cache (the benchmark's, shared
// with the simulated agent), the works of each revision, the templates
// whose aggregated status is current and the propagations applied, so
// that sampling costs nothing beside the process measured.
type watcher struct {
	cache cache.Cache
	hooks *hooks

	mu sync.Mutex
	// workRev is each work's revision label; works counts them by it.
	workRev map[string]string
	works   map[string]int
	// reportedRev is, per propagation, each cluster's revision reported
	// at its work's generation; fired the revisions hooks were told of.
	reportedRev map[string]map[string]int64
	fired       map[string]int64
	// currentGen is each template's generation when its status is
	// current, else 0; current counts them by generation.
	currentGen map[string]int64
	current    map[int64]int
	// appliedRev is each propagation's delivered revision once applied
	// and available on every cluster, else 0; applied counts them.
	appliedRev map[string]int64
	applied    map[int64]int
}

// startWatch starts the benchmark's cache (the propagations' works in
// every namespace, the templates and propagations of the namespace), the
// watcher and the simulated agent, until the benchmark ends.
func startWatch(ctx context.Context, b *testing.B, f *fixture, h *hooks) *watcher {
	b.Helper()
	ownWorks, err := labels.NewRequirement(v1alpha1.LabelPropagation, selection.Exists, nil)
	must(b, err)
	inNamespace := map[string]cache.Config{namespace: {}}
	c, err := cache.New(f.Admin, cache.Options{Scheme: f.c.Scheme(), ByObject: map[client.Object]cache.ByObject{
		&workv1.ManifestWork{}:  {Label: labels.NewSelector().Add(*ownWorks)},
		&appsv1.Deployment{}:    {Namespaces: inNamespace},
		&v1alpha1.Propagation{}: {Namespaces: inNamespace},
	}})
	must(b, err)
	w := &watcher{cache: c, hooks: h, workRev: map[string]string{}, works: map[string]int{},
		reportedRev: map[string]map[string]int64{}, fired: map[string]int64{},
		currentGen: map[string]int64{}, current: map[int64]int{}, appliedRev: map[string]int64{}, applied: map[int64]int{}}
	a := newAgent(f.c, c)
	handle := func(obj client.Object, on func(client.Object, bool)) {
		inf, err := c.GetInformer(ctx, obj)
		must(b, err)
		_, err = inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc:    func(o any) { on(o.(client.Object), false) },
			UpdateFunc: func(_, o any) { on(o.(client.Object), false) },
			DeleteFunc: func(o any) {
				if tomb, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
					o = tomb.Obj
				}
				if obj, ok := o.(client.Object); ok {
					on(obj, true)
				}
			},
		})
		must(b, err)
	}
	handle(&workv1.ManifestWork{}, func(o client.Object, gone bool) {
		work := o.(*workv1.ManifestWork)
		w.onWork(work, gone)
		if !gone {
			a.onWork(work)
		}
	})
	handle(&appsv1.Deployment{}, func(o client.Object, gone bool) { w.onTemplate(o.(*appsv1.Deployment), gone) })
	handle(&v1alpha1.Propagation{}, func(o client.Object, gone bool) { w.onPropagation(o.(*v1alpha1.Propagation), gone) })
	ctx, cancel := context.WithCancel(ctx)
	b.Cleanup(cancel)
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		b.Fatal("the benchmark's cache did not sync")
	}
	a.start(ctx, b)
	return w
}

func (w *watcher) onWork(work *workv1.ManifestWork, gone bool) {
	key := work.Namespace + "/" + work.Name
	prop := work.Labels[v1alpha1.LabelPropagation]
	w.mu.Lock()
	defer w.mu.Unlock()
	if old, ok := w.workRev[key]; ok {
		w.works[old]--
		delete(w.workRev, key)
	}
	if w.reportedRev[prop] == nil {
		w.reportedRev[prop] = map[string]int64{}
	}
	delete(w.reportedRev[prop], work.Namespace)
	if gone {
		return
	}
	rev := work.Labels[v1alpha1.LabelRevision]
	w.workRev[key] = rev
	w.works[rev]++
	if n := reportedRevision(work); n > 0 {
		w.reportedRev[prop][work.Namespace] = n
		if w.hooks != nil && w.fired[prop] < n && w.allReported(prop, n) {
			w.fired[prop] = n
			w.hooks.reported(prop, n)
		}
	}
}

// allReported says every cluster reported the propagation's work of
// revision n.
func (w *watcher) allReported(prop string, n int64) bool {
	count := 0
	for _, r := range w.reportedRev[prop] {
		if r == n {
			count++
		}
	}
	return count == clusters
}

// reportedRevision is the revision of the work when the agent reported it
// applied at its generation, else 0.
func reportedRevision(w *workv1.ManifestWork) int64 {
	c := meta.FindStatusCondition(w.Status.Conditions, workv1.WorkApplied)
	if c == nil || c.ObservedGeneration != w.Generation || c.Status != "True" {
		return 0
	}
	return revisionOf(w)
}

func (w *watcher) onTemplate(d *appsv1.Deployment, gone bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if old, ok := w.currentGen[d.Name]; ok {
		w.current[old]--
		delete(w.currentGen, d.Name)
	}
	if gone {
		return
	}
	const all = clusters * replicas
	st := d.Status
	if st.ObservedGeneration == d.Generation && st.Replicas == all && st.UpdatedReplicas == all &&
		st.ReadyReplicas == all && st.AvailableReplicas == all {
		w.currentGen[d.Name] = d.Generation
		w.current[d.Generation]++
	}
}

func (w *watcher) onPropagation(p *v1alpha1.Propagation, gone bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if old, ok := w.appliedRev[p.Name]; ok {
		w.applied[old]--
		delete(w.appliedRev, p.Name)
	}
	if gone {
		return
	}
	st := p.Status
	if st.ObservedGeneration == p.Generation && st.Summary.Total == clusters && st.Summary.Applied == clusters &&
		st.Summary.Available == clusters && meta.IsStatusConditionTrue(st.Conditions, v1alpha1.ConditionApplied) {
		w.appliedRev[p.Name] = st.DeliveredRevision
		w.applied[st.DeliveredRevision]++
	}
}

// counts is what the watcher saw at one time, for one revision: works
// carrying it, templates current at its generation (revision n is
// generation n here: each edit makes one), propagations applied.
type counts struct{ works, current, applied int }

func (w *watcher) counts(rev int64) counts {
	w.mu.Lock()
	defer w.mu.Unlock()
	return counts{works: w.works[revisionLabel(rev)], current: w.current[rev], applied: w.applied[rev]}
}

// until samples the counts of rev every 20 ms until ok says so, the
// timeout passes or stop is closed (the process measured ended).
func (w *watcher) until(ctx context.Context, timeout time.Duration, rev int64, stop <-chan struct{}, ok func(counts) bool) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond) // a benchmark's sampling interval, not a test's synchronisation
	defer tick.Stop()
	for {
		if ok(w.counts(rev)) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-stop:
			return errStopped
		case <-tick.C:
		}
	}
}
