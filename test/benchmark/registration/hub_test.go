package registration_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	clusterclient "open-cluster-management.io/api/client/cluster/clientset/versioned"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/test/benchmark/measure"
	"github.com/corral-dev/corral/test/benchmark/setup"
)

// hubFixture is a hub control plane prepared as `corral init` does, with
// admin clients whose own limits are far above what is measured.
type hubFixture struct {
	*setup.ControlPlane
	kube     kubernetes.Interface
	clusters clusterclient.Interface
	corral   string // the corral binary
}

func startHub(ctx context.Context, b *testing.B) *hubFixture {
	b.Helper()
	hub := setup.StartHub(ctx, b)
	return &hubFixture{
		ControlPlane: hub,
		kube:         kubernetes.NewForConfigOrDie(hub.Admin),
		clusters:     clusterclient.NewForConfigOrDie(hub.Admin),
		corral:       setup.Corral(b),
	}
}

// accepted creates an accepted cluster and waits until the hub has
// accepted it: the hub is up and working.
func (f *hubFixture) accepted(ctx context.Context, name string) error {
	mc := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: clusterv1.ManagedClusterSpec{HubAcceptsClient: true}}
	if _, err := f.clusters.ClusterV1().ManagedClusters().Create(ctx, mc, metav1.CreateOptions{}); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	return watchClusters(ctx, f.clusters, func(mc *clusterv1.ManagedCluster) bool {
		return mc.Name == name && meta.IsStatusConditionTrue(mc.Status.Conditions, clusterv1.ManagedClusterConditionHubAccepted)
	})
}

// hubProcess is a running hub process (`corral hub`, or OCM's
// registration controller) with its metrics endpoint.
type hubProcess struct {
	*setup.Process
	metrics string // http://…/metrics; empty when it has none to scrape
}

// startCorral runs `corral hub` against the fixture's hub with its
// defaults, but for leader election (one copy), a metrics endpoint and no
// admission webhooks: they are not what is measured, and their default
// port may be taken.
func (f *hubFixture) startCorral(b *testing.B, args ...string) *hubProcess {
	b.Helper()
	addr := setup.FreeAddr(b)
	h := &hubProcess{metrics: "http://" + addr + "/metrics"}
	args = append([]string{"hub", "--kubeconfig", f.Kubeconfig, "--leader-elect=false", "--webhook-port=0", "--metrics-bind-address", addr}, args...)
	args = append(args, measure.PprofFlags()...)
	h.Process = setup.StartProcess(b, "hub", "hub.Log", f.corral, args...)
	return h
}

// startOCM runs upstream OCM's registration controller (v1.2.0,
// bin/ocm-registration from `make ocm-tools`) against the fixture's hub,
// as the cluster manager runs it but for leader election (one copy), with
// extra flags (client limits).
func (f *hubFixture) startOCM(b *testing.B, extra ...string) *hubProcess {
	b.Helper()
	args := append([]string{"controller", "--kubeconfig=" + f.Kubeconfig, "--disable-leader-election", "--listen=" + setup.FreeAddr(b)}, extra...)
	// Its metrics are served over TLS, with authentication: none to scrape.
	return &hubProcess{Process: setup.StartProcess(b, "hub", "ocm-registration.log", setup.Binary(b, "ocm-registration", "make ocm-tools"), args...)}
}

// within is ctx for at most d, and only while the hub runs: a hub that
// fails to start (a bad flag, a crash) ends the wait at once, with the
// cause, rather than after d.
func (h *hubProcess) within(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancelTimeout := context.WithTimeoutCause(ctx, d, fmt.Errorf("not done in %s", d))
	ctx, cancel := context.WithCancelCause(ctx)
	go func() {
		select {
		case <-h.Exited():
			cancel(fmt.Errorf("the hub exited (%w)", h.Err()))
		case <-ctx.Done():
		}
	}()
	return ctx, func() { cancel(nil); cancelTimeout() }
}

// requests counts the hub's requests so far by method and response code
// ("PATCH 409"), from the hub's own client metrics.
func (h *hubProcess) requests() map[string]int {
	return measure.Scrape(h.metrics, "rest_client_requests_total", "method", "code")
}

// reconciles counts the hub's reconciles so far by controller.
func (h *hubProcess) reconciles() map[string]int {
	return measure.Scrape(h.metrics, "controller_runtime_reconcile_total", "controller")
}

// writes is how many writes (POST, PUT, PATCH, DELETE) the hub has made
// so far.
func (h *hubProcess) writes() int {
	n := 0
	for k, v := range h.requests() {
		switch method, _, _ := strings.Cut(k, " "); method {
		case "POST", "PUT", "PATCH", "DELETE":
			n += v
		}
	}
	return n
}

// watchClusters calls seen with every ManagedCluster as it is and then as
// it changes, until seen returns true or ctx ends: one watch instead of
// polling lists, so that looking costs the API server little.
func watchClusters(ctx context.Context, clusters clusterclient.Interface, seen func(*clusterv1.ManagedCluster) bool) error {
	for {
		list, err := clusters.ClusterV1().ManagedClusters().List(ctx, metav1.ListOptions{ResourceVersion: "0"})
		if err != nil {
			return err
		}
		for i := range list.Items {
			if seen(&list.Items[i]) {
				return nil
			}
		}
		w, err := clusters.ClusterV1().ManagedClusters().Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
		if err != nil {
			return err
		}
		for ev := range w.ResultChan() {
			if mc, ok := ev.Object.(*clusterv1.ManagedCluster); ok && seen(mc) {
				w.Stop()
				return nil
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

func countTrue(m map[string]bool) int {
	n := 0
	for _, v := range m {
		if v {
			n++
		}
	}
	return n
}
