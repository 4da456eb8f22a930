package fleet

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestReportHealthy(t *testing.T) {
	cases := map[string]struct {
		report Report
		want   bool
	}{
		"supervisor not running": {
			report: Report{Running: false, Clusters: []ClusterStatus{{Health: Healthy}}},
		},
		"one cluster unhealthy": {
			report: Report{Running: true, Clusters: []ClusterStatus{{Health: Healthy}, {Health: Unhealthy}}},
		},
		"one cluster stopped": {
			report: Report{Running: true, Clusters: []ClusterStatus{{Health: Stopped}, {Health: Healthy}}},
		},
		"all healthy": {
			report: Report{Running: true, Clusters: []ClusterStatus{{Health: Healthy}, {Health: Healthy}}},
			want:   true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := tc.report.Healthy(); got != tc.want {
				t.Errorf("Healthy() = %t, want %t", got, tc.want)
			}
		})
	}
}

func TestReportAbandoned(t *testing.T) {
	cases := map[string]struct {
		report Report
		want   bool
	}{
		"running":                        {report: Report{Running: true, Phase: PhaseRunning}},
		"supervisor gone while running":  {report: Report{Phase: PhaseRunning}, want: true},
		"supervisor gone while starting": {report: Report{Phase: PhaseStarting}, want: true},
		"supervisor gone while stopping": {report: Report{Phase: PhaseStopping}, want: true},
		"stopped":                        {report: Report{Phase: PhaseStopped}},
		"failed":                         {report: Report{Phase: PhaseFailed}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := tc.report.Abandoned(); got != tc.want {
				t.Errorf("Abandoned() = %t, want %t", got, tc.want)
			}
		})
	}
}

func TestProcessAlive(t *testing.T) {
	binDir := filepath.Dir(os.Args[0])
	cases := map[string]struct {
		pid  func(t *testing.T) int
		dir  string
		want bool
	}{
		"this process, the directory of its binary": {pid: self, dir: binDir, want: true},
		"this process, a sibling sharing a prefix":  {pid: self, dir: binDir[:len(binDir)-1]},
		"this process, an unrelated dir":            {pid: self, dir: "/nonexistent/fleet/hub"},
		"this process, no dir matches nothing":      {pid: self, dir: ""},
		"pid 0":                                     {pid: func(*testing.T) int { return 0 }, dir: binDir},
		"negative pid":                              {pid: func(*testing.T) int { return -1 }, dir: binDir},
		"no such pid":                               {pid: beyondPidMax, dir: binDir},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			pid := tc.pid(t)
			if got := ProcessAlive(pid, tc.dir); got != tc.want {
				t.Errorf("ProcessAlive(%d, %q) = %t, want %t", pid, tc.dir, got, tc.want)
			}
		})
	}
}

func self(*testing.T) int { return os.Getpid() }

// beyondPidMax returns a pid the kernel never hands out.
func beyondPidMax(t *testing.T) int {
	b, err := os.ReadFile("/proc/sys/kernel/pid_max")
	if err != nil {
		t.Skipf("no pid_max: %v", err)
	}
	pidMax, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pidMax + 1
}
