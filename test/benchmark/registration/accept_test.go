// Package registration_test measures the registration hub (issue 4 (a)):
// N ManagedClusters with hubAcceptsClient: true appear at once; the time
// until every one has its namespace, its RBAC and HubAcceptedManagedCluster,
// and the peak RSS of the `corral hub` process doing it. The hub runs
// without its admission webhooks (--webhook-port=0): they are not what is
// measured, and their default port may be taken.
//
//	make kube-tools build
//	go test ./test/benchmark/registration -run x -bench Accept -benchtime 1x
package registration_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clusterclient "open-cluster-management.io/api/client/cluster/clientset/versioned"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/internal/localcluster"
	registrationcli "github.com/corral-dev/corral/registration/cli"
)

func BenchmarkAccept(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("clusters=%d", n), func(b *testing.B) {
			b.StopTimer()
			for range b.N {
				benchmarkAccept(b, n)
			}
		})
	}
}

func benchmarkAccept(b *testing.B, n int) {
	ctx := context.Background()
	binDir, err := localcluster.FindBinDir()
	if err != nil {
		b.Fatal(err)
	}
	corral := filepath.Join(binDir, "corral")
	if _, err := os.Stat(corral); err != nil {
		b.Fatalf("%s is missing: run make build", corral)
	}
	hub, err := localcluster.Start(ctx, localcluster.Options{Name: "hub", Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = hub.Stop() }()
	if err := registrationcli.InstallHub(ctx, hub.Config, io.Discard); err != nil {
		b.Fatal(err)
	}
	admin := rest.CopyConfig(hub.Config)
	admin.QPS, admin.Burst = 1000, 2000
	clusters := clusterclient.NewForConfigOrDie(admin)
	kube := kubernetes.NewForConfigOrDie(admin)
	createClusters(ctx, b, clusters, n)

	b.StartTimer()
	begin := time.Now()
	cmd := exec.Command(corral, "hub", "--kubeconfig", hub.Kubeconfig, "--leader-elect=false", "--webhook-port=0")
	logPath := filepath.Join(b.TempDir(), "hub.log")
	logFile, _ := os.Create(logPath)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	peak := 0
	for {
		if rss := peakRSS(cmd.Process.Pid); rss > peak {
			peak = rss
		}
		if done(ctx, clusters, kube, n) {
			break
		}
		if time.Since(begin) > 10*time.Minute {
			b.Fatalf("not all %d clusters were accepted in 10 minutes (log: %s)", n, logPath)
		}
		time.Sleep(250 * time.Millisecond) // a benchmark's sampling interval, not a test's synchronisation
	}
	elapsed := time.Since(begin)
	b.StopTimer()
	if rss := peakRSS(cmd.Process.Pid); rss > peak {
		peak = rss
	}
	b.ReportMetric(elapsed.Seconds(), "s/accept-all")
	b.ReportMetric(float64(peak)/1024, "MB-peak-rss")
	b.Logf("%d clusters accepted in %.2fs; corral hub peak RSS %d MB", n, elapsed.Seconds(), peak/1024)
}

func createClusters(ctx context.Context, b *testing.B, clusters clusterclient.Interface, n int) {
	var wg sync.WaitGroup
	work := make(chan int)
	for range 16 {
		wg.Go(func() {
			for i := range work {
				mc := &clusterv1.ManagedCluster{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("c%04d", i)},
					Spec:       clusterv1.ManagedClusterSpec{HubAcceptsClient: true, LeaseDurationSeconds: 60},
				}
				if _, err := clusters.ClusterV1().ManagedClusters().Create(ctx, mc, metav1.CreateOptions{}); err != nil {
					b.Error(err)
				}
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
}

// done: every cluster has its condition, its namespace and its RBAC.
func done(ctx context.Context, clusters clusterclient.Interface, kube kubernetes.Interface, n int) bool {
	// Lists come from the API server's watch cache (resourceVersion 0), so
	// that watching does not compete with the hub for the API server.
	list, err := clusters.ClusterV1().ManagedClusters().List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		return false
	}
	accepted := 0
	for _, mc := range list.Items {
		if meta.IsStatusConditionTrue(mc.Status.Conditions, clusterv1.ManagedClusterConditionHubAccepted) {
			accepted++
		}
	}
	if accepted < n {
		return false
	}
	selector := metav1.ListOptions{LabelSelector: clusterv1.ClusterNameLabelKey, ResourceVersion: "0"}
	namespaces, err := kube.CoreV1().Namespaces().List(ctx, selector)
	if err != nil || countActive(namespaces.Items) < n {
		return false
	}
	crbs, err := kube.RbacV1().ClusterRoleBindings().List(ctx, selector)
	if err != nil || len(crbs.Items) < n {
		return false
	}
	rbs, err := kube.RbacV1().RoleBindings("").List(ctx, selector)
	return err == nil && len(rbs.Items) >= 2*n && countRoles(ctx, kube) >= n
}

func countActive(ns []corev1.Namespace) int {
	c := 0
	for _, n := range ns {
		if n.Status.Phase == corev1.NamespaceActive {
			c++
		}
	}
	return c
}

func countRoles(ctx context.Context, kube kubernetes.Interface) int {
	roles, err := kube.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{LabelSelector: clusterv1.ClusterNameLabelKey, ResourceVersion: "0"})
	if err != nil {
		return 0
	}
	return len(roles.Items)
}

// peakRSS is the process's peak resident set (VmHWM), in KiB.
func peakRSS(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return kb
		}
	}
	return 0
}
