package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	certificatesv1 "k8s.io/api/certificates/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	clusterclient "open-cluster-management.io/api/client/cluster/clientset/versioned"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/registration/common"
)

func log(ctx context.Context) logr.Logger { return klog.FromContext(ctx) }

// ErrDenied is wrapped by the error of a join the hub refused.
var ErrDenied = errors.New("the hub denied the join request")

// ErrBootstrapRefused is wrapped by the error of a bootstrap credential the
// hub does not accept (unknown, expired or revoked token).
var ErrBootstrapRefused = errors.New("the hub refused the bootstrap credentials")

// hubBackoff is how the agent retries while the hub cannot be reached.
var hubBackoff = wait.Backoff{Duration: time.Second, Factor: 2, Jitter: 0.2, Steps: 1 << 30, Cap: 30 * time.Second}

// ErrNameTaken is wrapped by the error of a join for a cluster name that a
// live agent with another identity already holds.
var ErrNameTaken = errors.New("the cluster name is taken on the hub")

// join runs the bootstrap handshake: ManagedCluster, CSR, wait, store.
// known says the cluster name is this agent's own (it held an identity for
// it); otherwise a name another live agent holds is refused.
func (a *Agent) join(ctx context.Context, id Identity, known bool) (*session, error) {
	kube, err := kubernetes.NewForConfig(a.opts.Bootstrap)
	if err != nil {
		return nil, err
	}
	clusters, err := clusterclient.NewForConfig(a.opts.Bootstrap)
	if err != nil {
		return nil, err
	}
	if !known {
		if err := a.retry(ctx, "reading ManagedCluster "+id.Cluster, func() error { return nameFree(ctx, clusters, id.Cluster) }); err != nil {
			return nil, err
		}
	}
	if err := a.retry(ctx, "creating ManagedCluster "+id.Cluster, func() error { return a.ensureCluster(ctx, clusters) }); err != nil {
		return nil, err
	}
	if !known {
		// Record the agent id before asking: an agent restarted while its
		// request waits for an admin is still this agent, not a second one
		// asking for the same name.
		if err := a.putIdentity(ctx, map[string][]byte{KeyClusterName: []byte(id.Cluster), KeyAgentName: []byte(id.AgentID)}); err != nil {
			return nil, err
		}
	}
	s, err := a.obtain(ctx, kube, id, fmt.Sprintf("Asked to join; waiting for a hub admin to run 'corral accept %s'", id.Cluster))
	if apierrors.IsUnauthorized(err) && !errors.Is(err, ErrBootstrapRefused) {
		// The token stopped working while the request waited (retry has
		// already said so of one refused while asking).
		return nil, refused("waiting to be accepted", err)
	}
	if err != nil {
		return nil, err
	}
	log(ctx).Info("Joined the hub", "cluster", id.Cluster, "agent", id.AgentID, "expires", s.cert.NotAfter)
	return s, nil
}

// obtain asks, through kube (the bootstrap identity, or the current one
// when rotating), for a certificate for a fresh key, waits for it, stores
// it and returns the session it makes.
func (a *Agent) obtain(ctx context.Context, kube kubernetes.Interface, id Identity, waiting string) (*session, error) {
	keyPEM, requestPEM, err := newKeyAndRequest(id)
	if err != nil {
		return nil, err
	}
	var certPEM []byte
	for {
		var csrName string
		if err := a.retry(ctx, "creating a CSR", func() error {
			csrName, err = createCSR(ctx, kube, id, requestPEM)
			return err
		}); err != nil {
			return nil, err
		}
		log(ctx).Info(waiting, "cluster", id.Cluster, "csr", csrName)
		certPEM, err = a.waitForCertificate(ctx, kube, csrName)
		if !errors.Is(err, errCSRGone) {
			break
		}
		log(ctx).Info("The request was deleted before it was approved; asking again", "cluster", id.Cluster, "csr", csrName)
	}
	if err != nil {
		return nil, err
	}
	cert, err := parseCertificate(certPEM)
	if err != nil {
		return nil, fmt.Errorf("the certificate the hub issued does not parse: %w", err)
	}
	if cert.CommonName != id.CommonName() {
		return nil, fmt.Errorf("the hub issued a certificate for %s, not %s", cert.CommonName, id.CommonName())
	}
	kubeconfig, err := hubKubeconfig(a.opts.Bootstrap, certPEM, keyPEM)
	if err != nil {
		return nil, err
	}
	if err := a.save(ctx, id, kubeconfig, certPEM, keyPEM); err != nil {
		return nil, err
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		return nil, err
	}
	return newSession(id, cfg, cert)
}

// nameFree fails with ErrNameTaken when the ManagedCluster exists and
// notHeld says a live agent holds it.
func nameFree(ctx context.Context, clusters clusterclient.Interface, name string) error {
	mc, err := clusters.ClusterV1().ManagedClusters().Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return err
	}
	return notHeld(mc)
}

