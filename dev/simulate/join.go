package simulate

import (
	"context"
	"crypto/x509/pkix"
	"fmt"
	"hash/fnv"
	"sync/atomic"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	clusterclient "open-cluster-management.io/api/client/cluster/clientset/versioned"
	workclient "open-cluster-management.io/api/client/work/clientset/versioned"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/registration/clientcsr"
	"github.com/corral-dev/corral/registration/common"
)

// Label marks every ManagedCluster and join request the simulator makes,
// so that simulated clusters are never taken for real ones, and what a
// run leaves (with Keep) can be found and deleted.
const Label = "corral.dev/simulated"

// ReasonAccepted is the approval reason of the join requests the
// simulator approves itself (Options.Accept).
const ReasonAccepted = "SimulatorAccepted"

// Hub is what simulated clusters join: the admin's clients (to accept
// them, with Accept, to watch, and to send the clusters' requests after
// their first, see agent), the bootstrap identity's, and where the
// certificates and acceptances they wait for arrive.
type Hub struct {
	admin     kubernetes.Interface
	clusters  clusterclient.Interface
	works     workclient.Interface
	bootKube  kubernetes.Interface
	bootMC    clusterclient.Interface
	anonymous *rest.Config // the hub's address and CA

	certs    *mailbox[[]byte]    // by CSR name
	accepted *mailbox[time.Time] // by cluster name: when the watch saw HubAcceptedManagedCluster

	// NotYet and Conflicts count first heartbeats retried: the API
	// server's authorizer had not caught up with the hub's RBAC yet (or
	// the lease was not made yet), or the hub wrote the cluster between
	// the agent's read and its status update.
	NotYet, Conflicts atomic.Int64

	reactions reactions
}

// NewHub returns the hub at admin, joined with the bootstrap token. Its
// clients, which every simulated cluster's join goes through, have no
// client-side rate limit: the figures are the hub's, not the
// simulator's (at client-go's default, 5 requests a second, 100 joins
// took 18 s on the local fleet, waiting on the simulator's own limiter).
func NewHub(admin *rest.Config, token string) (*Hub, error) {
	admin = rest.CopyConfig(admin)
	admin.QPS, admin.Burst = -1, 0
	anonymous := rest.AnonymousClientConfig(admin)
	boot := rest.CopyConfig(anonymous)
	boot.BearerToken = token
	h := &Hub{anonymous: anonymous, certs: newMailbox[[]byte](), accepted: newMailbox[time.Time]()}
	var err error
	if h.admin, err = kubernetes.NewForConfig(admin); err != nil {
		return nil, err
	}
	if h.clusters, err = clusterclient.NewForConfig(admin); err != nil {
		return nil, err
	}
	if h.works, err = workclient.NewForConfig(admin); err != nil {
		return nil, err
	}
	if h.bootKube, err = kubernetes.NewForConfig(boot); err != nil {
		return nil, err
	}
	if h.bootMC, err = clusterclient.NewForConfig(boot); err != nil {
		return nil, err
	}
	return h, nil
}

// Watch delivers issued certificates and acceptances of simulated
// clusters to those waiting for them, and every simulated
// ManagedCluster to seen (when not nil), until ctx ends.
func (h *Hub) Watch(ctx context.Context, seen func(*clusterv1.ManagedCluster)) {
	simulated := metav1.ListOptions{LabelSelector: Label}
	go watchEach(ctx, func(ctx context.Context) (watch.Interface, error) {
		return h.clusters.ClusterV1().ManagedClusters().Watch(ctx, simulated)
	}, func(obj any) {
		if mc, ok := obj.(*clusterv1.ManagedCluster); ok {
			if meta.IsStatusConditionTrue(mc.Status.Conditions, clusterv1.ManagedClusterConditionHubAccepted) {
				h.accepted.put(mc.Name, time.Now())
			}
			if seen != nil {
				seen(mc)
			}
		}
	})
	watchEach(ctx, func(ctx context.Context) (watch.Interface, error) {
		return h.admin.CertificatesV1().CertificateSigningRequests().Watch(ctx, simulated)
	}, func(obj any) {
		if csr, ok := obj.(*certificatesv1.CertificateSigningRequest); ok && len(csr.Status.Certificate) > 0 {
			h.certs.put(csr.Name, csr.Status.Certificate)
		}
	})
}

