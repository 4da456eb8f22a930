// Package scale_test measures how a hub holds a fleet: `corral dev
// simulate`'s clusters joining, being accepted and heartbeating against
// a local hub control plane, at several fleet sizes, with corral's hub
// (`corral hub`, its defaults: the registration core and every built-in
// addon's hub half) and with upstream OCM's hub (its registration
// controller, placement controller, work manager and addon manager, as
// the cluster manager runs them) side by side, each on a control plane
// of its own, in the same run.
//
// For each it prints the simulator's report: joins per second, the hub's
// reaction to acceptances, how late lease renewals were, false
// Unknowns, and the CPU and memory of the hub's processes, the API
// server and etcd; then a table of both hubs and an SVG plot of the
// hub's time, CPU and memory against the fleet's size (SCALE_SVG,
// default docs/scale.svg).
//
//	make kube-tools ocm-tools build
//	go test ./test/benchmark/scale -run x -bench . -benchtime 1x -timeout 0 -v
//
// SCALE_CLUSTERS (default 1000) lists the fleet sizes, comma-separated
// (1000,3000,10000); SCALE_HUBS the hubs (default corral,ocm);
// SCALE_DURATION how long the fleet heartbeats once joined with nothing
// else changing (default 3m; the hub's CPU is measured over it but for
// its first lease period) at a lease period of SCALE_LEASE (default
// 60s). Then SCALE_UNREACHABLE clusters' agents (default 100) stop at
// once until the hub marks them all gone, and resume; then one Placement
// chooses 1000 of the clusters (all, in a smaller fleet) by their
// allocatable CPU and memory, and one ManifestWorkReplicaSet rolls out to
// them progressively, a tenth at a time, the simulated work agents
// reporting each work available.
package scale_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterclient "open-cluster-management.io/api/client/cluster/clientset/versioned"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/dev/simulate"
	"github.com/corral-dev/corral/test/benchmark/measure"
	"github.com/corral-dev/corral/test/benchmark/setup"
)

// result is one hub's run at one fleet size.
type result struct {
	hub      string
	clusters int
	report   *simulate.Report
	workload *workload
	roles    map[int]string // pid: "hub", "kube-apiserver", "etcd"…
}

func BenchmarkScale(b *testing.B) {
	sizes := envInts(b, "SCALE_CLUSTERS", "1000", 1)
	hubs := strings.Split(envOr("SCALE_HUBS", "corral,ocm"), ",")
	duration := envDuration(b, "SCALE_DURATION", "3m")
	lease := envDuration(b, "SCALE_LEASE", "60s")
	unreachable := envInts(b, "SCALE_UNREACHABLE", "100", 0)[0]
	var results []result
	for _, n := range sizes {
		for _, hub := range hubs {
			b.Run(fmt.Sprintf("hub=%s/clusters=%d", hub, n), func(b *testing.B) {
				for range b.N {
					results = append(results, run(b, hub, n, duration, lease, unreachable))
				}
			})
		}
	}
	if len(results) == 0 {
		return
	}
	b.Logf("\n%s", table(results))
	path := envOr("SCALE_SVG", "../../../docs/scale.svg")
	if err := measure.WriteSVG(path, "clusters", plot(results)); err != nil {
		b.Fatal(err)
	}
	b.Logf("plot written to %s", path)
}

// run simulates n clusters on a fresh hub control plane with the named
// hub's controllers.
func run(b *testing.B, hub string, n int, duration, lease time.Duration, unreachable int) result {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute+time.Duration(n)*300*time.Millisecond+duration)
	defer cancel()
	cp := setup.StartHub(ctx, b)
	roles := map[int]string{cp.PID("kube-apiserver"): "kube-apiserver", cp.PID("etcd"): "etcd", cp.PID("kube-controller-manager"): "kcm"}
	for _, p := range startHub(b, hub, cp.Kubeconfig) {
		roles[p.PID()] = "hub"
	}
	if err := accepted(ctx, clusterclient.NewForConfigOrDie(cp.Admin), "probe"); err != nil {
		b.Fatalf("the %s hub did not accept a first cluster: %v", hub, err)
	}
	var pids []int
	for pid := range roles {
		pids = append(pids, pid)
	}
	w := &workload{admin: cp.Admin, placed: min(1000, n)}
	b.StartTimer()
	r, err := simulate.Run(ctx, cp.Admin, simulate.Options{
		Clusters: n, Prefix: simulate.DefaultPrefix, LeasePeriod: lease, Duration: duration, Accept: true,
		Unreachable: min(unreachable, n), Then: w.run,
		Parallel: simulate.DefaultParallel, Keep: true, HubPIDs: pids, Progress: progressLog{b},
	})
	b.StopTimer()
	if err != nil {
		b.Fatalf("%s hub, %d clusters: %v", hub, n, err)
	}
	if w.err != nil {
		b.Errorf("%s hub, %d clusters: %v", hub, n, w.err)
	}
	res := result{hub: hub, clusters: n, report: r, workload: w, roles: roles}
	b.ReportMetric(r.JoinsPerSecond, "joins/s")
	b.ReportMetric(float64(r.FalseUnknown), "false-unknown")
	b.ReportMetric(res.sum("hub", func(p simulate.Process) float64 { return p.PeakRSSMB }), "MB-hub-peak-rss")
	b.ReportMetric(res.sum("hub", func(p simulate.Process) float64 { return p.HeartbeatCPUPercent }), "%cpu-hub-heartbeating")
	b.Logf("%s hub, %d clusters (load %s):\n%s", hub, n, measure.Load(), res.describe())
	return res
}

