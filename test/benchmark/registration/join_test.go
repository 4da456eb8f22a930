package registration_test

// Joins: N agents join one hub at once, each speaking the real
// protocol — ManagedCluster and CSR with the bootstrap token, a hub admin
// approving the request and accepting the cluster as `corral accept` does,
// the signed certificate, then the first heartbeat with the issued
// identity (lease renewed, Joined and Available reported). The hub is the
// `corral hub` binary with its defaults.
//
// The driver waits through two shared watches (certificates, acceptance)
// where a real agent polls, so that N agents' polling does not load the
// API server the hub needs; each agent still makes its own requests.

import (
	"context"
	"crypto/x509/pkix"
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clusterclient "open-cluster-management.io/api/client/cluster/clientset/versioned"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/registration/bootstrap"
	registrationcli "github.com/corral-dev/corral/registration/cli"
	"github.com/corral-dev/corral/registration/clientcsr"
	"github.com/corral-dev/corral/registration/common"
	"github.com/corral-dev/corral/test/benchmark/measure"
)

func BenchmarkJoin(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("agents=%d", n), func(b *testing.B) {
			b.StopTimer()
			for range b.N {
				benchmarkJoin(b, n)
			}
		})
	}
}

func benchmarkJoin(b *testing.B, n int) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	f := startHub(ctx, b)
	hub := f.startCorral(b)
	ctx, stopWaiting := hub.within(ctx, 10*time.Minute) // no wait outlives the hub
	defer stopWaiting()
	if err := f.accepted(ctx, "probe"); err != nil {
		b.Fatalf("corral hub did not accept a first cluster (log: %s): %v", hub.Log, err)
	}
	baseline := measure.ProcStatus(hub.PID(), "VmRSS")
	token, err := bootstrap.Token(ctx, f.kube, 3600)
	if err != nil {
		b.Fatal(err)
	}
	d := newJoinDriver(f, token)
	watching, stopWatching := context.WithCancel(ctx)
	defer stopWatching()
	go d.watch(watching)

	before := measure.APIWrites(ctx, f.kube)
	hubBefore := hub.writes()
	cpu := measure.NewCPUMeter(map[string]int{"hub": hub.PID(), "kube-apiserver": f.PID("kube-apiserver"), "etcd": f.PID("etcd"),
		"kcm": f.PID("kube-controller-manager"), "bench": os.Getpid()})
	b.StartTimer()
	begin := time.Now()
	latencies := make([]time.Duration, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if err := d.join(ctx, fmt.Sprintf("j%04d", i)); err != nil {
				b.Errorf("agent %d: %v", i, err)
				return
			}
			latencies[i] = time.Since(begin)
		})
	}
	wg.Wait()
	elapsed := time.Since(begin)
	b.StopTimer()
	if b.Failed() {
		b.Fatalf("not every agent joined (hub log: %s)", hub.Log)
	}
	peak := measure.ProcStatus(hub.PID(), "VmHWM")
	writes, total := measure.Since(before, measure.APIWrites(ctx, f.kube))
	hubWrites := hub.writes() - hubBefore
	slices.Sort(latencies)
	perCluster := float64(peak-baseline) / float64(n)
	b.ReportMetric(float64(n)/elapsed.Seconds(), "joins/s")
	b.ReportMetric(float64(peak)/1024, "MB-peak-rss")
	b.ReportMetric(perCluster, "KB-rss/cluster")
	b.Logf("%d agents joined in %.2fs (%.0f joins/s; first %.2fs, median %.2fs, last %.2fs); load %s",
		n, elapsed.Seconds(), float64(n)/elapsed.Seconds(), latencies[0].Seconds(), latencies[n/2].Seconds(), latencies[n-1].Seconds(), measure.Load())
	b.Logf("corral hub RSS: %d MB before, %d MB peak: %.0f KB per cluster", baseline/1024, peak/1024, perCluster)
	b.Logf("CPU: %s; heartbeats retried: %d forbidden (the API server's authorizer not caught up yet), %d conflicting",
		measure.FormatPercent(cpu.Percent()), d.forbidden.Load(), d.conflicts.Load())
	b.Logf("hub requests: %s; reconciles: %s", measure.FormatCounts(hub.requests()), measure.FormatCounts(hub.reconciles()))
	b.Logf("hub writes %d (%.1f/cluster); API server writes %d (%.1f/cluster, every client): %s",
		hubWrites, float64(hubWrites)/float64(n), total, float64(total)/float64(n), measure.FormatCounts(writes))
}

