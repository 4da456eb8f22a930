package registration_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	registrationhub "github.com/corral-dev/corral/registration/hub"
	"github.com/corral-dev/corral/registration/hub/lease"
	"github.com/corral-dev/corral/registration/hub/managedcluster"
	"github.com/corral-dev/corral/test/benchmark/measure"
)

// BenchmarkAcceptFloor is what BenchmarkAccept (a) cannot beat on this
// machine: the same 1000 clusters, but instead of the hub a bare client
// makes the eight writes the registration core makes per accepted
// cluster (the finalizer; the namespace, ClusterRole, ClusterRoleBinding
// and two RoleBindings; the HubAcceptedManagedCluster condition, patched;
// the lease), reading and deciding nothing, sending Kubernetes' own kinds
// as protobuf as the hub does, on a fresh hub at each writer count of the
// sweep (1, 4, 8, 16, 32 and 64, or $FLOOR_WORKERS), and then holding
// the registration core's watches (watchLikeTheHub): measure.SweepFloors.
// Its time is the API server's (and etcd's) own cost of those writes; the
// API server's cost per write falls as more are in flight, so the fastest
// is the floor, the true floor, logged with its count and with each hub
// of this run's BenchmarkAccept for 1000 clusters as a multiple of it;
// the watching floor likewise.
func BenchmarkAcceptFloor(b *testing.B) {
	const n = 1000
	measure.SweepFloors(b, func(b *testing.B, workers int, watching bool) measure.Run {
		b.StopTimer()
		return benchmarkAcceptFloor(b, n, workers, watching)
	}, func(b *testing.B, floor string, f, trueFloor measure.Floor) {
		for _, name := range slices.Sorted(maps.Keys(acceptRuns)) {
			if a := acceptRuns[name]; a.n == n {
				b.Logf("%s: %s", name, measure.Versus("hub", a.Run, floor, f.Run, f.Workers, n, "cluster"))
				if floor == measure.WatchingFloor {
					b.Logf("%s: %s", name, measure.StartBound("hub", a.Run, trueFloor, f))
				}
			}
		}
	})
}

// watchLikeTheHub holds, until b ends, the watches of the registration
// core's run that see events while clusters are accepted
// (measure.HoldWatches): two of the ManagedClusters (the hub's and the
// benchmark's), and, with the hub cache's label selector, the namespaces,
// Leases, ClusterRoles, ClusterRoleBindings and RoleBindings it makes,
// Kubernetes' own kinds as protobuf as the hub's cache has them.
func (f *hubFixture) watchLikeTheHub(ctx context.Context, b *testing.B) {
	cfg := rest.CopyConfig(f.Admin)
	cfg.ContentType = runtime.ContentTypeProtobuf
	kube := kubernetes.NewForConfigOrDie(cfg)
	clusters := f.clusters.ClusterV1().ManagedClusters()
	owned := func(w measure.Watcher) measure.Watcher {
		w.Selector = clusterv1.ClusterNameLabelKey
		return w
	}
	namespaces, leases := kube.CoreV1().Namespaces(), kube.CoordinationV1().Leases("")
	roles, bindings, roleBindings := kube.RbacV1().ClusterRoles(), kube.RbacV1().ClusterRoleBindings(), kube.RbacV1().RoleBindings("")
	measure.HoldWatches(ctx, b,
		measure.ListWatch(clusters.List, clusters.Watch), measure.ListWatch(clusters.List, clusters.Watch),
		owned(measure.ListWatch(namespaces.List, namespaces.Watch)), owned(measure.ListWatch(leases.List, leases.Watch)),
		owned(measure.ListWatch(roles.List, roles.Watch)), owned(measure.ListWatch(bindings.List, bindings.Watch)),
		owned(measure.ListWatch(roleBindings.List, roleBindings.Watch)))
}

// benchmarkAcceptFloor makes the hub's writes for n accepted clusters
// with workers writers, and says how long they took and the CPU every
// process used meanwhile; watching, while holding the hub's watches.
func benchmarkAcceptFloor(b *testing.B, n, workers int, watching bool) measure.Run {
	ctx := context.Background()
	f := startHub(ctx, b)
	createClusters(ctx, b, f.clusters, n, 60)
	if watching {
		f.watchLikeTheHub(ctx, b)
	}
	profile := fmt.Sprintf("accept-floor-%d-%d", n, workers)
	if watching {
		profile += "-watching"
	}
	defer measure.ProfileAPIServer(ctx, b, f.kube, profile+"-apiserver", 10*time.Second)()
	before := measure.APIWrites(ctx, f.kube)
	scheme, err := registrationhub.Scheme()
	if err != nil {
		b.Fatal(err)
	}
	objects, err := client.New(f.Admin, client.Options{Scheme: scheme})
	if err != nil {
		b.Fatal(err)
	}
	cpu := measure.NewCPUMeter(map[string]int{"kube-apiserver": f.PID("kube-apiserver"), "etcd": f.PID("etcd"),
		"kcm": f.PID("kube-controller-manager"), measure.Benchmark: os.Getpid()})

	b.StartTimer()
	begin := time.Now()
	err = measure.Parallel(workers, n, func(i int) error {
		return f.writeLikeTheHub(ctx, objects, fmt.Sprintf("c%04d", i))
	})
	if err != nil {
		b.Fatal(err)
	}
	elapsed := time.Since(begin)
	b.StopTimer()
	used := cpu.Used()
	writes, total := measure.Since(before, measure.APIWrites(ctx, f.kube))
	b.ReportMetric(elapsed.Seconds(), "s/all-written")
	b.Logf("the writes of %d accepted clusters made in %.2fs by a bare client at %d writers; load %s", n, elapsed.Seconds(), workers, measure.Load())
	b.Logf("CPU: %s", measure.FormatSeconds(used))
	b.Logf("API server writes %d (%.1f/cluster, every client): %s", total, float64(total)/float64(n), measure.FormatCounts(writes))
	return measure.Run{Elapsed: elapsed, CPU: used}
}

// writeLikeTheHub makes the writes the registration core makes to accept
// cluster, with the same objects, built by managedcluster: the namespace
// and RBAC created through objects, the condition patched, the lease.
func (f *hubFixture) writeLikeTheHub(ctx context.Context, objects client.Client, cluster string) error {
	clusters := f.clusters.ClusterV1().ManagedClusters()
	finalizer, _ := json.Marshal(map[string]any{"metadata": map[string]any{"finalizers": []string{clusterv1.ManagedClusterFinalizer}}})
	mc, err := clusters.Patch(ctx, cluster, types.MergePatchType, finalizer, metav1.PatchOptions{})
	if err != nil {
		return err
	}
	for _, ac := range append([]runtime.ApplyConfiguration{managedcluster.Namespace(cluster)}, managedcluster.RBAC(cluster)...) {
		// Typed, so that the client sends Kubernetes' own kinds as
		// protobuf, as the hub's client does.
		obj, err := managedcluster.Object(objects.Scheme(), ac)
		if err != nil {
			return err
		}
		if err := objects.Create(ctx, obj, client.FieldOwner(managedcluster.FieldOwner)); err != nil {
			return err
		}
	}
	accepted := managedcluster.AcceptedCondition(mc)
	accepted.LastTransitionTime = metav1.Now()
	patch, err := managedcluster.ConditionsPatch(mc, []metav1.Condition{*accepted})
	if err != nil {
		return err
	}
	if err := objects.Status().Patch(ctx, mc, patch); err != nil {
		return err
	}
	return objects.Create(ctx, lease.New(cluster, time.Now()))
}
