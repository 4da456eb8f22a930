package bootstrap

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	rbacac "k8s.io/client-go/applyconfigurations/rbac/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Where a hub publishes its address and CA for joining clusters, as
// kubeadm and clusteradm have it: the kubeconfig key of the cluster-info
// ConfigMap in kube-public, readable by anyone.
const (
	ClusterInfoNamespace = "kube-public"
	ClusterInfoName      = "cluster-info"
	ClusterInfoKey       = "kubeconfig"
	clusterInfoReader    = "corral:cluster-info-reader"
)

// PublishClusterInfo publishes the hub's address and CA (from cfg, the
// admin's view of the hub) in kube-public/cluster-info, unless the hub
// already has one (kubeadm keeps its own), and lets anyone read it.
func PublishClusterInfo(ctx context.Context, kube kubernetes.Interface, cfg *rest.Config) error {
	ca, err := CAData(cfg)
	if err != nil {
		return err
	}
	info := clientcmdapi.NewConfig()
	info.Clusters[""] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: ca}
	data, err := clientcmd.Write(*info)
	if err != nil {
		return err
	}
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: ClusterInfoNamespace, Name: ClusterInfoName},
		Data:       map[string]string{ClusterInfoKey: string(data)},
	}
	if _, err := kube.CoreV1().ConfigMaps(ClusterInfoNamespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("publishing %s/%s: %w", ClusterInfoNamespace, ClusterInfoName, err)
	}
	opts := metav1.ApplyOptions{FieldManager: fieldManager, Force: true}
	role := rbacac.Role(clusterInfoReader, ClusterInfoNamespace).WithRules(rbacac.PolicyRule().
		WithAPIGroups("").WithResources("configmaps").WithResourceNames(ClusterInfoName).WithVerbs("get"))
	if _, err := kube.RbacV1().Roles(ClusterInfoNamespace).Apply(ctx, role, opts); err != nil {
		return fmt.Errorf("role %s/%s: %w", ClusterInfoNamespace, clusterInfoReader, err)
	}
	binding := rbacac.RoleBinding(clusterInfoReader, ClusterInfoNamespace).
		WithRoleRef(rbacac.RoleRef().WithAPIGroup(rbacv1.GroupName).WithKind("Role").WithName(clusterInfoReader)).
		WithSubjects(
			rbacac.Subject().WithKind(rbacv1.UserKind).WithAPIGroup(rbacv1.GroupName).WithName("system:anonymous"),
			rbacac.Subject().WithKind(rbacv1.GroupKind).WithAPIGroup(rbacv1.GroupName).WithName("system:authenticated"),
		)
	if _, err := kube.RbacV1().RoleBindings(ClusterInfoNamespace).Apply(ctx, binding, opts); err != nil {
		return fmt.Errorf("role binding %s/%s: %w", ClusterInfoNamespace, clusterInfoReader, err)
	}
	return nil
}

// CAData is the CA bundle cfg trusts: the hub's, for what joining clusters
// are given.
func CAData(cfg *rest.Config) ([]byte, error) {
	if len(cfg.CAData) > 0 {
		return cfg.CAData, nil
	}
	if cfg.CAFile == "" {
		return nil, errors.New("the hub kubeconfig names no certificate authority, so there is none to publish for joining clusters")
	}
	data, err := os.ReadFile(cfg.CAFile)
	if err != nil {
		return nil, fmt.Errorf("reading the hub's CA: %w", err)
	}
	return data, nil
}

// FetchCA reads the hub's CA from its cluster-info. The hub's certificate
// cannot be checked before its CA is known, so the read goes anonymously
// first and sends token only if the hub refuses anonymous requests; either
// way whoever calls this trusts the network to the hub once, which
// --ca-file avoids.
func FetchCA(ctx context.Context, server, token string) ([]byte, error) {
	cm, err := readClusterInfo(ctx, server, "")
	if apierrors.IsUnauthorized(err) || apierrors.IsForbidden(err) {
		cm, err = readClusterInfo(ctx, server, token)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the hub's CA from %s/%s: %w", ClusterInfoNamespace, ClusterInfoName, err)
	}
	info, err := clientcmd.Load([]byte(cm.Data[ClusterInfoKey]))
	if err != nil {
		return nil, fmt.Errorf("%s/%s holds no kubeconfig: %w", ClusterInfoNamespace, ClusterInfoName, err)
	}
	for _, c := range info.Clusters {
		if len(c.CertificateAuthorityData) > 0 {
			return c.CertificateAuthorityData, nil
		}
	}
	return nil, fmt.Errorf("%s/%s names no certificate authority: pass --ca-file", ClusterInfoNamespace, ClusterInfoName)
}

// readClusterInfo gets the cluster-info ConfigMap without verifying the
// server, with token if it is not empty.
func readClusterInfo(ctx context.Context, server, token string) (*corev1.ConfigMap, error) {
	kube, err := kubernetes.NewForConfig(&rest.Config{
		Host: server, BearerToken: token, Timeout: 15 * time.Second,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true},
	})
	if err != nil {
		return nil, err
	}
	return kube.CoreV1().ConfigMaps(ClusterInfoNamespace).Get(ctx, ClusterInfoName, metav1.GetOptions{})
}

// CheckCA says in one line why data is not a PEM CA bundle.
func CheckCA(data []byte) error {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE" {
		return errors.New("it holds no PEM certificate")
	}
	if _, err := x509.ParseCertificate(block.Bytes); err != nil {
		return fmt.Errorf("its certificate does not parse: %w", err)
	}
	return nil
}