// Cluster is one simulated cluster that joined: all it keeps is its
// name and its lease as last renewed (a few hundred bytes), so that ten
// thousand fit beside the hub.
type Cluster struct {
	Name  string
	hub   *Hub
	lease *coordinationv1.Lease // without its managed fields
	// renewing is set while a renewal waits for the hub, so that a
	// renewal coming due meanwhile (the hub slower than a lease period)
	// does not run beside it.
	renewing atomic.Bool
}

// subject is the subject of a simulated cluster's client certificate:
// an agent of the cluster, in the cluster's group and that of every
// managed cluster.
func subject(cluster string) pkix.Name {
	return pkix.Name{
		CommonName:   clientcsr.ClusterGroup(cluster) + ":simulated",
		Organization: []string{clientcsr.ClusterGroup(cluster), clientcsr.ManagedClustersGroup},
	}
}

// Join is one simulated agent's join, up to its first heartbeat with
// the identity it was issued: its ManagedCluster (leaseSeconds its lease
// period) and join request, accepted by the hub's admin when accept (as
// `corral accept` does), its certificate, Joined and Available reported,
// its lease renewed.
func (h *Hub) Join(ctx context.Context, name string, leaseSeconds int32, accept bool) (*Cluster, error) {
	keyPEM, requestPEM, err := clientcsr.NewKeyAndRequest(subject(name))
	if err != nil {
		return nil, err
	}
	mc := &clusterv1.ManagedCluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{Label: "true"}},
		Spec:       clusterv1.ManagedClusterSpec{LeaseDurationSeconds: leaseSeconds},
	}
	if _, err := h.bootMC.ClusterV1().ManagedClusters().Create(ctx, mc, metav1.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("creating its ManagedCluster: %w", err)
	}
	csr, err := h.bootKube.CertificatesV1().CertificateSigningRequests().Create(ctx, &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{GenerateName: name + "-", Labels: map[string]string{clusterv1.ClusterNameLabelKey: name, Label: "true"}},
		Spec: certificatesv1.CertificateSigningRequestSpec{
			Request: requestPEM, SignerName: certificatesv1.KubeAPIServerClientSignerName,
			Usages: []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment, certificatesv1.UsageClientAuth},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("creating its join request: %w", err)
	}
	var acceptedAt time.Time
	if accept {
		if err := h.accept(ctx, name, csr); err != nil {
			return nil, err
		}
		acceptedAt = time.Now()
	}
	certPEM, err := h.certs.wait(ctx, csr.Name)
	if err != nil {
		return nil, fmt.Errorf("waiting for its certificate: %w", err)
	}
	own, closeOwn, err := h.withCertificate(certPEM, keyPEM)
	if err != nil {
		return nil, err
	}
	defer closeOwn()
	seen, err := h.accepted.wait(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("waiting for HubAcceptedManagedCluster: %w", err)
	}
	c := &Cluster{Name: name, hub: h}
	if err := h.firstBeat(ctx, c, own); err != nil {
		return nil, err
	}
	if accept {
		h.reactions.add(seen.Sub(acceptedAt), time.Since(acceptedAt))
	}
	return c, nil
}

