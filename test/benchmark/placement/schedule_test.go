// Package placement_test measures the placement scheduler, `corral hub
// --addons placement --no-registration` with its defaults, run as its own
// process on a local hub control plane (the workload upstream OCM ships
// as its own placement benchmark):
//
//   - a cluster set of 1000 ManagedClusters bound to one namespace, each
//     with an AddOnPlacementScore demo and a CPU allocatable;
//   - N Placements there (1000, and 10000 with PLACEMENTS=1000,10000),
//     each numberOfClusters 10, Exact with AddOn demo/demo,
//     ResourceAllocatableCPU and Balance at weight 1;
//   - the time from the scheduler's start until every Placement reports 10
//     selected clusters and its PlacementDecision lists them, and the
//     scheduler's peak RSS;
//   - then the time from relabelling the cluster most placements selected
//     (so that their predicate drops it) until every affected decision no
//     longer holds it and holds 10 clusters again.
//
// The hub's and the API server's writes and CPU are logged with the
// figures, and the machine's load: they are noisy on a shared machine.
//
//	make kube-tools build
//	go test ./test/benchmark/placement -run x -bench . -benchtime 1x
//
// CORRAL_BENCH_PROFILE_DIR=/tmp also writes a CPU profile of the API
// server while the placements are scheduled, and with
// CORRAL_BENCH_PPROF=127.0.0.1:6060 one of the scheduler.
package placement_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corral-dev/corral/internal/procstat"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	clusterclient "open-cluster-management.io/api/client/cluster/clientset/versioned"
	clusterinformers "open-cluster-management.io/api/client/cluster/informers/externalversions"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"

	"github.com/corral-dev/corral/test/benchmark/measure"
	"github.com/corral-dev/corral/test/benchmark/setup"
)

const (
	namespace = "bench"
	clusters  = 1000
	wanted    = 10
	// excluded is the label the placements' predicate keeps out.
	excluded = "bench-excluded"
)

func BenchmarkSchedule(b *testing.B) { byPlacements(b, scheduleWith((*fixture).startScheduler)) }

// scheduleWith is the schedule benchmark of the scheduler start starts.
func scheduleWith(start func(*fixture, *testing.B) *setup.Process) func(b *testing.B, n int) {
	return func(b *testing.B, n int) { benchmarkSchedule(b, n, start) }
}

// byPlacements runs bench once per count of placementCounts, as a
// sub-benchmark named by it.
func byPlacements(b *testing.B, bench func(b *testing.B, n int)) {
	for _, n := range placementCounts() {
		b.Run(fmt.Sprintf("placements=%d", n), func(b *testing.B) {
			b.StopTimer()
			for range b.N {
				bench(b, n)
			}
		})
	}
}

// placementCounts are $PLACEMENTS (comma-separated), 1000 by default.
func placementCounts() []int {
	var out []int
	for _, s := range strings.Split(os.Getenv("PLACEMENTS"), ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return []int{1000}
	}
	return out
}

// prepare starts a hub with the workload of n placements, watched.
func prepare(ctx context.Context, b *testing.B, n int) (*fixture, *watcher) {
	b.Helper()
	f := startHub(ctx, b)
	f.createWorkload(ctx, b, n)
	return f, f.watch(ctx, b)
}

