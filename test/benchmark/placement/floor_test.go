package placement_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	placementhub "github.com/corral-dev/corral/placement/hub"
	"github.com/corral-dev/corral/placement/hub/scheduler"
	"github.com/corral-dev/corral/test/benchmark/measure"
)

// floors are the true floors by placement count: what BenchmarkSchedule
// and BenchmarkScheduleUpstream, run after BenchmarkScheduleFloor,
// compare with; watchingFloors the floors holding the scheduler's
// watches.
var floors, watchingFloors = map[int]measure.Floor{}, map[int]measure.Floor{}

// BenchmarkScheduleFloor is what BenchmarkSchedule cannot beat on this
// machine: the same workload, watched the same way, but instead of the
// scheduler a bare client makes the three writes the scheduler makes per
// placement (its PlacementDecision, the decision's status with 10
// clusters, the placement's status), choosing nothing and reading nothing
// but one list of the placements, on a fresh hub at each writer count of
// the sweep (1, 4, 8, 16, 32 and 64, or $FLOOR_WORKERS), and then holding
// the scheduler's watches of what changes while it schedules (its
// Placements and PlacementDecisions, beside the benchmark's own):
// measure.SweepFloors. Its time is the API server's (and etcd's) own cost
// of those writes; the API server's cost per write falls as more are in
// flight, so the fastest is the floor, the true floor, logged with its
// count; the watching floor as a multiple of it.
func BenchmarkScheduleFloor(b *testing.B) {
	byPlacements(b, func(b *testing.B, n int) {
		floors[n], watchingFloors[n] = measure.SweepFloors(b, func(b *testing.B, workers int, watching bool) measure.Run {
			b.StopTimer()
			return benchmarkFloor(b, n, workers, watching)
		}, nil)
	})
}

// benchmarkFloor makes the scheduler's writes for n placements with
// workers writers, and says how long until the watch saw them all and
// the CPU every process used meanwhile; watching, while holding the
// scheduler's watches.
func benchmarkFloor(b *testing.B, n, workers int, watching bool) measure.Run {
	ctx := context.Background()
	f, watch := prepare(ctx, b, n)
	if watching {
		placements, decisions := f.clusters.ClusterV1beta1().Placements(namespace), f.clusters.ClusterV1beta1().PlacementDecisions(namespace)
		measure.HoldWatches(ctx, b, measure.ListWatch(placements.List, placements.Watch), measure.ListWatch(decisions.List, decisions.Watch))
	}

	before := measure.APIWrites(ctx, f.kube)
	cpu := measure.NewCPUMeter(map[string]int{"kube-apiserver": f.PID("kube-apiserver"), "etcd": f.PID("etcd"), measure.Benchmark: os.Getpid()})
	b.StartTimer()
	begin := time.Now()
	list, err := f.clusters.ClusterV1beta1().Placements(namespace).List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	must(b, err)
	must(b, measure.Parallel(workers, len(list.Items), func(i int) error {
		return f.writeLikeTheScheduler(ctx, &list.Items[i], i)
	}))
	written := time.Since(begin)
	if err := watch.until(ctx, 10*time.Minute, func(v *view) bool { return v.done() == n }); err != nil {
		b.Fatalf("the watch did not see every placement done in 10 minutes (%d done): %v", watch.snapshot().done(), err)
	}
	elapsed := time.Since(begin)
	b.StopTimer()
	used := cpu.Used()
	b.ReportMetric(elapsed.Seconds(), "s/all-written")
	b.Logf("the writes of %d placements made in %.2fs by a bare client at %d writers, all seen by the watch after %.2fs; load %s",
		n, written.Seconds(), workers, elapsed.Seconds(), measure.Load())
	b.Logf("API server writes: %s", measure.FormatCounts(writesSince(ctx, f, before)))
	b.Logf("CPU time: %s", measure.FormatSeconds(used))
	return measure.Run{Elapsed: elapsed, CPU: used}
}

// writeLikeTheScheduler writes p's decision of 10 clusters and its
// status as the scheduler does: the page, its labels and the conditions
// come from the scheduler's own Result.
func (f *fixture) writeLikeTheScheduler(ctx context.Context, p *clusterv1beta1.Placement, i int) error {
	chosen := make([]scheduler.Decision, wanted)
	for j := range chosen {
		chosen[j] = scheduler.Decision{Cluster: fmt.Sprintf("c%04d", (i*wanted+j)%clusters), Score: int64(j)}
	}
	result := scheduler.Result{BoundSets: []string{namespace}, EligibleSets: []string{namespace}, Candidates: clusters, Feasible: clusters,
		Wanted: wanted, Selected: chosen, Groups: []scheduler.Group{{Clusters: chosen}}}
	page := result.Pages(p.Name)[0]
	decisions := f.clusters.ClusterV1beta1().PlacementDecisions(namespace)
	created, err := decisions.Create(ctx, &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{
		Namespace: namespace, Name: page.Name, Labels: page.Labels(p.Name),
		OwnerReferences: []metav1.OwnerReference{placementhub.OwnerRef(p)},
	}}, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	created.Status.Decisions = page.Decisions
	if _, err := decisions.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		return err
	}
	now := metav1.Now()
	status := clusterv1beta1.PlacementStatus{
		NumberOfSelectedClusters: wanted,
		DecisionGroups:           []clusterv1beta1.DecisionGroupStatus{{Decisions: []string{page.Name}, ClustersCount: wanted}},
		Conditions:               result.Conditions(p.Generation),
		LastScoreUpdateTime:      &now,
	}
	for j := range status.Conditions {
		status.Conditions[j].LastTransitionTime = now
	}
	p = p.DeepCopy()
	p.Status = status
	_, err = f.clusters.ClusterV1beta1().Placements(namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{})
	return err
}