// notHeld fails with ErrNameTaken when common.Held says a live agent
// holds mc: some other agent holds the name. A cluster whose agent went
// away (Available Unknown after its lease expired) may be joined again.
func notHeld(mc *clusterv1.ManagedCluster) error {
	if !common.Held(mc) {
		return nil
	}
	return fmt.Errorf("%w: ManagedCluster %s is joined and its agent is heartbeating, and this cluster holds no identity for it; "+
		"pick another --cluster-name, or unjoin that cluster first", ErrNameTaken, mc.Name)
}

// ensureCluster creates the ManagedCluster, not accepted, with the
// options' labels and annotations, unless it exists.
func (a *Agent) ensureCluster(ctx context.Context, clusters clusterclient.Interface) error {
	mc := &clusterv1.ManagedCluster{
		ObjectMeta: metav1.ObjectMeta{Name: a.opts.ClusterName, Labels: a.opts.ClusterLabels, Annotations: a.opts.ClusterAnnotations},
		Spec: clusterv1.ManagedClusterSpec{
			ManagedClusterClientConfigs: a.opts.ClientConfigs,
			LeaseDurationSeconds:        a.opts.LeaseDurationSeconds,
		},
	}
	_, err := clusters.ClusterV1().ManagedClusters().Create(ctx, mc, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

func createCSR(ctx context.Context, kube kubernetes.Interface, id Identity, requestPEM []byte) (string, error) {
	csr, err := kube.CertificatesV1().CertificateSigningRequests().Create(ctx, &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: id.Cluster + "-",
			Labels:       map[string]string{clusterv1.ClusterNameLabelKey: id.Cluster},
		},
		Spec: certificatesv1.CertificateSigningRequestSpec{
			Request:    requestPEM,
			SignerName: certificatesv1.KubeAPIServerClientSignerName,
			Usages: []certificatesv1.KeyUsage{
				certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment, certificatesv1.UsageClientAuth,
			},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		return "", err
	}
	return csr.Name, nil
}

// errCSRGone: the CSR waited on was deleted before it was approved (by
// the hub's cleanup of old requests, or an admin); the agent asks again.
var errCSRGone = errors.New("the certificate signing request is gone")

// waitForCertificate polls the CSR until it has a certificate, is denied,
// or is gone (errCSRGone). An error reading it is retried with backoff
// (the hub may be restarting), except a credential the hub no longer
// accepts (a bootstrap token that expired while the join waited), which
// retrying will not change.
func (a *Agent) waitForCertificate(ctx context.Context, kube kubernetes.Interface, name string) ([]byte, error) {
	backoff := hubBackoff
	for {
		interval := a.opts.PollInterval
		csr, err := kube.CertificatesV1().CertificateSigningRequests().Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			return nil, fmt.Errorf("CSR %s: %w", name, errCSRGone)
		case apierrors.IsUnauthorized(err), apierrors.IsForbidden(err):
			return nil, fmt.Errorf("reading CSR %s: %w", name, err)
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			interval = backoff.Step()
			log(ctx).Info("Cannot read the join request; retrying", "csr", name, "in", interval, "err", err)
		default:
			backoff = hubBackoff
			for _, c := range csr.Status.Conditions {
				if c.Type == certificatesv1.CertificateDenied || c.Type == certificatesv1.CertificateFailed {
					return nil, fmt.Errorf("%w: CSR %s is %s: %s", ErrDenied, name, c.Type, c.Message)
				}
			}
			if len(csr.Status.Certificate) > 0 {
				return csr.Status.Certificate, nil
			}
		}
		t := time.NewTimer(interval)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// retry runs f with backoff until it succeeds, logging each failure; it
// gives up only when ctx ends or the hub says the request is forbidden or
// invalid, or the name is taken, which retrying will not change.
func (a *Agent) retry(ctx context.Context, what string, f func() error) error {
	var last error
	err := wait.ExponentialBackoffWithContext(ctx, hubBackoff, func(context.Context) (bool, error) {
		last = f()
		switch {
		case last == nil:
			return true, nil
		case errors.Is(last, ErrNameTaken), apierrors.IsForbidden(last), apierrors.IsUnauthorized(last), apierrors.IsInvalid(last):
			return false, last
		}
		log(ctx).Info("Cannot reach the hub; retrying", "doing", what, "err", last)
		return false, nil
	})
	switch {
	case err == nil:
		return nil
	case apierrors.IsUnauthorized(last):
		return refused(what, last)
	case last != nil:
		return fmt.Errorf("%s: %w", what, last)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// refused is the error of a bootstrap credential the hub turned down while
// the agent was doing what.
func refused(what string, err error) error {
	return fmt.Errorf("%s: %w (%w): get a fresh token with 'corral get token' on the hub", what, ErrBootstrapRefused, err)
}
