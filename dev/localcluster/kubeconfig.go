package localcluster

import (
	"net/url"
	"os"
	"strconv"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// writeKubeconfig writes a self-contained kubeconfig for id: the server, the
// cluster CA that verifies it, and id's client certificate and key.
func writeKubeconfig(path, clusterName, server string, p pki, id identity) error {
	ca, err := os.ReadFile(p.caCert())
	if err != nil {
		return err
	}
	cert, err := os.ReadFile(p.cert(id))
	if err != nil {
		return err
	}
	key, err := os.ReadFile(p.key(id))
	if err != nil {
		return err
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[clusterName] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	cfg.AuthInfos[id.file] = &clientcmdapi.AuthInfo{ClientCertificateData: cert, ClientKeyData: key}
	cfg.Contexts[clusterName] = &clientcmdapi.Context{Cluster: clusterName, AuthInfo: id.file}
	cfg.CurrentContext = clusterName
	return clientcmd.WriteToFile(*cfg, path)
}

// serverPort is the port of the server of the kubeconfig at path, or 0
// when there is none to be read.
func serverPort(path string) int {
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		return 0
	}
	current := cfg.Contexts[cfg.CurrentContext]
	if current == nil || cfg.Clusters[current.Cluster] == nil {
		return 0
	}
	u, err := url.Parse(cfg.Clusters[current.Cluster].Server)
	if err != nil {
		return 0
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		return 0
	}
	return port
}
