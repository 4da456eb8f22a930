// Package procstat reads a process's CPU time and memory from /proc, for
// the benchmarks and for `corral dev simulate --hub-pid`, which measure
// processes they did not start. On a system without /proc every figure
// is 0.
package procstat

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// KiB reads a field of /proc/<pid>/status in KiB (VmHWM, VmRSS); 0 when
// the process or the field is gone.
func KiB(pid int, field string) int {
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

// clockTicks is USER_HZ, 100 on every Linux this runs on.
const clockTicks = 100

// CPUTime is the user plus system CPU time pid has used; 0 when it is
// gone.
func CPUTime(pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command may hold spaces; the fields after its ")" are fixed.
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(utime+stime) * time.Second / clockTicks
}

// Name is the process's command name (its comm); "" when it is gone.
func Name(pid int) string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}
