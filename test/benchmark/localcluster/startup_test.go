// Package localcluster_test measures how long a local control plane takes
// to be ready: `go test ./test/benchmark/localcluster -bench . -benchtime 5x`.
package localcluster_test

import (
	"context"
	"testing"

	"github.com/corral-dev/corral/dev/localcluster"
)

func benchmarkStartup(b *testing.B, profile localcluster.Profile) {
	for b.Loop() {
		c, err := localcluster.Start(context.Background(), localcluster.Options{
			Name: "bench", Profile: profile, Dir: b.TempDir(),
		})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := c.Stop(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/ready")
}

// BenchmarkHubStartup: etcd, kube-apiserver and the hub's controller-manager
// from nothing (fresh PKI and data) until every component is ready.
func BenchmarkHubStartup(b *testing.B) { benchmarkStartup(b, localcluster.ProfileHub) }

// BenchmarkManagedStartup: the same plus kube-scheduler, kwok and three fake
// nodes until every node is Ready.
func BenchmarkManagedStartup(b *testing.B) { benchmarkStartup(b, localcluster.ProfileManaged) }
