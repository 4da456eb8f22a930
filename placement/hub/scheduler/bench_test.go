package scheduler

import (
	"fmt"
	"testing"

	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/corral-dev/corral/internal/testing/builder"
)

// BenchmarkSchedule is one placement of the placement benchmark's
// workload (test/benchmark/placement): 1000 clusters with an
// AddOnPlacementScore, 10 wanted, Exact with AddOn, ResourceAllocatableCPU
// and Balance.
func BenchmarkSchedule(b *testing.B) {
	var clusters []*builder.ClusterBuilder
	for i := range 1000 {
		clusters = append(clusters, cluster(fmt.Sprintf("c%04d", i)).CPU(fmt.Sprint(1+i%7), "8"))
	}
	f := newFleet(clusters...)
	for i := range 1000 {
		f.score(fmt.Sprintf("c%04d", i), "demo", nil, clusterv1alpha1.AddOnPlacementScoreItem{Name: "demo", Value: int32(i % 100)})
	}
	for i := range 300 {
		f.decided(fmt.Sprintf("x%d", i), fmt.Sprintf("c%04d", i*3))
	}
	snap := f.snapshot()
	p := placement().NumberOfClusters(10).ExactPrioritizers().AddOnPrioritizer("demo", "demo", 1).BuiltInPrioritizer(ResourceAllocatableCPU, 1).BuiltInPrioritizer(Balance, 1).Obj()
	b.ReportAllocs()
	for b.Loop() {
		if r := Schedule(p, snap, Options{Now: now}); len(r.Selected) != 10 {
			b.Fatal(len(r.Selected))
		}
	}
}
