package simulate

import (
	"context"
	"fmt"
	"strings"
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
	a.watchFrom([]*Cluster{{Name: "beating"}, {Name: "joining"}})
	a.see(cluster("beating", metav1.ConditionUnknown)) // counted
	a.see(cluster("beating", metav1.ConditionUnknown)) // the same episode: not again
	a.see(cluster("joining", metav1.ConditionFalse))   // was not live: not a transition
	a.see(cluster("beating", metav1.ConditionTrue))
	a.see(cluster("beating", metav1.ConditionFalse)) // a second episode
	if got := a.falseUnknown(); got != 2 {
		t.Fatalf("falseUnknown() = %d, want 2", got)
	}
}

func TestScheduleSpreadsMembersOverThePeriod(t *testing.T) {
	const n, period = 4, 40 * time.Millisecond
	begin := time.Now()
	type call struct {
		i      int
		at     time.Time
		called time.Time
	}
	var calls []call
	schedule(context.Background(), begin, period, n, func(i int, at time.Time) bool {
		calls = append(calls, call{i, at, time.Now()})
		return len(calls) < 2*n
	})
	if len(calls) != 2*n {
		t.Fatalf("%d calls, want %d", len(calls), 2*n)
	}
	for k, c := range calls {
		round, i := k/n, k%n
		want := begin.Add(time.Duration(round)*period + period*time.Duration(i)/n)
		if c.i != i || !c.at.Equal(want) {
			t.Errorf("call %d: member %d due at +%s, want member %d at +%s", k, c.i, c.at.Sub(begin), i, want.Sub(begin))
		}
		if c.called.Before(c.at) {
			t.Errorf("call %d came %s before its time", k, c.at.Sub(c.called))
		}
	}
}

func TestScheduleStopsWhenTheRunEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	schedule(ctx, time.Now(), time.Hour, 3, func(int, time.Time) bool {
		calls++
		cancel()
		return true
	})
	if calls != 1 {
		t.Errorf("%d calls after the run ended, want 1", calls)
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
