// Package bootstrap owns the hub's bootstrap identity: the service account
// whose token a new cluster's agent uses to ask to join, and what it may do
// — create CSRs and ManagedClusters, and nothing that accepts a cluster.
// Names and rules are OCM's, so clusteradm and OCM agents find them.
package bootstrap

import (
	"context"
	"fmt"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	rbacac "k8s.io/client-go/applyconfigurations/rbac/v1"
	"k8s.io/client-go/kubernetes"
)

// Names of the bootstrap identity, as OCM has them.
const (
	Namespace      = "open-cluster-management"
	ServiceAccount = "cluster-bootstrap"
	ClusterRole    = "system:open-cluster-management:bootstrap"
	Binding        = "cluster-bootstrap-sa"
	fieldManager   = "corral-init"
)

// User is the user name the bootstrap token authenticates as.
var User = fmt.Sprintf("system:serviceaccount:%s:%s", Namespace, ServiceAccount)

func role() *rbacac.ClusterRoleApplyConfiguration {
	rule := func(group, resource string, verbs ...string) *rbacac.PolicyRuleApplyConfiguration {
		return rbacac.PolicyRule().WithAPIGroups(group).WithResources(resource).WithVerbs(verbs...)
	}
	return rbacac.ClusterRole(ClusterRole).WithRules(
		rule("certificates.k8s.io", "certificatesigningrequests", "create", "get", "list", "watch"),
		rule("cluster.open-cluster-management.io", "managedclusters", "get", "create"),
		rule("cluster.open-cluster-management.io", "managedclustersets/join", "create"),
	)
}

// Install applies the namespace, service account, role and binding.
func Install(ctx context.Context, client kubernetes.Interface) error {
	opts := metav1.ApplyOptions{FieldManager: fieldManager, Force: true}
	if _, err := client.CoreV1().Namespaces().Apply(ctx, corev1ac.Namespace(Namespace), opts); err != nil {
		return fmt.Errorf("namespace %s: %w", Namespace, err)
	}
	if _, err := client.CoreV1().ServiceAccounts(Namespace).Apply(ctx, corev1ac.ServiceAccount(ServiceAccount, Namespace), opts); err != nil {
		return fmt.Errorf("service account %s/%s: %w", Namespace, ServiceAccount, err)
	}
	if _, err := client.RbacV1().ClusterRoles().Apply(ctx, role(), opts); err != nil {
		return fmt.Errorf("cluster role %s: %w", ClusterRole, err)
	}
	binding := rbacac.ClusterRoleBinding(Binding).
		WithRoleRef(rbacac.RoleRef().WithAPIGroup(rbacv1.GroupName).WithKind("ClusterRole").WithName(ClusterRole)).
		WithSubjects(rbacac.Subject().WithKind(rbacv1.ServiceAccountKind).WithName(ServiceAccount).WithNamespace(Namespace))
	if _, err := client.RbacV1().ClusterRoleBindings().Apply(ctx, binding, opts); err != nil {
		return fmt.Errorf("cluster role binding %s: %w", Binding, err)
	}
	return nil
}

// Token issues a bootstrap token valid for ttlSeconds.
func Token(ctx context.Context, client kubernetes.Interface, ttlSeconds int64) (string, error) {
	token, _, err := TokenUntil(ctx, client, ttlSeconds)
	return token, err
}

// TokenUntil issues a bootstrap token asked to be valid for ttlSeconds,
// and says until when the API server made it valid (it may cap the
// lifetime).
func TokenUntil(ctx context.Context, client kubernetes.Interface, ttlSeconds int64) (string, time.Time, error) {
	tr, err := client.CoreV1().ServiceAccounts(Namespace).CreateToken(ctx, ServiceAccount, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &ttlSeconds},
	}, metav1.CreateOptions{})
	if err != nil {
		return "", time.Time{}, fmt.Errorf("issuing a bootstrap token (has 'corral init' run on this hub?): %w", err)
	}
	return tr.Status.Token, tr.Status.ExpirationTimestamp.Time, nil
}
