package registration_test

// Heartbeats: a thousand accepted clusters whose leases are renewed on
// time. Over several lease periods (and more than the grace the hub gives
// a lease) no cluster may be marked Available=Unknown, while a few clusters
// left silent on purpose must be; the hub must write nothing in response
// to renewals of healthy clusters, and its CPU use is measured while
// renewals flow and while nothing happens at all.
//
// The renewals are the agents' lease updates, made by one driver with an
// admin client: the hub sees the same updates whoever makes them.

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	clusterclient "open-cluster-management.io/api/client/cluster/clientset/versioned"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/dev/simulate"
	"github.com/corral-dev/corral/registration/common"
	"github.com/corral-dev/corral/test/benchmark/measure"
)

const (
	leasePeriod  = 10 * time.Second // the clusters' leaseDurationSeconds
	leaseRounds  = 6                // renewal periods: more than the hub's grace (5 periods)
	silentEvery  = 100              // one cluster in silentEvery never renews
	steadyFrom   = 1                // the steady window, in periods after renewals start…
	steadyUntil  = 4                // …ending before the silent clusters' leases expire
	quietPeriods = 1.5              // the window with no renewals at all
)

func BenchmarkLeases(b *testing.B) {
	for _, n := range []int{1000} {
		b.Run(fmt.Sprintf("clusters=%d", n), func(b *testing.B) {
			b.StopTimer()
			for range b.N {
				benchmarkLeases(b, n)
			}
		})
	}
}

func benchmarkLeases(b *testing.B, n int) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	f := startHub(ctx, b)
	createClusters(ctx, b, f.clusters, n, int32(leasePeriod/time.Second))
	hub := f.startCorral(b)
	ctx, stopWaiting := hub.within(ctx, 10*time.Minute) // no wait outlives the hub
	defer stopWaiting()
	if err := waitAccepted(ctx, f.clusters, n); err != nil {
		b.Fatalf("not every cluster was accepted (log: %s): %v", hub.Log, err)
	}
	r := &renewer{kube: f.kube, clusters: f.clusters, leases: make([]*coordinationv1.Lease, n)}
	if err := r.firstBeats(ctx, n); err != nil {
		b.Fatal(err)
	}
	if err := waitSettled(ctx, f.clusters, n); err != nil {
		b.Fatalf("clusters did not settle as available (log: %s): %v", hub.Log, err)
	}

	watching, stopWatching := context.WithCancel(ctx)
	defer stopWatching()
	seen := newUnknownWatch()
	go func() { _ = watchClusters(watching, f.clusters, seen.observe) }()

	// The silent clusters renew once more now, so that their leases expire
	// (grace: 5 periods) after the steady window and before the end.
	for i := range n {
		if silentCluster(i) {
			if err := r.renewOne(ctx, i); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StartTimer()
	renewing, stopRenewing := context.WithCancel(ctx)
	t0 := time.Now()
	done := make(chan struct{})
	go func() { defer close(done); r.renew(renewing, t0) }()

	waitUntil(t0.Add(steadyFrom * leasePeriod))
	defer measure.ProfileProcess(b, hub.Args, "leases-renewing", (steadyUntil-steadyFrom)*leasePeriod)()
	cpu := measure.NewCPUMeter(map[string]int{"hub": hub.PID(), "kube-apiserver": f.PID("kube-apiserver")})
	hubWrites, hubReconciles, apiBefore := hub.writes(), hub.reconciles(), measure.APIWrites(ctx, f.kube)
	waitUntil(t0.Add(steadyUntil * leasePeriod))
	steady := cpu.Percent()
	steadyWrites := hub.writes() - hubWrites
	reconciles, _ := measure.Since(hubReconciles, hub.reconciles())
	apiSteady, _ := measure.Since(apiBefore, measure.APIWrites(ctx, f.kube))

	waitUntil(t0.Add(leaseRounds * leasePeriod))
	stopRenewing()
	<-done
	quiet := measure.NewCPUMeter(map[string]int{"hub": hub.PID()})
	waitUntil(time.Now().Add(time.Duration(quietPeriods * float64(leasePeriod))))
	quietCPU := quiet.Percent()["hub"]
	b.StopTimer()
	stopWatching()

	falseUnknown, silentUnknown, silent := seen.result(n)
	window := (steadyUntil - steadyFrom) * leasePeriod
	b.ReportMetric(float64(falseUnknown), "false-unknown")
	b.ReportMetric(steady["hub"], "hub-cpu%-renewing")
	b.ReportMetric(quietCPU, "hub-cpu%-quiet")
	b.ReportMetric(float64(steadyWrites)/window.Seconds(), "hub-writes/s-renewing")
	b.Logf("%d clusters, lease %s, %d periods: %d renewals (%.0f/s, latest %.2fs late); load %s",
		n, leasePeriod, leaseRounds, r.count, float64(r.count)/(leaseRounds*leasePeriod).Seconds(), r.late.Seconds(), measure.Load())
	b.Logf("false Unknown: %d; silent clusters gone Unknown: %d of %d", falseUnknown, silentUnknown, silent)
	b.Logf("over %s of renewals: hub CPU %.1f%%, kube-apiserver CPU %.1f%%; hub writes %d; hub reconciles %s; API server writes: %s",
		window, steady["hub"], steady["kube-apiserver"], steadyWrites, measure.FormatCounts(reconciles), measure.FormatCounts(apiSteady))
	b.Logf("over %s with no renewals: hub CPU %.2f%%", time.Duration(quietPeriods*float64(leasePeriod)), quietCPU)
	if falseUnknown > 0 {
		b.Errorf("%d clusters renewing on time were marked Available=Unknown", falseUnknown)
	}
	if silentUnknown < silent {
		b.Errorf("only %d of %d silent clusters were marked Available=Unknown (log: %s)", silentUnknown, silent, hub.Log)
	}
	if steadyWrites > 0 {
		b.Errorf("the hub wrote %d times in response to renewals of healthy clusters", steadyWrites)
	}
}

func silentCluster(i int) bool { return i%silentEvery == silentEvery/2 }

func clusterName(i int) string { return fmt.Sprintf("c%04d", i) }

// renewer renews every cluster's lease once a period, spread evenly, as the
// clusters' agents do. A cluster's lease is renewed by one worker at a time
// as long as no renewal is a whole period late (r.late tells).
type renewer struct {
	kube     kubernetes.Interface
	clusters clusterclient.Interface
	leases   []*coordinationv1.Lease // the last one written, by cluster

	mu    sync.Mutex
	count int
	late  time.Duration
}

// firstBeats does each agent's first heartbeat: lease renewed, Joined and
// Available reported.
func (r *renewer) firstBeats(ctx context.Context, n int) error {
	return measure.Parallel(16, n, func(i int) error {
		name := clusterName(i)
		lease, err := r.kube.CoordinationV1().Leases(name).Get(ctx, common.LeaseName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		r.leases[i] = lease
		if err := r.renewOne(ctx, i); err != nil {
			return err
		}
		for {
			mc, err := r.clusters.ClusterV1().ManagedClusters().Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			simulate.SetLive(mc)
			_, err = r.clusters.ClusterV1().ManagedClusters().UpdateStatus(ctx, mc, metav1.UpdateOptions{})
			if !apierrors.IsConflict(err) {
				return err
			}
		}
	})
}

func (r *renewer) renewOne(ctx context.Context, i int) error {
	lease := r.leases[i].DeepCopy()
	lease.Spec.RenewTime = &metav1.MicroTime{Time: time.Now()}
	updated, err := r.kube.CoordinationV1().Leases(lease.Namespace).Update(ctx, lease, metav1.UpdateOptions{})
	if apierrors.IsConflict(err) {
		if lease, err = r.kube.CoordinationV1().Leases(lease.Namespace).Get(ctx, lease.Name, metav1.GetOptions{}); err == nil {
			r.leases[i] = lease
			return r.renewOne(ctx, i)
		}
	}
	if err != nil {
		return err
	}
	r.leases[i] = updated
	return nil
}

// renew renews every lease but the silent clusters' once a period from t0,
// cluster i at i/n of the period, until ctx ends.
func (r *renewer) renew(ctx context.Context, t0 time.Time) {
	n := len(r.leases)
	due := make(chan int)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for slot := range due {
				i := slot % n
				at := t0.Add(time.Duration(slot) * leasePeriod / time.Duration(n))
				if err := r.renewOne(ctx, i); err != nil {
					continue // the context ended
				}
				r.mu.Lock()
				r.count++
				r.late = max(r.late, time.Since(at))
				r.mu.Unlock()
			}
		})
	}
	defer func() { close(due); wg.Wait() }()
	tick := time.NewTicker(10 * time.Millisecond) // the agents' clocks
	defer tick.Stop()
	slot := 0
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			for ; !t0.Add(time.Duration(slot) * leasePeriod / time.Duration(n)).After(now); slot++ {
				if !silentCluster(slot % n) {
					select {
					case due <- slot:
					case <-ctx.Done():
						return
					}
				}
			}
		}
	}
}