// joinDriver plays the agents and the hub admin.
type joinDriver struct {
	admin     kubernetes.Interface
	clusters  clusterclient.Interface
	bootKube  kubernetes.Interface
	bootMC    clusterclient.Interface
	anonymous *rest.Config // the hub's address and CA

	certs    *mailbox[[]byte]   // by CSR name
	accepted *mailbox[struct{}] // by cluster name
	// heartbeats retried, because the API server did not yet authorise
	// the new identity, or because the cluster changed under the agent
	forbidden, conflicts atomic.Int64
}

func newJoinDriver(f *hubFixture, token string) *joinDriver {
	anonymous := rest.AnonymousClientConfig(f.Admin)
	boot := rest.CopyConfig(anonymous)
	boot.BearerToken = token
	return &joinDriver{
		admin:     f.kube,
		clusters:  f.clusters,
		bootKube:  kubernetes.NewForConfigOrDie(boot),
		bootMC:    clusterclient.NewForConfigOrDie(boot),
		anonymous: anonymous,
		certs:     newMailbox[[]byte](),
		accepted:  newMailbox[struct{}](),
	}
}

// watch delivers issued certificates and acceptances until ctx ends.
func (d *joinDriver) watch(ctx context.Context) {
	go func() {
		_ = watchClusters(ctx, d.clusters, func(mc *clusterv1.ManagedCluster) bool {
			if meta.IsStatusConditionTrue(mc.Status.Conditions, clusterv1.ManagedClusterConditionHubAccepted) {
				d.accepted.put(mc.Name, struct{}{})
			}
			return false
		})
	}()
	for ctx.Err() == nil {
		w, err := d.admin.CertificatesV1().CertificateSigningRequests().Watch(ctx, metav1.ListOptions{LabelSelector: clusterv1.ClusterNameLabelKey})
		if err != nil {
			continue
		}
		for ev := range w.ResultChan() {
			if csr, ok := ev.Object.(*certificatesv1.CertificateSigningRequest); ok && len(csr.Status.Certificate) > 0 {
				d.certs.put(csr.Name, csr.Status.Certificate)
			}
		}
	}
}

// join is one agent's join, up to its first heartbeat.
func (d *joinDriver) join(ctx context.Context, cluster string) error {
	keyPEM, requestPEM, err := keyAndRequest(cluster)
	if err != nil {
		return err
	}
	mc := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: cluster}, Spec: clusterv1.ManagedClusterSpec{LeaseDurationSeconds: 60}}
	if _, err := d.bootMC.ClusterV1().ManagedClusters().Create(ctx, mc, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating its ManagedCluster: %w", err)
	}
	csr, err := d.bootKube.CertificatesV1().CertificateSigningRequests().Create(ctx, &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{GenerateName: cluster + "-", Labels: map[string]string{clusterv1.ClusterNameLabelKey: cluster}},
		Spec: certificatesv1.CertificateSigningRequestSpec{
			Request: requestPEM, SignerName: certificatesv1.KubeAPIServerClientSignerName,
			Usages: []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment, certificatesv1.UsageClientAuth},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("creating its CSR: %w", err)
	}
	if err := d.accept(ctx, cluster, csr); err != nil {
		return err
	}
	certPEM, err := d.certs.wait(ctx, csr.Name)
	if err != nil {
		return fmt.Errorf("waiting for its certificate: %w", err)
	}
	identity := rest.CopyConfig(d.anonymous)
	identity.CertData, identity.KeyData = certPEM, keyPEM
	identity.QPS, identity.Burst = -1, 0
	kube, err := kubernetes.NewForConfig(identity)
	if err != nil {
		return err
	}
	clusters, err := clusterclient.NewForConfig(identity)
	if err != nil {
		return err
	}
	if _, err := d.accepted.wait(ctx, cluster); err != nil {
		return fmt.Errorf("waiting for HubAcceptedManagedCluster: %w", err)
	}
	// The hub's RBAC may reach the API server's authorizer a moment after
	// the condition, and the hub may write the cluster between the agent's
	// read and its status update: retry with backoff, as the agent's next
	// beats would (sooner than its lease period, so that the figure is the
	// hub's).
	backoff := 100 * time.Millisecond
	for {
		err := d.beat(ctx, kube, clusters, cluster)
		switch {
		case err == nil:
			return nil
		case apierrors.IsForbidden(err):
			d.forbidden.Add(1)
		case apierrors.IsConflict(err):
			d.conflicts.Add(1)
		default:
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %w)", ctx.Err(), err)
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 3*time.Second)
	}
}