// startHub starts the named hub's processes against kubeconfig.
func startHub(b *testing.B, hub, kubeconfig string) []*setup.Process {
	switch hub {
	case "corral":
		args := append([]string{"hub", "--kubeconfig", kubeconfig, "--leader-elect=false", "--webhook-port=0"}, measure.PprofFlags()...)
		return []*setup.Process{setup.StartProcess(b, "hub", "hub.log", setup.Corral(b), args...)}
	case "ocm":
		ocm := func(name, binary string, args ...string) *setup.Process {
			args = append(args, "--kubeconfig="+kubeconfig, "--disable-leader-election", "--listen="+setup.FreeAddr(b))
			return setup.StartProcess(b, name, name+".log", setup.Binary(b, binary, "make ocm-tools"), args...)
		}
		return []*setup.Process{
			ocm("ocm-registration", "ocm-registration", "controller"),
			ocm("ocm-placement", "ocm-placement", "controller"),
			ocm("ocm-work", "ocm-work", "manager", "--feature-gates=ManifestWorkReplicaSet=true"),
			ocm("ocm-addon", "ocm-addon", "manager"),
		}
	}
	b.Fatalf("SCALE_HUBS names %q: give corral or ocm", hub)
	return nil
}

// accepted creates an accepted cluster and waits until the hub has
// accepted it: the hub is up and working.
func accepted(ctx context.Context, clusters clusterclient.Interface, name string) error {
	mc := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: clusterv1.ManagedClusterSpec{HubAcceptsClient: true}}
	if _, err := clusters.ClusterV1().ManagedClusters().Create(ctx, mc, metav1.CreateOptions{}); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for {
		got, err := clusters.ClusterV1().ManagedClusters().Get(ctx, name, metav1.GetOptions{})
		if err == nil && meta.IsStatusConditionTrue(got.Status.Conditions, clusterv1.ManagedClusterConditionHubAccepted) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %w)", ctx.Err(), err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// sum adds up figure over the processes in role.
func (r result) sum(role string, figure func(simulate.Process) float64) float64 {
	total := 0.0
	for _, p := range r.report.Processes {
		if r.roles[p.PID] == role {
			total += figure(p)
		}
	}
	return total
}

func (r result) describe() string {
	rep := r.report
	var s strings.Builder
	fmt.Fprintf(&s, "  joined %d in %.1fs (%.1f/s), first beats retried %d\n", rep.Joined, rep.JoinSeconds, rep.JoinsPerSecond, rep.FirstBeatsRetried)
	if rep.Accepted != nil {
		fmt.Fprintf(&s, "  accepted after p50 %.2fs p99 %.2fs max %.2fs; ready after p50 %.2fs p99 %.2fs max %.2fs\n",
			rep.Accepted.P50, rep.Accepted.P99, rep.Accepted.Max, rep.Ready.P50, rep.Ready.P99, rep.Ready.Max)
	}
	fmt.Fprintf(&s, "  %d renewals (%d failed), late p50 %.3fs p99 %.3fs max %.3fs; false Unknown %d\n",
		rep.Renewals, rep.RenewalsFailed, rep.Late.P50, rep.Late.P99, rep.Late.Max, rep.FalseUnknown)
	if out := rep.Outage; out != nil {
		fmt.Fprintf(&s, "  outage of %d: %d marked gone after p50 %.1fs max %.1fs; %d back after p50 %.2fs max %.2fs\n",
			out.Clusters, out.Gone, out.GoneAfter.P50, out.GoneAfter.Max, out.Back, out.BackAfter.P50, out.BackAfter.Max)
	}
	fmt.Fprintf(&s, "  Placement of %d: %.2fs; progressive rollout to them: %.2fs; work statuses reported %d\n",
		r.workload.placed, r.workload.placement.Seconds(), r.workload.rollout.Seconds(), rep.WorksReported)
	fmt.Fprintf(&s, "  simulator %.1f KB per cluster\n", rep.BytesPerCluster/1024)
	for _, p := range rep.Processes {
		fmt.Fprintf(&s, "  %-15s %-16s CPU %6.1fs joining, %5.1f%% of a core heartbeating; RSS %4.0f MB → peak %4.0f MB (%.1f KB/cluster)\n",
			r.roles[p.PID], p.Name, p.JoinCPUSeconds, p.HeartbeatCPUPercent, p.StartRSSMB, p.PeakRSSMB, p.RSSPerClusterKB)
	}
	return s.String()
}

