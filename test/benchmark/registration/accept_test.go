// Package registration_test measures the registration hub, the `corral hub`
// binary with its defaults, on a local hub control plane:
//
//   - BenchmarkAccept (a): N ManagedClusters with hubAcceptsClient: true
//     appear at once; the time until every one has its namespace, its RBAC
//     and HubAcceptedManagedCluster, and the hub's peak RSS, for the
//     registration core alone (hub=core) and with the built-in addons;
//   - BenchmarkJoin (b): N agents speaking the real protocol join at once;
//     joins/s and the hub's RSS per cluster;
//   - BenchmarkLeases (c): 1000 clusters renewing their leases; no false
//     Available=Unknown, no hub write, the hub's CPU renewing and idle;
//   - BenchmarkAcceptFloor: (a)'s writes made by a bare client, the API
//     server's own time for them, which no hub can beat;
//   - BenchmarkAcceptUpstream: (a) for OCM's own registration controller.
//
// Each also logs the writes of the hub and of the API server by verb and
// resource, and the CPU of every process, to tell what the bottleneck is.
// The machine's load is logged with the figures: they are noisy on a
// shared machine.
//
//	make kube-tools build
//	go test ./test/benchmark/registration -run x -bench . -benchtime 1x
//
// CORRAL_BENCH_PROFILE_DIR=/tmp also writes a CPU profile of the API
// server, and with CORRAL_BENCH_PPROF=127.0.0.1:6060 one of the hub.
package registration_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/corral-dev/corral/internal/procstat"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	clusterclient "open-cluster-management.io/api/client/cluster/clientset/versioned"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/test/benchmark/measure"
	"github.com/corral-dev/corral/test/benchmark/setup"
)

// hubs are the two ways the hub is measured: the registration core alone
// (what an accept is measured by), and `corral hub` as it comes, with the built-in
// addons' hub halves (a ClusterProfile per cluster, health and properties
// controllers) beside it.
var hubs = []struct {
	name string
	args []string
}{
	{"core", []string{"--addons", "none"}},
	{"default", nil},
}

// acceptRun is a hub's run accepting n clusters.
type acceptRun struct {
	measure.Run
	n int
}

// acceptRuns are this run's accepts by benchmark name:
// BenchmarkAcceptFloor, run after them, says how far each is from the
// true floor.
var acceptRuns = map[string]acceptRun{}

func BenchmarkAccept(b *testing.B) {
	for _, n := range []int{100, 1000} {
		for _, h := range hubs {
			b.Run(fmt.Sprintf("clusters=%d/hub=%s", n, h.name), func(b *testing.B) {
				b.StopTimer()
				for range b.N {
					benchmarkAccept(b, n, func(f *hubFixture, b *testing.B) *hubProcess { return f.startCorral(b, h.args...) })
				}
			})
		}
	}
}

// BenchmarkAcceptUpstream is (a) for upstream OCM's registration
// controller (bin/ocm-registration), with its default client limits and
// with them lifted: its figures from an earlier machine (about 16 s for 100
// clusters at its default client limits and about 40 s for 1000 with them
// lifted), measured on this machine.
//
//	make ocm-tools
//	go test ./test/benchmark/registration -run x -bench AcceptUpstream -benchtime 1x
func BenchmarkAcceptUpstream(b *testing.B) {
	// As those figures were taken: 100 clusters at the default limits, 1000
	// with them lifted.
	limits := setup.UpstreamLimits("kube-api")
	for i, clusters := range []int{100, 1000} {
		b.Run(fmt.Sprintf("clusters=%d/limits=%s", clusters, limits[i].Name), func(b *testing.B) {
			b.StopTimer()
			for range b.N {
				benchmarkAccept(b, clusters, func(f *hubFixture, b *testing.B) *hubProcess { return f.startOCM(b, limits[i].Args...) })
			}
		})
	}
}

