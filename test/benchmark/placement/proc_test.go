package placement_test

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
)

// procStatus reads a field of /proc/<pid>/status in KiB (VmHWM, VmRSS).
func procStatus(pid int, field string) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return kb
		}
	}
	return 0
}

// cpuTime is the user plus system CPU time pid has used (USER_HZ 100).
func cpuTime(pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(utime+stime) * time.Second / 100
}

// cpuMeter measures the CPU time some processes use from its start.
type cpuMeter struct {
	pids  map[string]int
	start map[string]time.Duration
}

func newCPUMeter(pids map[string]int) *cpuMeter {
	m := &cpuMeter{pids: pids, start: map[string]time.Duration{}}
	for name, pid := range pids {
		m.start[name] = cpuTime(pid)
	}
	return m
}

func (m *cpuMeter) used() map[string]time.Duration {
	out := map[string]time.Duration{}
	for name, pid := range m.pids {
		out[name] = cpuTime(pid) - m.start[name]
	}
	return out
}

// load is the machine's 1-minute load average.
func load() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(data))[0]
}

// scrape sums a counter of a process's metrics by the given labels.
func scrape(url, name string, labels ...string) map[string]int {
	out := map[string]int{}
	resp, err := http.Get(url) //nolint:noctx // a loopback scrape
	if err != nil {
		return out
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") {
			continue
		}
		var key []string
		for _, l := range labels {
			_, rest, _ := strings.Cut(line, l+`="`)
			v, _, _ := strings.Cut(rest, `"`)
			key = append(key, v)
		}
		v, _ := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		out[strings.Join(key, " ")] += int(v)
	}
	return out
}

func formatCounts(counts map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%s=%d", k, counts[k]))
	}
	return strings.Join(parts, " ")
}

// apiWrites counts the API server's mutating requests so far by verb and
// resource (and code when not 2xx), from apiserver_request_total.
func apiWrites(ctx context.Context, kube kubernetes.Interface) map[string]int {
	raw, err := kube.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil
	}
	out := map[string]int{}
	for _, line := range strings.Split(string(raw), "\n") {
		if !strings.HasPrefix(line, "apiserver_request_total{") {
			continue
		}
		get := func(l string) string {
			_, rest, _ := strings.Cut(line, l+`="`)
			v, _, _ := strings.Cut(rest, `"`)
			return v
		}
		switch get("verb") {
		case "GET", "LIST", "WATCH", "WATCHLIST", "CONNECT":
			continue
		}
		key := get("verb") + " " + get("resource")
		if sub := get("subresource"); sub != "" {
			key += "/" + sub
		}
		if code := get("code"); !strings.HasPrefix(code, "2") {
			key += "(" + code + ")"
		}
		v, _ := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		out[key] += int(v)
	}
	return out
}

// since is after minus before, leaving out what did not change.
func since(before, after map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range after {
		if d := v - before[k]; d > 0 {
			out[k] = d
		}
	}
	return out
}
