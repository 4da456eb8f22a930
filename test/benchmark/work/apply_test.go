// Package work_test measures the work agent: how
// long `corral agent --addons work --no-registration`, started as its own
// process, takes to apply WORKS (default 1000) ManifestWorks of one
// ConfigMap and one Secret each that are already on the hub; its peak RSS;
// the CPU every process spent; the API writes per work; and the agent's
// CPU once nothing changes. BenchmarkApplyWorksFloor makes the same
// writes with a bare client: the API servers' own time for them, which
// no agent can beat; BenchmarkApplyWorksUpstream measures OCM's own agent
// the same way.
//
//	make build
//	WORKS=5000 go test -run '^$' -bench . -benchtime 1x ./test/benchmark/work/
//
// The hub and the managed cluster are two control planes; with
// APISERVERS=1 they are one (the agent's hub and managed cluster are the
// same API server), as an agent on the hub's own cluster has it.
//
// CORRAL_BENCH_PROFILE_DIR=/tmp also writes CPU profiles of the two API
// servers over the first 12s of the apply (and of each floor), and with
// CORRAL_BENCH_PPROF=127.0.0.1:6060 one of the agent.
package work_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	workclient "open-cluster-management.io/api/client/work/clientset/versioned"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/corral-dev/corral/addons/host"
	"github.com/corral-dev/corral/deploy/charts/corral-hub/crds"
	"github.com/corral-dev/corral/test/benchmark/measure"
	"github.com/corral-dev/corral/test/benchmark/setup"
)

const cluster = "cluster1"

// idleWindow is how long the agent's steady-state CPU is measured.
const idleWindow = 20 * time.Second

// controlPlane is a local cluster with the OCM CRDs and admin clients
// whose own limits are far above what is measured.
type controlPlane struct {
	*setup.ControlPlane
	kube  kubernetes.Interface
	works workclient.Interface
}

func start(ctx context.Context, b *testing.B, name string) *controlPlane {
	b.Helper()
	c := setup.Start(ctx, b, name)
	all, err := crds.All()
	if err != nil {
		b.Fatal(err)
	}
	if _, err := envtest.InstallCRDs(c.Config, envtest.CRDInstallOptions{CRDs: all}); err != nil {
		b.Fatal(err)
	}
	return &controlPlane{ControlPlane: c, kube: kubernetes.NewForConfigOrDie(c.Admin), works: workclient.NewForConfigOrDie(c.Admin)}
}

func works() int {
	if n, err := strconv.Atoi(os.Getenv("WORKS")); err == nil && n > 0 {
		return n
	}
	return 1000
}

func raw(b *testing.B, o map[string]any) workv1.Manifest {
	data, err := json.Marshal(o)
	if err != nil {
		b.Fatal(err)
	}
	return workv1.Manifest{RawExtension: runtime.RawExtension{Raw: data}}
}

// createWorks puts n ManifestWorks of a ConfigMap and a Secret in the
// cluster namespace on the hub.
func createWorks(ctx context.Context, b *testing.B, hub *controlPlane, n int) {
	b.Helper()
	err := measure.Parallel(50, n, func(i int) error {
		name := fmt.Sprintf("w%d", i)
		w := &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: name}}
		w.Spec.Workload.Manifests = []workv1.Manifest{
			raw(b, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"namespace": "default", "name": name}, "data": map[string]any{"k": "v"}}),
			raw(b, map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"namespace": "default", "name": name}, "stringData": map[string]any{"k": "v"}}),
		}
		_, err := hub.works.WorkV1().ManifestWorks(cluster).Create(ctx, w, metav1.CreateOptions{})
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
}

// startAgent runs the work addon's agent half alone, as a hosted
// deployment would, with its default client limits; with
// CORRAL_BENCH_PPROF it serves /debug/pprof there.
func startAgent(b *testing.B, hub, managed *controlPlane) *setup.Process {
	b.Helper()
	args := []string{"agent", "--addons", "work", "--no-registration", "--cluster-name", cluster,
		"--hub-kubeconfig", hub.Kubeconfig, "--kubeconfig", managed.Kubeconfig}
	return setup.StartProcess(b, "work", "agent.log", setup.Corral(b), append(args, measure.PprofFlags()...)...)
}

// done says a work is applied and available with both resources'
// statuses reported.
func done(w *workv1.ManifestWork) bool {
	return meta.IsStatusConditionTrue(w.Status.Conditions, workv1.WorkApplied) &&
		meta.IsStatusConditionTrue(w.Status.Conditions, workv1.WorkAvailable) && len(w.Status.ResourceStatus.Manifests) == 2
}

