package measure

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/corral-dev/corral/internal/procstat"
)

// PeakRSSMB is the process's peak resident memory so far, in MB.
func PeakRSSMB(pid int) int { return procstat.KiB(pid, "VmHWM") / 1024 }

// CPUMeter measures the CPU of some named processes over an interval.
type CPUMeter struct {
	pids  map[string]int
	start map[string]time.Duration
	begin time.Time
}

// NewCPUMeter starts measuring the processes, by name.
func NewCPUMeter(pids map[string]int) *CPUMeter {
	m := &CPUMeter{pids: pids, start: map[string]time.Duration{}, begin: time.Now()}
	for name, pid := range pids {
		m.start[name] = procstat.CPUTime(pid)
	}
	return m
}

// Used is each process's CPU time since the meter started.
func (m *CPUMeter) Used() map[string]time.Duration {
	out := map[string]time.Duration{}
	for name, pid := range m.pids {
		out[name] = procstat.CPUTime(pid) - m.start[name]
	}
	return out
}

// Percent is each process's CPU use since the meter started, in percent
// of one core.
func (m *CPUMeter) Percent() map[string]float64 {
	wall := time.Since(m.begin)
	out := map[string]float64{}
	for name, used := range m.Used() {
		out[name] = 100 * float64(used) / float64(wall)
	}
	return out
}

// FormatPercent lists CPU shares by process name: "etcd 20%, hub 31%".
func FormatPercent(p map[string]float64) string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(p)) {
		parts = append(parts, fmt.Sprintf("%s %.0f%%", name, p[name]))
	}
	return strings.Join(parts, ", ")
}

// FormatSeconds lists CPU times by process name, and their total:
// "etcd 1.2s, hub 3.0s (total 4.2s)".
func FormatSeconds(used map[string]time.Duration) string {
	var parts []string
	var total time.Duration
	for _, name := range slices.Sorted(maps.Keys(used)) {
		parts = append(parts, fmt.Sprintf("%s %.1fs", name, used[name].Seconds()))
		total += used[name]
	}
	return fmt.Sprintf("%s (total %.1fs)", strings.Join(parts, ", "), total.Seconds())
}

// Load is the machine's 1-minute load average, to read figures by.
func Load() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(data))[0]
}