func benchmarkSchedule(b *testing.B, n int, start func(*fixture, *testing.B) *setup.Process) {
	ctx := context.Background()
	f, watch := prepare(ctx, b, n)

	before := measure.APIWrites(ctx, f.kube)
	b.StartTimer()
	begin := time.Now()
	hub := start(f, b)
	cpu := measure.NewCPUMeter(map[string]int{"scheduler": hub.PID(), "kube-apiserver": f.PID("kube-apiserver"), "etcd": f.PID("etcd"), measure.Benchmark: os.Getpid()})
	defer measure.ProfileAPIServer(ctx, b, f.kube, fmt.Sprintf("schedule-%d-apiserver", n), 4*time.Second)()
	defer measure.ProfileProcess(b, hub.Args, fmt.Sprintf("schedule-%d-scheduler", n), 4*time.Second)()
	var first, half time.Duration
	if err := watch.until(ctx, 10*time.Minute, func(v *view) bool {
		done := v.done()
		if done > 0 && first == 0 {
			first = time.Since(begin)
		}
		if done >= n/2 && half == 0 {
			half = time.Since(begin)
		}
		return done == n
	}); err != nil {
		b.Fatalf("not every placement was scheduled in 10 minutes (%d done; log: %s): %v", watch.snapshot().done(), hub.Log, err)
	}
	elapsed := time.Since(begin)
	b.StopTimer()
	peak := procstat.KiB(hub.PID(), "VmHWM")
	used := cpu.Used()
	b.ReportMetric(elapsed.Seconds(), "s/schedule-all")
	b.ReportMetric(float64(peak)/1024, "MB-peak-rss")
	b.Logf("%d placements × %d clusters scheduled in %.2fs; scheduler peak RSS %d MB; load %s", n, clusters, elapsed.Seconds(), peak/1024, measure.Load())
	run := measure.Run{Elapsed: elapsed, CPU: used, Start: watch.started.Since(begin)}
	trueFloor, measured := floors[n]
	if measured {
		b.Log(measure.Versus("scheduler", run, measure.TrueFloor, trueFloor.Run, trueFloor.Workers, n, "placement"))
	}
	if f, ok := watchingFloors[n]; ok && measured {
		b.Log(measure.Versus("scheduler", run, measure.WatchingFloor, f.Run, f.Workers, n, "placement"))
		b.Log(measure.StartBound("scheduler", run, trueFloor, f))
	}
	b.Logf("first write seen after %.2fs, first placement done after %.2fs, half after %.2fs", run.Start.Seconds(), first.Seconds(), half.Seconds())
	b.Logf("scheduler requests: %s", measure.FormatCounts(measure.Scrape(f.metrics, "rest_client_requests_total", "method", "code")))
	b.Logf("API server writes (every client): %s", measure.FormatCounts(writesSince(ctx, f, before)))
	b.Logf("CPU time: %s", measure.FormatSeconds(used))

	// Relabel the cluster most placements hold.
	v := watch.snapshot()
	target, affected := v.mostSelected()
	begin = time.Now()
	c, err := f.clusters.ClusterV1().ManagedClusters().Get(ctx, target, metav1.GetOptions{})
	if err != nil {
		b.Fatal(err)
	}
	c.Labels[excluded] = "true"
	if _, err := f.clusters.ClusterV1().ManagedClusters().Update(ctx, c, metav1.UpdateOptions{}); err != nil {
		b.Fatal(err)
	}
	if err := watch.until(ctx, time.Minute, func(v *view) bool { return v.holding(target) == 0 && v.done() == n }); err != nil {
		b.Fatalf("the decisions holding %s were not updated in a minute (log: %s): %v", target, hub.Log, err)
	}
	relabel := time.Since(begin)
	b.ReportMetric(relabel.Seconds(), "s/relabel")
	b.Logf("relabelling %s, held by %d placements: every affected decision updated in %.3fs", target, affected, relabel.Seconds())
	b.Logf("scheduler requests: %s", measure.FormatCounts(measure.Scrape(f.metrics, "rest_client_requests_total", "method", "code")))
}

// fixture is a hub control plane prepared as `corral init` does, with
// admin clients whose own limits are far above what is measured.
type fixture struct {
	*setup.ControlPlane
	kube     kubernetes.Interface
	clusters clusterclient.Interface
	corral   string
	metrics  string // the scheduler's /metrics; empty when it has none to scrape
}

func startHub(ctx context.Context, b *testing.B) *fixture {
	b.Helper()
	hub := setup.StartHub(ctx, b)
	return &fixture{ControlPlane: hub, kube: kubernetes.NewForConfigOrDie(hub.Admin), clusters: clusterclient.NewForConfigOrDie(hub.Admin), corral: setup.Corral(b)}
}

// startScheduler runs `corral hub` with only the placement addon's hub
// half, its defaults but for leader election (one copy) and webhooks.
func (f *fixture) startScheduler(b *testing.B) *setup.Process {
	b.Helper()
	addr := setup.FreeAddr(b)
	f.metrics = "http://" + addr + "/metrics"
	args := []string{"hub", "--kubeconfig", f.Kubeconfig, "--addons", "placement", "--no-registration",
		"--leader-elect=false", "--webhook-port=0", "--metrics-bind-address", addr}
	return setup.StartProcess(b, "placement", "hub.log", f.corral, append(args, measure.PprofFlags()...)...)
}

