package work_test

import (
	"testing"

	"github.com/corral-dev/corral/test/benchmark/setup"
)

// BenchmarkApplyWorksUpstream measures upstream OCM's work agent (v1.2.0,
// bin/ocm-work from `make ocm-tools`) on BenchmarkApplyWorks's workload
// and machine: its figures from an earlier machine (about 110 s with its
// default client limits, about 23 s with them lifted), measured here, so
// that corral's figures and its floor compare with upstream's on the same
// machine.
//
//	make ocm-tools
//	go test -run '^$' -bench 'ApplyWorksUpstream' -benchtime 1x ./test/benchmark/work/
func BenchmarkApplyWorksUpstream(b *testing.B) {
	for _, limits := range setup.UpstreamLimits("kube-api", "hub-kube-api") {
		b.Run("limits="+limits.Name, func(b *testing.B) {
			benchmarkApply(b, func(b *testing.B, hub, managed *controlPlane) *setup.Process {
				return startOCMAgent(b, hub, managed, limits.Args...)
			})
		})
	}
}

// startOCMAgent runs OCM's work agent as the klusterlet runs it, with the
// hub admin's kubeconfig as its workload source.
func startOCMAgent(b *testing.B, hub, managed *controlPlane, extra ...string) *setup.Process {
	b.Helper()
	args := append([]string{"agent",
		"--spoke-cluster-name=" + cluster,
		"--hub-kubeconfig=" + hub.Kubeconfig,
		"--workload-source-config=" + hub.Kubeconfig,
		"--kubeconfig=" + managed.Kubeconfig,
		"--hub-kubeconfig-dir=" + b.TempDir(),
		"--disable-leader-election",
		"--listen=" + setup.FreeAddr(b),
	}, extra...)
	return setup.StartProcess(b, "work", "agent.log", setup.Binary(b, "ocm-work", "make ocm-tools"), args...)
}
