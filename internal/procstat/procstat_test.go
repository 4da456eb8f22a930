package procstat

import (
	"os"
	"testing"
	"time"
)

func TestOwnProcess(t *testing.T) {
	pid := os.Getpid()
	if rss := KiB(pid, "VmRSS"); rss <= 0 {
		t.Errorf("VmRSS of this test is %d KiB, want more than 0", rss)
	}
	// Burn some CPU so that at least one clock tick is counted.
	for start := CPUTime(pid); CPUTime(pid) == start; {
		for i := 0; i < 1e6; i++ {
			_ = time.Now()
		}
	}
	if Name(pid) == "" {
		t.Error("this test's process has no name")
	}
}

func TestGoneProcess(t *testing.T) {
	// Pids wrap well below this on Linux (pid_max is at most 2^22).
	const gone = 1 << 30
	if KiB(gone, "VmRSS") != 0 || CPUTime(gone) != 0 || Name(gone) != "" {
		t.Error("a process that is not there has figures")
	}
}
