package placement_test

import (
	"testing"

	"github.com/corral-dev/corral/test/benchmark/setup"
)

// BenchmarkScheduleUpstream measures upstream OCM's placement controller
// (v1.2.0, bin/ocm-placement from `make ocm-tools`) on BenchmarkSchedule's
// workload and machine: its figures from an earlier machine (about 59 s
// with its default client limits and about 23 s with them lifted),
// measured here, so that corral's figures and its floor compare with
// upstream's on the same machine.
//
//	make ocm-tools
//	go test ./test/benchmark/placement -run x -bench ScheduleUpstream -benchtime 1x
func BenchmarkScheduleUpstream(b *testing.B) {
	for _, limits := range setup.UpstreamLimits("kube-api") {
		b.Run("limits="+limits.Name, func(b *testing.B) {
			byPlacements(b, scheduleWith(func(f *fixture, b *testing.B) *setup.Process {
				return f.startOCMScheduler(b, limits.Args...)
			}))
		})
	}
}

// startOCMScheduler runs OCM's placement controller as the cluster manager
// runs it, but for leader election (one copy).
func (f *fixture) startOCMScheduler(b *testing.B, extra ...string) *setup.Process {
	b.Helper()
	f.metrics = "" // served over TLS, with authentication
	args := append([]string{"controller", "--kubeconfig=" + f.Kubeconfig, "--disable-leader-election",
		"--listen=" + setup.FreeAddr(b)}, extra...)
	return setup.StartProcess(b, "placement", "hub.log", setup.Binary(b, "ocm-placement", "make ocm-tools"), args...)
}
