package simulate

import (
	"crypto/x509/pkix"
	"net/http"
	"time"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/transport"
	clusterv1client "open-cluster-management.io/api/client/cluster/clientset/versioned/typed/cluster/v1"
)

// agent is how one simulated cluster's requests reach the hub as its
// agent's: over clients that carry the cluster's own client certificate
// (its first heartbeat, which shows the certificate the hub issued
// works), or over the admin's, impersonating that certificate's subject
// (every request after), which the API server authorizes exactly as it
// would the certificate. An agent with a certificate holds a connection
// of its own; impersonated ones share the admin's, so that ten thousand
// clusters need neither ten thousand connections in the simulator nor
// ten thousand TLS sessions kept by the API server being measured.
// Impersonating needs the admin's credentials to allow it, as
// cluster-admin's do.
type agent struct {
	clusters, leases, works rest.Interface
	as                      *pkix.Name // the subject impersonated; nil with the cluster's own certificate
}

func (a agent) request(r *rest.Request) *rest.Request {
	if a.as != nil {
		r.SetHeader(transport.ImpersonateUserHeader, a.as.CommonName).
			SetHeader(transport.ImpersonateGroupHeader, a.as.Organization...)
	}
	return r
}

// as is cluster's agent over the admin's connection.
func (h *Hub) as(cluster string) agent {
	s := subject(cluster)
	return agent{clusters: h.clusters.ClusterV1().RESTClient(), leases: h.admin.CoordinationV1().RESTClient(), works: h.works.WorkV1().RESTClient(), as: &s}
}

// withCertificate is an agent with the cluster's own certificate and
// key, on a connection of its own that close closes. client-go would
// cache a transport per certificate for the life of the process; and
// an HTTP/2 connection set up by golang.org/x/net, as client-go's are,
// is not closed by its transport's CloseIdleConnections: so this one is
// HTTP/1.1, for the first heartbeat's four requests. (Holding them cost
// the simulator 42 KB per cluster, and the API server a connection.)
func (h *Hub) withCertificate(certPEM, keyPEM []byte) (a agent, close func(), err error) {
	cfg := rest.CopyConfig(h.anonymous)
	cfg.CertData, cfg.KeyData = certPEM, keyPEM
	cfg.QPS, cfg.Burst = -1, 0 // one cluster's few requests: no client-side limit
	tlsConfig, err := rest.TLSConfigFor(cfg)
	if err != nil {
		return agent{}, nil, err
	}
	own := &http.Transport{TLSClientConfig: tlsConfig, Proxy: utilnet.NewProxierWithNoProxyCIDR(http.ProxyFromEnvironment),
		TLSHandshakeTimeout: 10 * time.Second, IdleConnTimeout: 30 * time.Second}
	client := &http.Client{Transport: own}
	clusters, err := clusterv1client.NewForConfigAndClient(cfg, client)
	if err != nil {
		return agent{}, nil, err
	}
	leases, err := coordinationv1client.NewForConfigAndClient(cfg, client)
	if err != nil {
		return agent{}, nil, err
	}
	return agent{clusters: clusters.RESTClient(), leases: leases.RESTClient()}, own.CloseIdleConnections, nil
}
