// Package propagation_test measures the propagation addon's hub half,
// `corral hub --addons propagation --no-registration` with its defaults,
// run as its own process on a local hub control plane (issue 32's
// workload):
//
//   - N Deployments of 2 replicas in one namespace, the templates (1000,
//     and 3000 with PROPAGATIONS=1000,3000);
//   - one Placement of 10 clusters, decided by writing its
//     PlacementDecision directly (no scheduler runs; the clusters are their
//     namespaces only);
//   - a simulated work agent, a bare client in the benchmark, the same
//     beside corral and beside the floor: it reports every ManifestWork
//     Applied and Available at its generation, with its Deployment's status
//     fed back as the work's feedback rules ask (2 replicas ready, updated
//     and available; its generation observed), one status write per work
//     and generation;
//   - the time from creating N Propagations, one per template to the
//     Placement (32 at a time, as a user's tool would), until all N × 10
//     ManifestWorks are written; and until every template's aggregated
//     status is current (observedGeneration its generation, 20 replicas
//     summed) and every Propagation Applied on 10 clusters;
//   - then the time from editing every template's image (32 at a time)
//     until every work carries the new revision and every template's
//     aggregated status is current again;
//   - the hub's peak RSS and CPU seconds, and the API writes of each
//     phase (every client's: the agent's and the benchmark's too).
//
// BenchmarkPropagateFloor makes the writes that outcome needs with a bare
// client, at several concurrencies; it runs first, and BenchmarkPropagate
// then logs its times as a ratio of the fastest floor measured in the
// same run.
//
//	make kube-tools build
//	go test ./test/benchmark/propagation -run x -bench . -benchtime 1x -v
//
// (-v: without it the testing package keeps only the first lines each
// benchmark logs.)
//
// CORRAL_BENCH_PROFILE_DIR=/tmp also writes CPU profiles of the API
// server over the first seconds of each phase, and with
// CORRAL_BENCH_PPROF=127.0.0.1:6060 of the hub.
package propagation_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/test/benchmark/measure"
	"github.com/corral-dev/corral/test/benchmark/setup"
)

// timeout bounds each wait of a run.
const timeout = 10 * time.Minute

// profileFor is how long the profiles of each phase last.
const profileFor = 20 * time.Second

// errStopped: the side measured stopped before the outcome.
var errStopped = errors.New("the side measured stopped")

// side is what makes the writes a run measures: corral's hub, or the
// floor's bare client.
type side interface {
	// hooks are what the watcher tells it; nil for none.
	hooks() *hooks
	// start starts it on f; it is ready to be measured when start returns.
	start(ctx context.Context, b *testing.B, f *fixture)
	// pids are its processes, by name, to measure the CPU of.
	pids() map[string]int
	// stopped is closed when it can no longer reach the outcome.
	stopped() <-chan struct{}
	// created and edited are told of each Propagation created and each
	// template edited by the benchmark.
	created(p *v1alpha1.Propagation)
	edited(d *appsv1.Deployment)
	// profile profiles its process over the next d, if it has one.
	profile(b *testing.B, name string, d time.Duration) func()
}

// phase is what one phase of a run measured.
type phase struct {
	// done is the phase's figure: every work written (creating), or
	// every work updated and every template's status current (editing).
	done time.Duration
	// works is when every work carried the phase's revision.
	works time.Duration
	// settled is when every template's status was current and every
	// propagation applied.
	settled time.Duration
	writes  map[string]int
	total   int
	cpu     map[string]time.Duration
}

// run prepares the workload for n propagations, starts s and measures the
// two phases: creating the propagations, then editing the templates.
func run(b *testing.B, n int, name string, s side) (create, edit phase) {
	ctx := b.Context()
	f := prepare(ctx, b, n, s.hooks())
	s.start(ctx, b, f)
	kube := kubernetes.NewForConfigOrDie(f.Admin)
	procs := map[string]int{"kube-apiserver": f.PID("kube-apiserver"), "etcd": f.PID("etcd"), "bench": os.Getpid()}
	maps.Copy(procs, s.pids())

	measurePhase := func(rev int64, tag string, act func() error, done func(counts) bool) phase {
		before := measure.APIWrites(ctx, kube)
		cpu := measure.NewCPUMeter(procs)
		stopAPI := measure.ProfileAPIServer(ctx, b, kube, fmt.Sprintf("propagate-%d-%s-%s-apiserver", n, name, tag), profileFor)
		stopHub := s.profile(b, fmt.Sprintf("propagate-%d-%s-%s", n, name, tag), profileFor)
		b.StartTimer()
		begin := time.Now()
		acted := make(chan error, 1)
		go func() { acted <- act() }()
		var p phase
		if err := f.watch.until(ctx, timeout, rev, s.stopped(), func(c counts) bool {
			if p.works == 0 && c.works == n*clusters {
				p.works = time.Since(begin)
			}
			return done(c)
		}); err != nil {
			b.Fatalf("%s, %s: not done in %s (%+v): %v", name, tag, timeout, f.watch.counts(rev), err)
		}
		p.done = time.Since(begin)
		b.StopTimer()
		if err := f.watch.until(ctx, timeout, rev, s.stopped(), func(c counts) bool { return c.current == n && c.applied == n }); err != nil {
			b.Fatalf("%s, %s: not settled in %s (%+v): %v", name, tag, timeout, f.watch.counts(rev), err)
		}
		p.settled = time.Since(begin)
		must(b, <-acted)
		p.cpu = cpu.Used()
		p.writes, p.total = measure.Since(before, measure.APIWrites(ctx, kube))
		stopAPI()
		stopHub()
		return p
	}
	create = measurePhase(1, "create", func() error { return f.createPropagations(ctx, s.created) },
		func(c counts) bool { return c.works == n*clusters })
	edit = measurePhase(2, "edit", func() error { return f.editTemplates(ctx, s.edited) },
		func(c counts) bool { return c.works == n*clusters && c.current == n })
	return create, edit
}