// createWorkload creates the set, its binding (Bound, as the registration
// hub would mark it), the clusters with their scores and the placements.
func (f *fixture) createWorkload(ctx context.Context, b *testing.B, placements int) {
	b.Helper()
	rng := rand.New(rand.NewPCG(7, 7)) //nolint:gosec // a benchmark's workload
	must(b, create(ctx, f.kube.CoreV1().Namespaces(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}))
	must(b, create(ctx, f.clusters.ClusterV1beta2().ManagedClusterSets(), &clusterv1beta2.ManagedClusterSet{ObjectMeta: metav1.ObjectMeta{Name: namespace}}))
	binding, err := f.clusters.ClusterV1beta2().ManagedClusterSetBindings(namespace).Create(ctx, &clusterv1beta2.ManagedClusterSetBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: namespace}, Spec: clusterv1beta2.ManagedClusterSetBindingSpec{ClusterSet: namespace}}, metav1.CreateOptions{})
	must(b, err)
	binding.Status.Conditions = []metav1.Condition{{Type: clusterv1beta2.ClusterSetBindingBoundType, Status: metav1.ConditionTrue,
		Reason: "ClusterSetBound", LastTransitionTime: metav1.Now()}}
	_, err = f.clusters.ClusterV1beta2().ManagedClusterSetBindings(namespace).UpdateStatus(ctx, binding, metav1.UpdateOptions{})
	must(b, err)

	cpus, scores := make([]int, clusters), make([]int32, clusters)
	for i := range clusters {
		cpus[i], scores[i] = 1+rng.IntN(64), int32(rng.IntN(201)-100) //nolint:gosec // -100…100
	}
	must(b, measure.Parallel(32, clusters, func(i int) error {
		name := fmt.Sprintf("c%04d", i)
		c, err := f.clusters.ClusterV1().ManagedClusters().Create(ctx, &clusterv1.ManagedCluster{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{clusterv1beta2.ClusterSetLabel: namespace}},
			Spec:       clusterv1.ManagedClusterSpec{HubAcceptsClient: true}}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		cpu := resource.MustParse(strconv.Itoa(cpus[i]))
		c.Status.Allocatable = clusterv1.ResourceList{clusterv1.ResourceCPU: cpu}
		c.Status.Capacity = clusterv1.ResourceList{clusterv1.ResourceCPU: resource.MustParse("64")}
		if _, err := f.clusters.ClusterV1().ManagedClusters().UpdateStatus(ctx, c, metav1.UpdateOptions{}); err != nil {
			return err
		}
		if _, err := f.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			return err
		}
		s, err := f.clusters.ClusterV1alpha1().AddOnPlacementScores(name).Create(ctx, &clusterv1alpha1.AddOnPlacementScore{
			ObjectMeta: metav1.ObjectMeta{Namespace: name, Name: "demo"}}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		s.Status.Scores = []clusterv1alpha1.AddOnPlacementScoreItem{{Name: "demo", Value: scores[i]}}
		_, err = f.clusters.ClusterV1alpha1().AddOnPlacementScores(name).UpdateStatus(ctx, s, metav1.UpdateOptions{})
		return err
	}))
	coordinate := func(sc clusterv1beta1.ScoreCoordinate) clusterv1beta1.PrioritizerConfig {
		return clusterv1beta1.PrioritizerConfig{ScoreCoordinate: &sc, Weight: 1}
	}
	spec := clusterv1beta1.PlacementSpec{
		NumberOfClusters: ptr(int32(wanted)),
		Predicates: []clusterv1beta1.ClusterPredicate{{RequiredClusterSelector: clusterv1beta1.ClusterSelector{LabelSelector: metav1.LabelSelector{
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: excluded, Operator: metav1.LabelSelectorOpDoesNotExist}}}}}},
		PrioritizerPolicy: clusterv1beta1.PrioritizerPolicy{Mode: clusterv1beta1.PrioritizerPolicyModeExact, Configurations: []clusterv1beta1.PrioritizerConfig{
			coordinate(clusterv1beta1.ScoreCoordinate{Type: clusterv1beta1.ScoreCoordinateTypeAddOn, AddOn: &clusterv1beta1.AddOnScore{ResourceName: "demo", ScoreName: "demo"}}),
			coordinate(clusterv1beta1.ScoreCoordinate{Type: clusterv1beta1.ScoreCoordinateTypeBuiltIn, BuiltIn: "ResourceAllocatableCPU"}),
			coordinate(clusterv1beta1.ScoreCoordinate{Type: clusterv1beta1.ScoreCoordinateTypeBuiltIn, BuiltIn: "Balance"}),
		}},
	}
	must(b, measure.Parallel(32, placements, func(i int) error {
		_, err := f.clusters.ClusterV1beta1().Placements(namespace).Create(ctx, &clusterv1beta1.Placement{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: fmt.Sprintf("p%05d", i)}, Spec: spec}, metav1.CreateOptions{})
		return err
	}))
}

type creator[T any] interface {
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
}

func create[T any](ctx context.Context, c creator[T], obj T) error {
	_, err := c.Create(ctx, obj, metav1.CreateOptions{})
	return err
}

func must(b *testing.B, err error) {
	b.Helper()
	if err != nil {
		b.Fatal(err)
	}
}

func ptr[T any](v T) *T { return &v }