// watchDone watches the cluster namespace's works, from their list on,
// until n are done, in the background, and then sends nil (or why it
// stopped) on the channel it returns: one watch rather than polling
// lists, so that looking costs the hub's API server little; started
// before the agent's clock, so that its list is not timed. (The floor
// is not timed by it: see applyFloor.) A watch the API server ends (it
// drops a watcher that falls behind, as this one can on a busy machine)
// is started again from a new list. It records in started when it first
// sees a work the agent wrote to.
func watchDone(ctx context.Context, b *testing.B, hub *controlPlane, n int, started *measure.FirstWrite) <-chan error {
	works := hub.works.WorkV1().ManifestWorks(cluster)
	ready := map[string]bool{}
	count := 0
	see := func(work *workv1.ManifestWork) {
		if len(work.Finalizers) > 0 || len(work.Status.Conditions) > 0 { // the agent's first write to a work
			started.Seen()
		}
		if was, now := ready[work.Name], done(work); was != now {
			ready[work.Name] = now
			if now {
				count++
			} else {
				count--
			}
		}
	}
	watchFromList := func() (watch.Interface, error) {
		list, err := works.List(ctx, metav1.ListOptions{ResourceVersion: "0"})
		if err != nil {
			return nil, err
		}
		for i := range list.Items {
			see(&list.Items[i])
		}
		return works.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	}
	w, err := watchFromList()
	if err != nil {
		b.Fatal(err)
	}
	result := make(chan error, 1)
	go func() {
		for count < n {
			ev, open := <-w.ResultChan()
			if !open {
				if w, err = watchFromList(); err != nil {
					result <- fmt.Errorf("watching the works with %d of %d done: %w", count, n, err)
					return
				}
				continue
			}
			if work, ok := ev.Object.(*workv1.ManifestWork); ok {
				see(work)
			}
		}
		w.Stop()
		result <- nil
	}()
	return result
}

// oneAPIServer says whether the hub and the managed cluster are one
// control plane ($APISERVERS=1) rather than two.
func oneAPIServer() bool { return os.Getenv("APISERVERS") == "1" }

// startWithWorks starts the hub and the managed cluster (one control plane
// for both with $APISERVERS=1) and puts WORKS (default 1000)
// ManifestWorks, each with a ConfigMap and a Secret, in the cluster
// namespace on the hub.
func startWithWorks(ctx context.Context, b *testing.B) (hub, managed *controlPlane, n int) {
	b.Helper()
	if oneAPIServer() {
		hub = start(ctx, b, "hub")
		managed = hub
	} else {
		var wg sync.WaitGroup
		wg.Go(func() { managed = start(ctx, b, "managed") })
		hub = start(ctx, b, "hub")
		wg.Wait()
	}
	if _, err := hub.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: cluster}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	n = works()
	createWorks(ctx, b, hub, n)
	return hub, managed, n
}

// processes are the processes whose CPU a run measures, by name: those
// given, the benchmark's own, and each control plane's API server and
// etcd, once.
func processes(hub, managed *controlPlane, more map[string]int) map[string]int {
	p := map[string]int{measure.Benchmark: os.Getpid()}
	if hub == managed {
		p["apiserver"], p["etcd"] = hub.PID("kube-apiserver"), hub.PID("etcd")
	} else {
		p["hub-apiserver"], p["hub-etcd"] = hub.PID("kube-apiserver"), hub.PID("etcd")
		p["managed-apiserver"], p["managed-etcd"] = managed.PID("kube-apiserver"), managed.PID("etcd")
	}
	maps.Copy(p, more)
	return p
}

// profileAPIServers profiles each control plane's API server over 12s
// (measure.ProfileAPIServer), to files named from prefix; the returned func
// waits for the profiles.
func profileAPIServers(ctx context.Context, b *testing.B, hub, managed *controlPlane, prefix string) func() {
	if hub == managed {
		return measure.ProfileAPIServer(ctx, b, hub.kube, prefix+"-apiserver", 12*time.Second)
	}
	hubDone := measure.ProfileAPIServer(ctx, b, hub.kube, prefix+"-hub-apiserver", 12*time.Second)
	managedDone := measure.ProfileAPIServer(ctx, b, managed.kube, prefix+"-managed-apiserver", 12*time.Second)
	return func() { hubDone(); managedDone() }
}

// requests are a control plane's API requests so far, writes and reads.
type requests struct{ writes, reads map[string]int }

func (c *controlPlane) requests(ctx context.Context) requests {
	return requests{writes: measure.APIWrites(ctx, c.kube), reads: measure.APIReads(ctx, c.kube)}
}

