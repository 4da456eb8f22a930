package simulate

import (
	"slices"
	"sync"
	"time"
)

// Report is what a simulation measured.
type Report struct {
	Clusters int `json:"clusters"`
	Joined   int `json:"joined"`
	// JoinSeconds is from the first ManagedCluster created to the last
	// cluster's first heartbeat.
	JoinSeconds    float64 `json:"joinSeconds"`
	JoinsPerSecond float64 `json:"joinsPerSecond"`
	// FirstBeatsRetried are first heartbeats tried again (the hub's RBAC
	// not yet in force, or the hub writing the cluster meanwhile).
	FirstBeatsRetried int64 `json:"firstBeatsRetried"`
	// Accepted and Ready are the hub's reaction times to an acceptance
	// (with Accept): until it set the cluster's HubAcceptedManagedCluster
	// condition, and until the cluster's first heartbeat with its own
	// certificate went through (its namespace, RBAC and lease made).
	Accepted *Percentiles `json:"acceptedSeconds,omitempty"`
	Ready    *Percentiles `json:"readySeconds,omitempty"`
	// Renewals are the lease renewals after the first, and
	// RenewalsFailed those the hub refused or did not answer; Late is how
	// long after its time each renewal was done, in seconds.
	Renewals       int         `json:"renewals"`
	RenewalsFailed int         `json:"renewalsFailed"`
	Late           Percentiles `json:"lateSeconds"`
	// FalseUnknown counts the times the hub made a heartbeating cluster's
	// Available condition other than True.
	FalseUnknown int `json:"falseUnknown"`
	// WorksReported counts the ManifestWork statuses the clusters' work
	// agents reported (each work at each generation).
	WorksReported int64 `json:"worksReported"`
	// Outage is what Options.Unreachable measured.
	Outage *Outage `json:"outage,omitempty"`
	// BytesPerCluster is how much the simulator's heap grew per cluster
	// joined: what holding a simulated cluster costs it.
	BytesPerCluster float64 `json:"simulatorBytesPerCluster"`
	// Processes are the hub's processes measured (Options.HubPIDs).
	Processes []Process `json:"hubProcesses,omitempty"`
	// Kept says the clusters were left on the hub.
	Kept bool `json:"kept"`
}

// Percentiles of a set of durations, in seconds.
type Percentiles struct {
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

func percentiles(ds []time.Duration) Percentiles {
	if len(ds) == 0 {
		return Percentiles{}
	}
	slices.Sort(ds)
	at := func(q float64) float64 { return ds[int(q*float64(len(ds)-1))].Seconds() }
	return Percentiles{P50: at(0.5), P99: at(0.99), Max: ds[len(ds)-1].Seconds()}
}

// reactions collects the hub's reaction times to acceptances.
type reactions struct {
	mu              sync.Mutex
	accepted, ready []time.Duration
}

func (r *reactions) add(accepted, ready time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.accepted, r.ready = append(r.accepted, accepted), append(r.ready, ready)
}

// report sets the reaction times on rep, when any were measured.
func (r *reactions) report(rep *Report) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.ready) > 0 {
		accepted, ready := percentiles(r.accepted), percentiles(r.ready)
		rep.Accepted, rep.Ready = &accepted, &ready
	}
}