// unknownWatch tells clusters going Available=Unknown apart: renewing ones
// (false) and silent ones (expected).
type unknownWatch struct {
	mu      sync.Mutex
	unknown map[string]bool
	falses  int
	silents int
}

func newUnknownWatch() *unknownWatch { return &unknownWatch{unknown: map[string]bool{}} }

func (w *unknownWatch) observe(mc *clusterv1.ManagedCluster) bool {
	cond := meta.FindStatusCondition(mc.Status.Conditions, clusterv1.ManagedClusterConditionAvailable)
	isUnknown := cond != nil && cond.Status == metav1.ConditionUnknown
	w.mu.Lock()
	defer w.mu.Unlock()
	if isUnknown && !w.unknown[mc.Name] {
		var i int
		if _, err := fmt.Sscanf(mc.Name, "c%04d", &i); err == nil && silentCluster(i) {
			w.silents++
		} else {
			w.falses++
		}
	}
	w.unknown[mc.Name] = isUnknown
	return false
}

// result is the renewing clusters marked Unknown, and the silent ones
// marked Unknown out of how many there are.
func (w *unknownWatch) result(n int) (falses, silentUnknown, silent int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := range n {
		if silentCluster(i) {
			silent++
		}
	}
	return w.falses, w.silents, silent
}

// waitAccepted waits until n clusters are accepted.
func waitAccepted(ctx context.Context, clusters clusterclient.Interface, n int) error {
	accepted := map[string]bool{}
	return watchClusters(ctx, clusters, func(mc *clusterv1.ManagedCluster) bool {
		accepted[mc.Name] = meta.IsStatusConditionTrue(mc.Status.Conditions, clusterv1.ManagedClusterConditionHubAccepted)
		return countTrue(accepted) == n
	})
}

// waitSettled waits until n clusters are available and untainted.
func waitSettled(ctx context.Context, clusters clusterclient.Interface, n int) error {
	settled := map[string]bool{}
	return watchClusters(ctx, clusters, func(mc *clusterv1.ManagedCluster) bool {
		settled[mc.Name] = meta.IsStatusConditionTrue(mc.Status.Conditions, clusterv1.ManagedClusterConditionAvailable) && len(mc.Spec.Taints) == 0
		return countTrue(settled) == n
	})
}

// waitUntil blocks until t: the benchmark's windows are wall-clock time.
func waitUntil(t time.Time) { time.Sleep(time.Until(t)) }