func benchmarkAccept(b *testing.B, n int, start func(*hubFixture, *testing.B) *hubProcess) {
	ctx := context.Background()
	f := startHub(ctx, b)
	createClusters(ctx, b, f.clusters, n, 60)
	before := measure.APIWrites(ctx, f.kube)

	b.StartTimer()
	begin := time.Now()
	hub := start(f, b)
	defer measure.ProfileProcess(b, hub.Args, fmt.Sprintf("accept-%d", n), 10*time.Second)()
	defer measure.ProfileAPIServer(ctx, b, f.kube, fmt.Sprintf("accept-%d-apiserver", n), 10*time.Second)()
	cpu := measure.NewCPUMeter(map[string]int{"hub": hub.PID(), "kube-apiserver": f.PID("kube-apiserver"), "etcd": f.PID("etcd"),
		"kcm": f.PID("kube-controller-manager"), measure.Benchmark: os.Getpid()})
	waitCtx, cancel := hub.within(ctx, 10*time.Minute)
	defer cancel()
	accepted := map[string]bool{}
	var first time.Duration // until the first cluster is accepted
	var started measure.FirstWrite
	err := watchClusters(waitCtx, f.clusters, func(mc *clusterv1.ManagedCluster) bool {
		if len(mc.Finalizers) > 0 { // the hub's first write to a cluster
			started.Seen()
		}
		accepted[mc.Name] = meta.IsStatusConditionTrue(mc.Status.Conditions, clusterv1.ManagedClusterConditionHubAccepted)
		if first == 0 && accepted[mc.Name] {
			first = time.Since(begin)
		}
		return countTrue(accepted) == n
	})
	// HubAccepted is written last, but the footprint is checked all the same.
	for err == nil && !footprintComplete(waitCtx, f.kube, n) {
		err = waitCtx.Err()
		time.Sleep(100 * time.Millisecond) // a benchmark's sampling interval, not a test's synchronisation
	}
	if err != nil {
		b.Fatalf("not all %d clusters were accepted (log: %s): %v", n, hub.Log, context.Cause(waitCtx))
	}
	elapsed := time.Since(begin)
	b.StopTimer()
	used := cpu.Used()
	acceptRuns[b.Name()] = acceptRun{Run: measure.Run{Elapsed: elapsed, CPU: used, Start: started.Since(begin)}, n: n}
	peak := procstat.KiB(hub.PID(), "VmHWM")
	writes, total := measure.Since(before, measure.APIWrites(ctx, f.kube))
	b.ReportMetric(elapsed.Seconds(), "s/accept-all")
	b.ReportMetric(float64(peak)/1024, "MB-peak-rss")
	b.ReportMetric(float64(used["hub"].Milliseconds())/float64(n), "hub-cpu-ms/cluster")
	b.ReportMetric(float64(used["kube-apiserver"].Milliseconds())/float64(n), "apiserver-cpu-ms/cluster")
	b.Logf("%d clusters accepted in %.2fs (the hub's first write after %.2fs, the first cluster accepted after %.2fs); hub peak RSS %d MB; load %s",
		n, elapsed.Seconds(), started.Since(begin).Seconds(), first.Seconds(), peak/1024, measure.Load())
	b.Logf("CPU: %s", measure.FormatPercent(cpu.Percent()))
	b.Logf("API server writes %d (%.1f/cluster, every client): %s", total, float64(total)/float64(n), measure.FormatCounts(writes))
	if hub.metrics == "" {
		return
	}
	hubWrites := hub.writes()
	b.ReportMetric(float64(hubWrites)/float64(n), "hub-writes/cluster")
	b.Logf("hub requests: %s; reconciles: %s", measure.FormatCounts(hub.requests()), measure.FormatCounts(hub.reconciles()))
	b.Logf("hub writes %d (%.1f/cluster)", hubWrites, float64(hubWrites)/float64(n))
}

// createClusters creates n accepted clusters c0000… with the given lease
// duration.
func createClusters(ctx context.Context, b *testing.B, clusters clusterclient.Interface, n int, leaseSeconds int32) {
	err := measure.Parallel(16, n, func(i int) error {
		mc := &clusterv1.ManagedCluster{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("c%04d", i)},
			Spec:       clusterv1.ManagedClusterSpec{HubAcceptsClient: true, LeaseDurationSeconds: leaseSeconds},
		}
		_, err := clusters.ClusterV1().ManagedClusters().Create(ctx, mc, metav1.CreateOptions{})
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
}

// footprintComplete: every cluster has its namespace and its RBAC. Lists
// come from the API server's watch cache (resourceVersion 0).
func footprintComplete(ctx context.Context, kube kubernetes.Interface, n int) bool {
	selector := metav1.ListOptions{LabelSelector: clusterv1.ClusterNameLabelKey, ResourceVersion: "0"}
	namespaces, err := kube.CoreV1().Namespaces().List(ctx, selector)
	if err != nil || countActive(namespaces.Items) < n {
		return false
	}
	crbs, err := kube.RbacV1().ClusterRoleBindings().List(ctx, selector)
	if err != nil || len(crbs.Items) < n {
		return false
	}
	rbs, err := kube.RbacV1().RoleBindings("").List(ctx, selector)
	if err != nil {
		return false
	}
	clusters := 0 // the RoleBinding of each cluster's own, not its addons'
	for _, rb := range rbs.Items {
		if strings.HasPrefix(rb.Name, "open-cluster-management:managedcluster:") {
			clusters++
		}
	}
	return clusters >= n && countRoles(ctx, kube) >= n
}

func countActive(ns []corev1.Namespace) int {
	c := 0
	for _, n := range ns {
		if n.Status.Phase == corev1.NamespaceActive {
			c++
		}
	}
	return c
}

func countRoles(ctx context.Context, kube kubernetes.Interface) int {
	roles, err := kube.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{LabelSelector: clusterv1.ClusterNameLabelKey, ResourceVersion: "0"})
	if err != nil {
		return 0
	}
	return len(roles.Items)
}
