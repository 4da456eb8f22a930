package agent

import (
	"bytes"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"os"
	"strings"
	"time"

	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/corral-dev/corral/registration/clientcsr"
)

// Keys of the hub kubeconfig Secret, as OCM's agent writes them.
const (
	KeyKubeconfig  = "kubeconfig"
	KeyCert        = "tls.crt"
	KeyKey         = "tls.key"
	KeyClusterName = "cluster-name"
	KeyAgentName   = "agent-name"
)

// Identity is who the agent is on the hub.
type Identity struct {
	Cluster string
	AgentID string
}

// CommonName is the subject CN of the agent's client certificate.
func (id Identity) CommonName() string { return clientcsr.ClusterGroup(id.Cluster) + ":" + id.AgentID }

// NewAgentID returns a random agent id, as OCM makes them.
func NewAgentID() string { return utilrand.String(5) }

// newKeyAndRequest makes a fresh key and a PEM certificate request for id.
func newKeyAndRequest(id Identity) (keyPEM, requestPEM []byte, err error) {
	return clientcsr.NewKeyAndRequest(pkix.Name{
		CommonName:   id.CommonName(),
		Organization: []string{clientcsr.ClusterGroup(id.Cluster), clientcsr.ManagedClustersGroup},
	})
}

// certificate is a parsed client certificate.
type certificate struct {
	NotBefore, NotAfter time.Time
	CommonName          string
}

func parseCertificate(certPEM []byte) (*certificate, error) {
	block, _ := pem.Decode(certPEM)
	if block == nil {
		return nil, fmt.Errorf("not a PEM certificate")
	}
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil, err
	}
	return &certificate{NotBefore: c.NotBefore, NotAfter: c.NotAfter, CommonName: c.Subject.CommonName}, nil
}

// sameHub says whether the stored hub configuration is for the hub that
// bootstrap names: the same server and, when bootstrap names one, the
// same CA.
func sameHub(stored, bootstrap *rest.Config) bool {
	if strings.TrimSuffix(stored.Host, "/") != strings.TrimSuffix(bootstrap.Host, "/") {
		return false
	}
	caData := bootstrap.CAData
	if len(caData) == 0 && bootstrap.CAFile != "" {
		var err error
		if caData, err = os.ReadFile(bootstrap.CAFile); err != nil {
			return true // unreadable here: the server decides
		}
	}
	return len(caData) == 0 || bytes.Equal(bytes.TrimSpace(caData), bytes.TrimSpace(stored.CAData))
}

// hubKubeconfig builds the kubeconfig of the agent's own identity: the hub
// server and CA of the bootstrap kubeconfig, and the signed client cert.
// The CA is stored as data: a file the bootstrap kubeconfig names is a path
// on this host, which whoever reads the stored kubeconfig may not have.
func hubKubeconfig(bootstrap *rest.Config, certPEM, keyPEM []byte) ([]byte, error) {
	caData := bootstrap.CAData
	if len(caData) == 0 && bootstrap.CAFile != "" {
		var err error
		if caData, err = os.ReadFile(bootstrap.CAFile); err != nil {
			return nil, fmt.Errorf("reading the hub's CA, which the bootstrap kubeconfig names: %w", err)
		}
	}
	hub := clientcmdapi.Cluster{Server: bootstrap.Host, CertificateAuthorityData: caData, TLSServerName: bootstrap.ServerName}
	return hubOnlyKubeconfig(hub, "default-context", "default-auth", clientcmdapi.AuthInfo{ClientCertificateData: certPEM, ClientKeyData: keyPEM})
}

// hubOnlyKubeconfig is a kubeconfig with one cluster, the hub, and one
// user, auth, in the current context: what both the bootstrap and the
// agent's own hub kubeconfig are.
func hubOnlyKubeconfig(hub clientcmdapi.Cluster, contextName, user string, auth clientcmdapi.AuthInfo) ([]byte, error) {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["hub"] = &hub
	cfg.AuthInfos[user] = &auth
	cfg.Contexts[contextName] = &clientcmdapi.Context{Cluster: "hub", AuthInfo: user}
	cfg.CurrentContext = contextName
	return clientcmd.Write(*cfg)
}