// watcher counts, from informers' events, which placements are done and
// which clusters their decisions hold, so that sampling costs nothing
// beside the scheduler being measured.
type watcher struct {
	mu       sync.Mutex
	selected map[string]int32               // placement → numberOfSelectedClusters
	pages    map[string]map[string][]string // placement → decision → clusters
	holders  map[string]map[string]bool     // cluster → placements holding it
	isDone   map[string]bool                // placement → done
	// started is when the scheduler's first write was seen.
	started measure.FirstWrite
}

func (f *fixture) watch(ctx context.Context, b *testing.B) *watcher {
	b.Helper()
	w := &watcher{selected: map[string]int32{}, pages: map[string]map[string][]string{}, holders: map[string]map[string]bool{}, isDone: map[string]bool{}}
	factory := clusterinformers.NewSharedInformerFactoryWithOptions(f.clusters, 0, clusterinformers.WithNamespace(namespace))
	_, err := factory.Cluster().V1beta1().Placements().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { w.onPlacement(obj.(*clusterv1beta1.Placement)) },
		UpdateFunc: func(_, obj any) { w.onPlacement(obj.(*clusterv1beta1.Placement)) },
	})
	must(b, err)
	_, err = factory.Cluster().V1beta1().PlacementDecisions().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { w.onDecision(obj.(*clusterv1beta1.PlacementDecision), false) },
		UpdateFunc: func(_, obj any) { w.onDecision(obj.(*clusterv1beta1.PlacementDecision), false) },
		DeleteFunc: func(obj any) {
			if d, ok := obj.(*clusterv1beta1.PlacementDecision); ok {
				w.onDecision(d, true)
			}
		},
	})
	must(b, err)
	stop := make(chan struct{})
	b.Cleanup(func() { close(stop) })
	factory.Start(stop)
	factory.WaitForCacheSync(stop)
	_ = ctx
	return w
}

func (w *watcher) onPlacement(p *clusterv1beta1.Placement) {
	if len(p.Status.Conditions) > 0 {
		w.started.Seen()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.selected[p.Name] = p.Status.NumberOfSelectedClusters
	w.judge(p.Name)
}

func (w *watcher) onDecision(d *clusterv1beta1.PlacementDecision, deleted bool) {
	w.started.Seen()
	p := d.Labels[clusterv1beta1.PlacementLabel]
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.pages[p] == nil {
		w.pages[p] = map[string][]string{}
	}
	for _, c := range w.pages[p][d.Name] {
		delete(w.holders[c], p)
	}
	delete(w.pages[p], d.Name)
	if !deleted {
		for _, cd := range d.Status.Decisions {
			w.pages[p][d.Name] = append(w.pages[p][d.Name], cd.ClusterName)
			if w.holders[cd.ClusterName] == nil {
				w.holders[cd.ClusterName] = map[string]bool{}
			}
			w.holders[cd.ClusterName][p] = true
		}
	}
	w.judge(p)
}

// judge records whether the placement reports wanted clusters and its
// decisions list that many.
func (w *watcher) judge(p string) {
	n := 0
	for _, cs := range w.pages[p] {
		n += len(cs)
	}
	if w.selected[p] == wanted && n == wanted {
		w.isDone[p] = true
	} else {
		delete(w.isDone, p)
	}
}

// view is what the watcher saw at one time.
type view struct{ w *watcher }

func (w *watcher) snapshot() *view { return &view{w} }

// done counts the placements done.
func (v *view) done() int {
	v.w.mu.Lock()
	defer v.w.mu.Unlock()
	return len(v.w.isDone)
}

// holding counts the placements whose decisions hold the cluster.
func (v *view) holding(cluster string) int {
	v.w.mu.Lock()
	defer v.w.mu.Unlock()
	return len(v.w.holders[cluster])
}

// mostSelected is the cluster the most placements hold, and how many.
func (v *view) mostSelected() (string, int) {
	v.w.mu.Lock()
	defer v.w.mu.Unlock()
	best, most := "", -1
	for c, ps := range v.w.holders {
		if n := len(ps); n > most || n == most && c < best {
			best, most = c, n
		}
	}
	return best, most
}

// until samples the view every 20 ms until ok says so or the timeout.
func (w *watcher) until(ctx context.Context, timeout time.Duration, ok func(*view) bool) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond) // a benchmark's sampling interval, not a test's synchronisation
	defer tick.Stop()
	for {
		if ok(w.snapshot()) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// writesSince is every client's API writes since before.
func writesSince(ctx context.Context, f *fixture, before map[string]int) map[string]int {
	writes, _ := measure.Since(before, measure.APIWrites(ctx, f.kube))
	return writes
}
