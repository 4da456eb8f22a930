package registration_test

// Joins: N agents join one hub at once, each speaking the real
// protocol — ManagedCluster and CSR with the bootstrap token, a hub admin
// approving the request and accepting the cluster as `corral accept` does,
// the signed certificate, then the first heartbeat with the issued
// identity (lease renewed, Joined and Available reported). The hub is the
// `corral hub` binary with its defaults.
//
// The agents are corral's fleet simulator's (dev/simulate), which waits
// through two shared watches (certificates, acceptance) where a real
// agent polls, so that N agents' polling does not load the API server the
// hub needs; each agent still makes its own requests.

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/corral-dev/corral/internal/procstat"

	"github.com/corral-dev/corral/dev/simulate"
	"github.com/corral-dev/corral/registration/bootstrap"
	"github.com/corral-dev/corral/test/benchmark/measure"
)

func BenchmarkJoin(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("agents=%d", n), func(b *testing.B) {
			b.StopTimer()
			for range b.N {
				benchmarkJoin(b, n)
			}
		})
	}
}

func benchmarkJoin(b *testing.B, n int) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	f := startHub(ctx, b)
	hub := f.startCorral(b)
	ctx, stopWaiting := hub.within(ctx, 10*time.Minute) // no wait outlives the hub
	defer stopWaiting()
	if err := f.accepted(ctx, "probe"); err != nil {
		b.Fatalf("corral hub did not accept a first cluster (log: %s): %v", hub.Log, err)
	}
	baseline := procstat.KiB(hub.PID(), "VmRSS")
	token, err := bootstrap.Token(ctx, f.kube, 3600)
	if err != nil {
		b.Fatal(err)
	}
	sim, err := simulate.NewHub(f.Admin, token)
	if err != nil {
		b.Fatal(err)
	}
	watching, stopWatching := context.WithCancel(ctx)
	defer stopWatching()
	go sim.Watch(watching, nil)

	before := measure.APIWrites(ctx, f.kube)
	hubBefore := hub.writes()
	cpu := measure.NewCPUMeter(map[string]int{"hub": hub.PID(), "kube-apiserver": f.PID("kube-apiserver"), "etcd": f.PID("etcd"),
		"kcm": f.PID("kube-controller-manager"), "bench": os.Getpid()})
	b.StartTimer()
	begin := time.Now()
	latencies := make([]time.Duration, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if _, err := sim.Join(ctx, fmt.Sprintf("j%04d", i), 60, true); err != nil {
				b.Errorf("agent %d: %v", i, err)
				return
			}
			latencies[i] = time.Since(begin)
		})
	}
	wg.Wait()
	elapsed := time.Since(begin)
	b.StopTimer()
	if b.Failed() {
		b.Fatalf("not every agent joined (hub log: %s)", hub.Log)
	}
	peak := procstat.KiB(hub.PID(), "VmHWM")
	writes, total := measure.Since(before, measure.APIWrites(ctx, f.kube))
	hubWrites := hub.writes() - hubBefore
	slices.Sort(latencies)
	perCluster := float64(peak-baseline) / float64(n)
	b.ReportMetric(float64(n)/elapsed.Seconds(), "joins/s")
	b.ReportMetric(float64(peak)/1024, "MB-peak-rss")
	b.ReportMetric(perCluster, "KB-rss/cluster")
	b.Logf("%d agents joined in %.2fs (%.0f joins/s; first %.2fs, median %.2fs, last %.2fs); load %s",
		n, elapsed.Seconds(), float64(n)/elapsed.Seconds(), latencies[0].Seconds(), latencies[n/2].Seconds(), latencies[n-1].Seconds(), measure.Load())
	b.Logf("corral hub RSS: %d MB before, %d MB peak: %.0f KB per cluster", baseline/1024, peak/1024, perCluster)
	b.Logf("CPU: %s; first heartbeats retried: %d not yet allowed (the API server's authorizer not caught up yet), %d conflicting",
		measure.FormatPercent(cpu.Percent()), sim.NotYet.Load(), sim.Conflicts.Load())
	b.Logf("hub requests: %s; reconciles: %s", measure.FormatCounts(hub.requests()), measure.FormatCounts(hub.reconciles()))
	b.Logf("hub writes %d (%.1f/cluster); API server writes %d (%.1f/cluster, every client): %s",
		hubWrites, float64(hubWrites)/float64(n), total, float64(total)/float64(n), measure.FormatCounts(writes))
}