// table sets the runs side by side: one row per hub and size.
func table(results []result) string {
	var s strings.Builder
	fmt.Fprintf(&s, "| hub | clusters | join s | joins/s | ready p99 s | late p99 s | false Unknown | gone max s | back max s | placement s | rollout s | hub CPU joining s | hub CPU heartbeating %% | hub peak RSS MB | KB/cluster | API server CPU joining s | etcd peak RSS MB |\n")
	fmt.Fprintf(&s, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range results {
		ready := 0.0
		if r.report.Ready != nil {
			ready = r.report.Ready.P99
		}
		var gone, back float64
		if out := r.report.Outage; out != nil {
			gone, back = out.GoneAfter.Max, out.BackAfter.Max
		}
		fmt.Fprintf(&s, "| %s | %d | %.0f | %.1f | %.2f | %.3f | %d | %.0f | %.1f | %.1f | %.1f | %.1f | %.1f | %.0f | %.1f | %.1f | %.0f |\n",
			r.hub, r.clusters, r.report.JoinSeconds, r.report.JoinsPerSecond, ready, r.report.Late.P99, r.report.FalseUnknown,
			gone, back, r.workload.placement.Seconds(), r.workload.rollout.Seconds(),
			r.sum("hub", cpuJoining), r.sum("hub", cpuHeartbeating), r.sum("hub", peakRSS), r.sum("hub", rssPerCluster),
			r.sum("kube-apiserver", cpuJoining), r.sum("etcd", peakRSS))
	}
	return s.String()
}

func cpuJoining(p simulate.Process) float64      { return p.JoinCPUSeconds }
func cpuHeartbeating(p simulate.Process) float64 { return p.HeartbeatCPUPercent }
func peakRSS(p simulate.Process) float64         { return p.PeakRSSMB }
func rssPerCluster(p simulate.Process) float64   { return p.RSSPerClusterKB }

// plot is the hub's join time, CPU and memory against the fleet's size,
// a series per hub.
func plot(results []result) []measure.Panel {
	figures := []struct {
		title string
		of    func(result) float64
	}{
		{"join and accept time (s)", func(r result) float64 { return r.report.JoinSeconds }},
		{"hub CPU joining (s)", func(r result) float64 { return r.sum("hub", cpuJoining) }},
		{"rollout to 1000 (s)", func(r result) float64 { return r.workload.rollout.Seconds() }},
		{"hub CPU heartbeating (% of a core)", func(r result) float64 { return r.sum("hub", cpuHeartbeating) }},
		{"hub peak RSS (MB)", func(r result) float64 { return r.sum("hub", peakRSS) }},
	}
	var panels []measure.Panel
	for _, f := range figures {
		p := measure.Panel{Title: f.title}
		for _, hub := range hubsOf(results) {
			s := measure.Series{Name: hubName[hub]}
			for _, r := range results {
				if r.hub == hub {
					s.Points = append(s.Points, [2]float64{float64(r.clusters), f.of(r)})
				}
			}
			p.Series = append(p.Series, s)
		}
		panels = append(panels, p)
	}
	return panels
}

var hubName = map[string]string{"corral": "corral hub", "ocm": "OCM v1.2.0 hub"}

func hubsOf(results []result) []string {
	var hubs []string
	for _, r := range results {
		if !slices.Contains(hubs, r.hub) {
			hubs = append(hubs, r.hub)
		}
	}
	return hubs
}

// progressLog writes the simulator's progress lines to the benchmark's
// log.
type progressLog struct{ b *testing.B }

func (p progressLog) Write(line []byte) (int, error) {
	p.b.Log(strings.TrimSpace(string(line)))
	return len(line), nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// envInts is $name's comma-separated counts, each least or more.
func envInts(b *testing.B, name, def string, least int) []int {
	var out []int
	for _, f := range strings.Split(envOr(name, def), ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < least {
			b.Fatalf("%s=%q: give counts of %d or more, comma-separated (1000,3000)", name, os.Getenv(name), least)
		}
		out = append(out, n)
	}
	return out
}

func envDuration(b *testing.B, name, def string) time.Duration {
	d, err := time.ParseDuration(envOr(name, def))
	if err != nil {
		b.Fatalf("%s=%q: give a duration (3m)", name, os.Getenv(name))
	}
	return d
}
