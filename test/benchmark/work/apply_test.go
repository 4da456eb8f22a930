// Package work_test measures the work agent: how long it takes, once it
// starts, to apply works already on the hub (issue 6's benchmark: 1000
// ManifestWorks of one ConfigMap and one Secret each). The agent runs in
// this process (agent.Run), so the time is the agent's but the memory
// figure would be the test's too and is not reported here.
package work_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/corral-dev/corral/deploy/crds"
	"github.com/corral-dev/corral/internal/localcluster"
	"github.com/corral-dev/corral/work/agent"
)

const cluster = "cluster1"

func start(ctx context.Context, b *testing.B, name string) *localcluster.Cluster {
	b.Helper()
	c, err := localcluster.Start(ctx, localcluster.Options{Name: name, Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Stop() })
	all, err := crds.All()
	if err != nil {
		b.Fatal(err)
	}
	if _, err := envtest.InstallCRDs(c.Config, envtest.CRDInstallOptions{CRDs: all}); err != nil {
		b.Fatal(err)
	}
	return c
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

// BenchmarkApplyWorks: WORKS (default 1000) ManifestWorks, each with a
// ConfigMap and a Secret, on the hub before the agent starts.
func BenchmarkApplyWorks(b *testing.B) {
	ctx := b.Context()
	var hub, managed *localcluster.Cluster
	var wg sync.WaitGroup
	wg.Go(func() { managed = start(ctx, b, "managed") })
	hub = start(ctx, b, "hub")
	wg.Wait()
	admin := rest.CopyConfig(hub.Config)
	admin.QPS, admin.Burst = 5000, 10000
	scheme, err := agent.Scheme()
	if err != nil {
		b.Fatal(err)
	}
	c, err := client.New(admin, client.Options{Scheme: scheme})
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: cluster}}); err != nil {
		b.Fatal(err)
	}
	n := works()
	sem := make(chan struct{}, 50)
	errs := make(chan error, n)
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			name := fmt.Sprintf("w%d", i)
			w := &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: name}}
			w.Spec.Workload.Manifests = []workv1.Manifest{
				raw(b, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"namespace": "default", "name": name}, "data": map[string]any{"k": "v"}}),
				raw(b, map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"namespace": "default", "name": name}, "stringData": map[string]any{"k": "v"}}),
			}
			errs <- c.Create(ctx, w)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	began := time.Now()
	agentCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- agent.Run(agentCtx, agent.Options{ClusterName: cluster, Hub: hub.Config, Managed: managed.Config})
	}()
	for {
		l := &workv1.ManifestWorkList{}
		if err := c.List(ctx, l, client.InNamespace(cluster)); err != nil {
			b.Fatal(err)
		}
		ready := 0
		for _, w := range l.Items {
			if meta.IsStatusConditionTrue(w.Status.Conditions, workv1.WorkApplied) &&
				meta.IsStatusConditionTrue(w.Status.Conditions, workv1.WorkAvailable) && len(w.Status.ResourceStatus.Manifests) == 2 {
				ready++
			}
		}
		if ready == n {
			break
		}
		select {
		case err := <-done:
			b.Fatalf("agent stopped: %v", err)
		case <-time.After(time.Second):
		}
	}
	elapsed := time.Since(began)
	b.StopTimer()
	b.ReportMetric(elapsed.Seconds(), "s/all-applied")

	// Steady state: nothing changes; the agent should do next to nothing.
	// This process only waits meanwhile, so its CPU time is the agent's.
	before := cpuTime(b)
	idle := time.NewTimer(idleWindow)
	select {
	case err := <-done:
		b.Fatalf("agent stopped: %v", err)
	case <-idle.C:
	}
	b.ReportMetric(float64((cpuTime(b)-before).Milliseconds())/idleWindow.Seconds(), "idle-cpu-ms/s")
	reportRequests(b)
	cancel()
	<-done
}

// idleWindow is how long the agent's steady-state CPU is measured.
const idleWindow = 20 * time.Second

// cpuTime is this process's user and system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportRequests logs the requests this process's clients made, by method
// and code (client-go's metrics, which controller-runtime registers).
func reportRequests(b *testing.B) {
	families, err := metrics.Registry.Gather()
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "rest_client_requests_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := ""
			for _, l := range m.GetLabel() {
				labels += l.GetName() + "=" + l.GetValue() + " "
			}
			b.Logf("requests %s: %.0f", labels, m.GetCounter().GetValue())
		}
	}
}
