package simulate

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/corral-dev/corral/internal/procstat"
)

// Process is what the simulator measured of one of the hub's processes
// on its machine (Options.HubPIDs).
type Process struct {
	PID  int    `json:"pid"`
	Name string `json:"name"`
	// JoinCPUSeconds is the CPU time it used while the clusters joined;
	// HeartbeatCPUPercent its CPU use, in percent of one core, while
	// they only heartbeat, over Options.Duration but for its first lease
	// period (or half, when shorter): what the hub spends when nothing
	// changes.
	JoinCPUSeconds      float64 `json:"joinCPUSeconds"`
	HeartbeatCPUPercent float64 `json:"heartbeatCPUPercent"`
	// RSS: before the joins, and the most it held at any sample (every
	// second) from then on, in MB; RSSPerClusterKB is the growth from one
	// to the other per cluster joined.
	StartRSSMB      float64 `json:"startRSSMB"`
	PeakRSSMB       float64 `json:"peakRSSMB"`
	RSSPerClusterKB float64 `json:"rssPerClusterKB"`
}

// checkPIDs says in one line which of pids is not a process here.
func checkPIDs(pids []int) error {
	for _, pid := range pids {
		if procstat.Name(pid) == "" {
			return fmt.Errorf("--hub-pid %d: no such process on this machine; give the pid of a hub process running here (the API server, etcd, corral's hub), or leave it out", pid)
		}
	}
	return nil
}

// meter follows the hub's processes and the simulator's own heap through
// a run's phases: mark before the joins, once joined, once the
// heartbeats are steady, and at the end of Duration.
type meter struct {
	pids []int

	mu      sync.Mutex
	peakKiB map[int]int
	cpu     [4]map[int]time.Duration // at each mark
	at      [4]time.Time
	marks   int

	startKiB  map[int]int
	heapStart uint64
}

func newMeter(pids []int) *meter {
	return &meter{pids: pids, peakKiB: map[int]int{}, startKiB: map[int]int{}}
}

// sample records each process's RSS every second until ctx ends.
func (m *meter) sample(ctx context.Context) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		m.mu.Lock()
		for _, pid := range m.pids {
			m.peakKiB[pid] = max(m.peakKiB[pid], procstat.KiB(pid, "VmRSS"))
		}
		m.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// mark records the processes' CPU time now: the first mark is before
// the joins (and also notes their RSS and the simulator's heap), the
// second once joined, the third once heartbeats are steady, the fourth
// at the end of Duration.
func (m *meter) mark() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.marks == len(m.cpu) {
		return
	}
	cpu := map[int]time.Duration{}
	for _, pid := range m.pids {
		cpu[pid] = procstat.CPUTime(pid)
		if m.marks == 0 {
			m.startKiB[pid] = procstat.KiB(pid, "VmRSS")
			m.peakKiB[pid] = m.startKiB[pid]
		}
	}
	if m.marks == 0 {
		m.heapStart = liveHeap()
	}
	m.cpu[m.marks], m.at[m.marks] = cpu, time.Now()
	m.marks++
}

// liveHeap is the simulator's live heap, after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// joined sets what the joins cost the simulator, per cluster, on r.
func (m *meter) joined(r *Report) {
	if r.Joined > 0 {
		r.BytesPerCluster = (float64(liveHeap()) - float64(m.heapStart)) / float64(r.Joined)
	}
}

// report sets each process's figures on r.
func (m *meter) report(r *Report) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, pid := range m.pids {
		p := Process{PID: pid, Name: procstat.Name(pid), StartRSSMB: float64(m.startKiB[pid]) / 1024, PeakRSSMB: float64(m.peakKiB[pid]) / 1024}
		if m.marks >= 2 {
			p.JoinCPUSeconds = (m.cpu[1][pid] - m.cpu[0][pid]).Seconds()
		}
		if m.marks == 4 && m.at[3].After(m.at[2]) {
			p.HeartbeatCPUPercent = 100 * float64(m.cpu[3][pid]-m.cpu[2][pid]) / float64(m.at[3].Sub(m.at[2]))
		}
		if r.Joined > 0 {
			p.RSSPerClusterKB = float64(m.peakKiB[pid]-m.startKiB[pid]) / float64(r.Joined)
		}
		r.Processes = append(r.Processes, p)
	}
}