// requestsSince says each control plane's API writes and reads since the
// counts before, per work, a line each.
func requestsSince(ctx context.Context, hub, managed *controlPlane, hubBefore, managedBefore requests, n int) []string {
	line := func(name string, c *controlPlane, before requests) string {
		now := c.requests(ctx)
		writes, total := measure.Since(before.writes, now.writes)
		reads, _ := measure.Since(before.reads, now.reads)
		return fmt.Sprintf("%s writes: %d (%.1f per work): %s; reads: %s", name, total, float64(total)/float64(n), measure.FormatCounts(writes), measure.FormatCounts(reads))
	}
	if hub == managed {
		return []string{line("API server (hub and managed cluster)", hub, hubBefore)}
	}
	return []string{line("hub", hub, hubBefore), line("managed", managed, managedBefore)}
}

// agentRun is corral's agent's run in this run's BenchmarkApplyWorks,
// zero before it ran: BenchmarkApplyWorksFloor, run after it, says how far
// it is from the true floor.
var agentRun measure.Run

// BenchmarkApplyWorks: the works on the hub before the agent starts.
func BenchmarkApplyWorks(b *testing.B) { agentRun = benchmarkApply(b, startAgent) }

// benchmarkApply measures the agent that start starts, the works on the
// hub before it starts, and says how long it took to apply them all and
// the CPU every process used meanwhile.
func benchmarkApply(b *testing.B, start func(b *testing.B, hub, managed *controlPlane) *setup.Process) measure.Run {
	ctx := b.Context()
	hub, managed, n := startWithWorks(ctx, b)
	// The addon's lease lives in its install namespace.
	if _, err := managed.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: host.DefaultInstallNamespace}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}

	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	var started measure.FirstWrite
	seen := watchDone(waitCtx, b, hub, n, &started)
	b.ResetTimer()
	hubBefore, managedBefore := hub.requests(ctx), managed.requests(ctx)
	began := time.Now()
	agent := start(b, hub, managed)
	b.Logf("agent log: %s", agent.Log)
	cpu := measure.NewCPUMeter(processes(hub, managed, map[string]int{"agent": agent.PID()}))
	defer profileAPIServers(ctx, b, hub, managed, fmt.Sprintf("apply-%d", n))()
	defer measure.ProfileProcess(b, agent.Args, fmt.Sprintf("apply-%d-agent", n), 12*time.Second)()
	select {
	case err := <-seen:
		if err != nil {
			b.Fatal(err)
		}
	case <-agent.Exited():
		b.Fatalf("the agent stopped: %v", agent.Err())
	}
	elapsed := time.Since(began)
	b.StopTimer()
	used := cpu.Used()
	peak := measure.PeakRSSMB(agent.PID())
	requests := requestsSince(ctx, hub, managed, hubBefore, managedBefore, n)
	for _, kind := range []string{"configmaps", "secrets"} {
		list, err := managed.kube.CoreV1().RESTClient().Get().Namespace("default").Resource(kind).
			VersionedParams(&metav1.ListOptions{LabelSelector: ""}, metav1.ParameterCodec).Do(ctx).Get()
		if err != nil {
			b.Fatal(err)
		}
		if items, _ := meta.ExtractList(list); len(items) < n {
			b.Fatalf("%d %s on the managed cluster, want at least %d", len(items), kind, n)
		}
	}

	// Steady state: nothing changes; the agent should do next to nothing.
	idle := measure.NewCPUMeter(map[string]int{"agent": agent.PID()})
	select {
	case <-agent.Exited():
		b.Fatalf("the agent stopped: %v", agent.Err())
	case <-time.After(idleWindow):
	}
	idleMS := float64(idle.Used()["agent"].Milliseconds()) / idleWindow.Seconds()

	b.ReportMetric(elapsed.Seconds(), "s/all-applied")
	b.ReportMetric(float64(peak), "MB-agent-peak-RSS")
	b.ReportMetric(idleMS, "idle-cpu-ms/s")
	b.Logf("%d works applied in %.2fs (the agent's first write after %.2fs); agent peak RSS %d MB; load %s",
		n, elapsed.Seconds(), started.Since(began).Seconds(), peak, measure.Load())
	b.Logf("CPU while applying: %s", measure.FormatSeconds(used))
	for _, line := range requests {
		b.Log(line)
	}
	b.Logf("agent CPU with nothing changing: %.1f ms/s over %s", idleMS, idleWindow)
	return measure.Run{Elapsed: elapsed, CPU: used, Start: started.Since(began)}
}