// firstBeat reports the cluster Joined and Available and renews its
// lease, with the cluster's own certificate. The hub's RBAC may reach
// the API server's authorizer a moment after the acceptance, and the hub
// may write the cluster between the agent's read and its status update:
// it retries with backoff, as an agent's next beats would, but sooner
// than its lease period.
func (h *Hub) firstBeat(ctx context.Context, c *Cluster, own agent) error {
	backoff := 100 * time.Millisecond
	for {
		err := c.report(ctx, own)
		if err == nil {
			err = c.renew(ctx, own)
		}
		switch {
		case err == nil:
			return nil
		case apierrors.IsForbidden(err) || apierrors.IsNotFound(err):
			h.NotYet.Add(1)
		case apierrors.IsConflict(err):
			h.Conflicts.Add(1)
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
func (h *Hub) accept(ctx context.Context, name string, csr *certificatesv1.CertificateSigningRequest) error {
	clientcsr.Approve(csr, ReasonAccepted, "approved by the fleet simulator")
	if _, err := h.admin.CertificatesV1().CertificateSigningRequests().UpdateApproval(ctx, csr.Name, csr, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("approving its join request: %w", err)
	}
	patch := []byte(`{"spec":{"hubAcceptsClient":true}}`)
	if _, err := h.clusters.ClusterV1().ManagedClusters().Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("accepting it: %w", err)
	}
	return nil
}

// report sets Joined and Available on the cluster's ManagedCluster, as
// its agent.
func (c *Cluster) report(ctx context.Context, a agent) error {
	mc := &clusterv1.ManagedCluster{}
	if err := a.request(a.clusters.Get().Resource("managedclusters").Name(c.Name)).Do(ctx).Into(mc); err != nil {
		return err
	}
	SetLive(mc)
	describe(mc)
	return a.request(a.clusters.Put().Resource("managedclusters").Name(c.Name).SubResource("status").Body(mc)).Do(ctx).Error()
}

// describe sets what an agent reports of its cluster besides its
// liveness: its Kubernetes version, its capacity and allocatable (4 to
// 32 CPUs, 4 GiB each, a tenth of it in use; varied by cluster, so that
// prioritizers have something to rank), and its id claim.
func describe(mc *clusterv1.ManagedCluster) {
	h := fnv.New32a()
	_, _ = h.Write([]byte(mc.Name))
	cpus := int64(4) << (h.Sum32() % 4)
	quantities := func(cpu, gib int64) clusterv1.ResourceList {
		return clusterv1.ResourceList{
			clusterv1.ResourceCPU:    *resource.NewMilliQuantity(cpu, resource.DecimalSI),
			clusterv1.ResourceMemory: *resource.NewQuantity(gib<<30/1000, resource.BinarySI),
		}
	}
	mc.Status.Capacity = quantities(1000*cpus, 4000*cpus)
	mc.Status.Allocatable = quantities(900*cpus, 3600*cpus)
	mc.Status.Version = clusterv1.ManagedClusterVersion{Kubernetes: "v1.35.4"}
	mc.Status.ClusterClaims = []clusterv1.ManagedClusterClaim{{Name: "id.k8s.io", Value: mc.Name}}
}

// SetLive sets the conditions a live agent reports on its cluster:
// Joined and Available.
func SetLive(mc *clusterv1.ManagedCluster) {
	meta.SetStatusCondition(&mc.Status.Conditions, metav1.Condition{Type: clusterv1.ManagedClusterConditionJoined,
		Status: metav1.ConditionTrue, Reason: "ManagedClusterJoined", Message: "Managed cluster joined"})
	meta.SetStatusCondition(&mc.Status.Conditions, metav1.Condition{Type: clusterv1.ManagedClusterConditionAvailable,
		Status: metav1.ConditionTrue, Reason: "ManagedClusterAvailable", Message: "The simulated cluster is live."})
}

// resume is an agent starting again: it renews its lease and reports
// the cluster available.
func (c *Cluster) resume(ctx context.Context) error {
	if err := c.Renew(ctx); err != nil {
		return err
	}
	return retry.RetryOnConflict(retry.DefaultBackoff, func() error { return c.report(ctx, c.hub.as(c.Name)) })
}

// Renew renews the cluster's lease as its agent (see agent): one update
// of the lease as last renewed, read again when the hub changed it
// since.
func (c *Cluster) Renew(ctx context.Context) error { return c.renew(ctx, c.hub.as(c.Name)) }

func (c *Cluster) renew(ctx context.Context, a agent) error {
	lease := func(r *rest.Request) *rest.Request {
		return a.request(r.Namespace(c.Name).Resource("leases").Name(common.LeaseName))
	}
	for range 2 {
		if c.lease == nil {
			got := &coordinationv1.Lease{}
			if err := lease(a.leases.Get()).Do(ctx).Into(got); err != nil {
				return err
			}
			c.lease = got
		}
		c.lease.Spec.RenewTime = &metav1.MicroTime{Time: time.Now()}
		renewed := &coordinationv1.Lease{}
		err := lease(a.leases.Put()).Body(c.lease).Do(ctx).Into(renewed)
		if !apierrors.IsConflict(err) {
			if err == nil {
				renewed.ManagedFields = nil // most of its bytes; an update needs none of them
				c.lease = renewed
			}
			return err
		}
		c.lease = nil
	}
	return fmt.Errorf("renewing the lease of %s: it kept changing", c.Name)
}