// byCount runs bench once per count of propagationCounts, as a
// sub-benchmark named by it.
func byCount(b *testing.B, bench func(b *testing.B, n int)) {
	for _, n := range propagationCounts() {
		b.Run(fmt.Sprintf("propagations=%d", n), func(b *testing.B) {
			b.StopTimer()
			for range b.N {
				bench(b, n)
			}
		})
	}
}

// logPhases logs and reports a run's figures.
func logPhases(b *testing.B, n int, who string, create, edit phase) {
	b.ReportMetric(create.done.Seconds(), "s/all-written")
	b.ReportMetric(edit.done.Seconds(), "s/edit-current")
	b.Logf("%s: %d propagations × %d clusters: every work written %.2fs after the first create, every status current %.2fs after; load %s",
		who, n, clusters, create.done.Seconds(), create.settled.Seconds(), measure.Load())
	b.Logf("%s: every template edited: every work updated %.2fs after the first edit, and every template's status current %.2fs after, every propagation applied %.2fs after",
		who, edit.works.Seconds(), edit.done.Seconds(), edit.settled.Seconds())
	for _, p := range []struct {
		name string
		phase
	}{{"create", create}, {"edit", edit}} {
		b.Logf("%s, %s: API writes %d (%.1f per propagation): %s", who, p.name, p.total, float64(p.total)/float64(n), measure.FormatCounts(p.writes))
		b.Logf("%s, %s: CPU %s", who, p.name, measure.FormatSeconds(p.cpu))
	}
}

func BenchmarkPropagate(b *testing.B) {
	byCount(b, func(b *testing.B, n int) {
		h := &hub{}
		create, edit := run(b, n, "hub", h)
		peak := measure.PeakRSSMB(h.proc.PID())
		cpu := create.cpu["hub"] + edit.cpu["hub"]
		b.ReportMetric(float64(peak), "MB-peak-rss")
		b.ReportMetric(cpu.Seconds(), "s-hub-cpu")
		logPhases(b, n, "corral hub", create, edit)
		b.Logf("corral hub: peak RSS %d MB, CPU %.1fs (create %.1fs, edit %.1fs)", peak, cpu.Seconds(), create.cpu["hub"].Seconds(), edit.cpu["hub"].Seconds())
		b.Logf("corral hub: its requests: %s", measure.FormatCounts(measure.Scrape(h.metrics, "rest_client_requests_total", "method", "code")))
		if fl, ok := floors[n]; ok {
			b.Logf("corral hub over the fastest floor of this run: writing %.2f× (floor %.2fs at %d writers), editing %.2f× (floor %.2fs at %d writers)",
				create.done.Seconds()/fl.create.Seconds(), fl.create.Seconds(), fl.createWorkers,
				edit.done.Seconds()/fl.edit.Seconds(), fl.edit.Seconds(), fl.editWorkers)
		}
	})
}

// hub is corral's hub with only the propagation addon's hub half, its
// defaults but for leader election (one copy) and webhooks.
type hub struct {
	proc    *setup.Process
	metrics string
}

func (*hub) hooks() *hooks { return nil }

func (h *hub) start(_ context.Context, b *testing.B, f *fixture) {
	b.Helper()
	addr := setup.FreeAddr(b)
	h.metrics = "http://" + addr + "/metrics"
	args := []string{"hub", "--kubeconfig", f.Kubeconfig, "--addons", "propagation", "--no-registration",
		"--leader-elect=false", "--webhook-port=0", "--metrics-bind-address", addr}
	h.proc = setup.StartProcess(b, "propagation", "hub.log", setup.Corral(b), append(args, measure.PprofFlags()...)...)
	waitStarted(b, h.proc, controllers)
}

// controllers are the propagation addon's hub controllers
// ((cluster)propagation-selector, -distribute, -status): each logs
// "Starting workers" once its caches synced.
const controllers = 5

// waitStarted waits until the process logged that n propagation
// controllers started their workers.
func waitStarted(b *testing.B, p *setup.Process, n int) {
	b.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		data, err := os.ReadFile(p.Log)
		must(b, err)
		started := 0
		for _, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, "Starting workers") && strings.Contains(line, `controller="`) &&
				strings.Contains(line, `propagation-`) {
				started++
			}
		}
		if started >= n {
			return
		}
		select {
		case <-p.Exited():
			b.Fatalf("the hub stopped: %v (log: %s)", p.Err(), p.Log)
		case <-time.After(50 * time.Millisecond): // polling a log file
		}
		if time.Now().After(deadline) {
			b.Fatalf("the hub's controllers did not start in 2 minutes (log: %s)", p.Log)
		}
	}
}

func (h *hub) pids() map[string]int        { return map[string]int{"hub": h.proc.PID()} }
func (h *hub) stopped() <-chan struct{}    { return h.proc.Exited() }
func (*hub) created(*v1alpha1.Propagation) {}
func (*hub) edited(*appsv1.Deployment)     {}
func (h *hub) profile(b *testing.B, name string, d time.Duration) func() {
	return measure.ProfileProcess(b, h.proc.Args, name, d)
}