// accept is what `corral accept` does for one cluster: approve its join
// request, set hubAcceptsClient.
func (d *joinDriver) accept(ctx context.Context, cluster string, csr *certificatesv1.CertificateSigningRequest) error {
	csr.Status.Conditions = append(csr.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
		Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue,
		Reason: registrationcli.ReasonAccepted, Message: "approved by the benchmark's hub admin", LastUpdateTime: metav1.Now(),
	})
	if _, err := d.admin.CertificatesV1().CertificateSigningRequests().UpdateApproval(ctx, csr.Name, csr, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("approving its CSR: %w", err)
	}
	patch := []byte(`{"spec":{"hubAcceptsClient":true}}`)
	if _, err := d.clusters.ClusterV1().ManagedClusters().Patch(ctx, cluster, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("accepting it: %w", err)
	}
	return nil
}

// beat is the agent's first heartbeat with its own identity.
func (d *joinDriver) beat(ctx context.Context, kube kubernetes.Interface, clusters clusterclient.Interface, cluster string) error {
	mc, err := clusters.ClusterV1().ManagedClusters().Get(ctx, cluster, metav1.GetOptions{})
	if err != nil {
		return err
	}
	lease, err := kube.CoordinationV1().Leases(cluster).Get(ctx, common.LeaseName, metav1.GetOptions{})
	if err != nil {
		return err
	}
	lease.Spec.RenewTime = &metav1.MicroTime{Time: time.Now()}
	if _, err := kube.CoordinationV1().Leases(cluster).Update(ctx, lease, metav1.UpdateOptions{}); err != nil {
		return err
	}
	meta.SetStatusCondition(&mc.Status.Conditions, metav1.Condition{Type: clusterv1.ManagedClusterConditionJoined,
		Status: metav1.ConditionTrue, Reason: "ManagedClusterJoined", Message: "Managed cluster joined"})
	meta.SetStatusCondition(&mc.Status.Conditions, metav1.Condition{Type: clusterv1.ManagedClusterConditionAvailable,
		Status: metav1.ConditionTrue, Reason: "ManagedClusterAvailable", Message: "The managed cluster's kube-apiserver is live."})
	_, err = clusters.ClusterV1().ManagedClusters().UpdateStatus(ctx, mc, metav1.UpdateOptions{})
	return err
}

// keyAndRequest makes an agent's key and join request, as OCM's agent
// does: CN system:open-cluster-management:<cluster>:<agent>.
func keyAndRequest(cluster string) (keyPEM, requestPEM []byte, err error) {
	return clientcsr.NewKeyAndRequest(pkix.Name{
		CommonName:   clientcsr.ClusterGroup(cluster) + ":bench",
		Organization: []string{clientcsr.ClusterGroup(cluster), clientcsr.ManagedClustersGroup},
	})
}

// mailbox hands values to whoever waits for their key, whichever comes
// first.
type mailbox[V any] struct {
	mu      sync.Mutex
	got     map[string]V
	waiters map[string]chan V
}

func newMailbox[V any]() *mailbox[V] {
	return &mailbox[V]{got: map[string]V{}, waiters: map[string]chan V{}}
}

func (m *mailbox[V]) put(key string, v V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ch, ok := m.waiters[key]; ok {
		ch <- v
		delete(m.waiters, key)
		return
	}
	m.got[key] = v
}

func (m *mailbox[V]) wait(ctx context.Context, key string) (V, error) {
	m.mu.Lock()
	if v, ok := m.got[key]; ok {
		m.mu.Unlock()
		return v, nil
	}
	ch := make(chan V, 1)
	m.waiters[key] = ch
	m.mu.Unlock()
	select {
	case v := <-ch:
		return v, nil
	case <-ctx.Done():
		var zero V
		return zero, ctx.Err()
	}
}
