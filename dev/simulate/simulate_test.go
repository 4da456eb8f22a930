package simulate

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
)

func TestValidate(t *testing.T) {
	valid := Options{Clusters: 10, Prefix: DefaultPrefix, LeasePeriod: DefaultLeasePeriod, Parallel: DefaultParallel}
	cases := map[string]struct {
		change func(*Options)
		want   string // in the error; "" for none
	}{
		"the defaults":              {change: func(*Options) {}},
		"no clusters":               {change: func(o *Options) { o.Clusters = 0 }, want: "--clusters is 0"},
		"a hub pid not here":        {change: func(o *Options) { o.HubPIDs = []int{1 << 30} }, want: "--hub-pid 1073741824: no such process"},
		"too many clusters":         {change: func(o *Options) { o.Clusters = 100000 }, want: "1 to 99999"},
		"a lease period in ms":      {change: func(o *Options) { o.LeasePeriod = 1500 * time.Millisecond }, want: "whole seconds"},
		"no lease period":           {change: func(o *Options) { o.LeasePeriod = 0 }, want: "--lease-period"},
		"a negative duration":       {change: func(o *Options) { o.Duration = -time.Second }, want: "--duration"},
		"no joins at once":          {change: func(o *Options) { o.Parallel = 0 }, want: "--parallel"},
		"an upper-case prefix":      {change: func(o *Options) { o.Prefix = "Sim-" }, want: "--prefix"},
		"a prefix starting with 1":  {change: func(o *Options) { o.Prefix = "1sim" }, want: "--prefix"},
		"an empty prefix":           {change: func(o *Options) { o.Prefix = "" }, want: "--prefix"},
		"a prefix too long":         {change: func(o *Options) { o.Prefix = "s" + strings.Repeat("x", 58) }, want: "--prefix"},
		"a prefix of 58 characters": {change: func(o *Options) { o.Prefix = "s" + strings.Repeat("x", 57) }},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			o := valid
			c.change(&o)
			err := o.Validate()
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("Validate() = %v, want none", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("Validate() = %v, want an error saying %q", err, c.want)
			}
		})
	}
}

func TestPercentiles(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- { // unsorted on purpose
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	got := percentiles(ds)
	want := Percentiles{P50: 0.050, P99: 0.099, Max: 0.100}
	if got != want {
		t.Fatalf("percentiles(1..100 ms) = %+v, want %+v", got, want)
	}
	if (percentiles(nil) != Percentiles{}) {
		t.Fatalf("percentiles(nil) = %+v, want zeros", percentiles(nil))
	}
}

func TestAvailabilityCountsOnlyHeartbeatingClustersGoingUnknown(t *testing.T) {
	cluster := func(name string, available metav1.ConditionStatus) *clusterv1.ManagedCluster {
		mc := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
		mc.Status.Conditions = []metav1.Condition{{Type: clusterv1.ManagedClusterConditionAvailable, Status: available}}
		return mc
	}
	a := newAvailability()
	a.see(cluster("joining", metav1.ConditionTrue))
	a.see(cluster("joining", metav1.ConditionUnknown)) // before it heartbeats: not counted
	a.see(cluster("beating", metav1.ConditionTrue))
	a.watch("beating")
	a.watch("joining")
	a.see(cluster("beating", metav1.ConditionUnknown)) // counted
	a.see(cluster("beating", metav1.ConditionUnknown)) // the same episode: not again
	a.see(cluster("joining", metav1.ConditionFalse))   // was not live: not a transition
	a.see(cluster("beating", metav1.ConditionTrue))
	a.see(cluster("beating", metav1.ConditionFalse)) // a second episode
	if got := a.falseUnknown(); got != 2 {
		t.Fatalf("falseUnknown() = %d, want 2", got)
	}
}

// TestHeartbeatsRenewEachClusterEveryPeriodFromItsJoin: clusters
// joining at different times renew a period after their join and every
// period after, in the order they come due, never before their time;
// a cluster the outage stopped is skipped.
func TestHeartbeatsRenewEachClusterEveryPeriodFromItsJoin(t *testing.T) {
	const period = 60 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type renewal struct {
		cluster string
		at      time.Time
	}
	var (
		mu       sync.Mutex
		renewals []renewal
		joined   = map[string]time.Time{}
	)
	// One worker: renewals are recorded in the order they are handed out.
	h := newHeartbeats(Options{LeasePeriod: period, Parallel: 1}, func(c string) bool { return c == "stopped" })
	h.renew = func(_ context.Context, c *Cluster) error {
		mu.Lock()
		defer mu.Unlock()
		renewals = append(renewals, renewal{c.Name, time.Now()})
		if len(renewals) == 6 {
			cancel()
		}
		return nil
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.run(ctx)
	}()
	for _, name := range []string{"first", "stopped", "second"} {
		mu.Lock()
		joined[name] = time.Now()
		mu.Unlock()
		h.add(&Cluster{Name: name})
		time.Sleep(period / 3) // joins spread over the period: the schedule, not synchronisation
	}
	<-done
	mu.Lock()
	defer mu.Unlock()
	counts := map[string]int{}
	for i, r := range renewals {
		counts[r.cluster]++
		earliest := joined[r.cluster].Add(time.Duration(counts[r.cluster]) * period)
		if r.at.Before(earliest) {
			t.Errorf("renewal %d of %s came %s early", counts[r.cluster], r.cluster, earliest.Sub(r.at))
		}
		if i > 0 && r.cluster == renewals[i-1].cluster {
			t.Errorf("%s renewed twice in a row: the other cluster's renewal was due between", r.cluster)
		}
	}
	if counts["stopped"] != 0 || counts["first"] < 2 || counts["second"] < 2 {
		t.Errorf("renewals per cluster %v, want the first and second 3 each (or 2 and 4) and none of the stopped", counts)
	}
	// The sixth ended the run, so it is not counted: a renewal cut short
	// by the end is no renewal refused.
	if len(h.late) != 5 || h.failed != 0 {
		t.Errorf("%d renewals recorded, %d failed; want 5 and 0", len(h.late), h.failed)
	}
}

func TestDescribeVariesCapacityByCluster(t *testing.T) {
	cpus := map[string]bool{}
	for i := range 40 {
		mc := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("sim-%05d", i)}}
		describe(mc)
		capacity, allocatable := mc.Status.Capacity[clusterv1.ResourceCPU], mc.Status.Allocatable[clusterv1.ResourceCPU]
		if allocatable.Cmp(capacity) >= 0 || allocatable.Sign() <= 0 {
			t.Errorf("%s: allocatable CPU %s, capacity %s: want less, and more than none", mc.Name, allocatable.String(), capacity.String())
		}
		if mem := mc.Status.Capacity[clusterv1.ResourceMemory]; mem.Value() != capacity.Value()*4<<30 {
			t.Errorf("%s: %s memory for %s CPUs, want 4Gi each", mc.Name, mem.String(), capacity.String())
		}
		cpus[capacity.String()] = true
	}
	if len(cpus) < 3 {
		t.Errorf("40 clusters have only %d sizes of CPU capacity: %v", len(cpus), cpus)
	}
}
