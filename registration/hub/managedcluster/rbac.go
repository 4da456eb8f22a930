package managedcluster

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	rbacac "k8s.io/client-go/applyconfigurations/rbac/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/registration/clientcsr"
	"github.com/corral-dev/corral/registration/common"
)

// RegistrationClusterRole is shared by every cluster, bound in each
// cluster namespace (OCM's name): leases, its addons' status, events, and
// ManifestWorks and their status. OCM binds the ManifestWork rules through
// a second shared role and RoleBinding, which it holds with a finalizer
// until the cluster's works are gone; corral deletes a cluster's RBAC only
// once its works are gone (see deleteContent), so one binding does, and
// accepting a cluster is one write fewer.
const RegistrationClusterRole = "open-cluster-management:managedcluster:registration"

// clusterRoleName names the per-cluster ClusterRole and its binding.
func clusterRoleName(cluster string) string {
	return "open-cluster-management:managedcluster:" + cluster
}

// roleBindingName names the per-cluster RoleBindings in its namespace.
func roleBindingName(cluster, role string) string {
	return clusterRoleName(cluster) + ":" + role
}

func clusterLabels(cluster string) map[string]string {
	return map[string]string{clusterv1.ClusterNameLabelKey: cluster}
}

func rule(group string, resources []string, verbs ...string) *rbacac.PolicyRuleApplyConfiguration {
	return rbacac.PolicyRule().WithAPIGroups(group).WithResources(resources...).WithVerbs(verbs...)
}

// clusterRole lets the cluster see, update and delete (corral unjoin) only
// its own ManagedCluster,
// renew its client certificate and create (and watch) CSRs.
func clusterRole(cluster string) *rbacac.ClusterRoleApplyConfiguration {
	return rbacac.ClusterRole(clusterRoleName(cluster)).
		WithLabels(clusterLabels(cluster)).
		WithRules(
			rule("certificates.k8s.io", []string{"certificatesigningrequests"}, "create", "get", "list", "watch"),
			rule(common.RegisterGroup, []string{"managedclusters/clientcertificates"}, "renew"),
			rule(clusterv1.GroupName, []string{"managedclusters"}, "get", "list", "update", "watch", "delete").WithResourceNames(cluster),
			rule(clusterv1.GroupName, []string{"managedclusters/status"}, "patch", "update").WithResourceNames(cluster),
		)
}

func groupSubject(cluster string) *rbacac.SubjectApplyConfiguration {
	return rbacac.Subject().WithKind(rbacv1.GroupKind).WithAPIGroup(rbacv1.GroupName).WithName(clientcsr.ClusterGroup(cluster))
}

func clusterRoleBinding(cluster string) *rbacac.ClusterRoleBindingApplyConfiguration {
	return rbacac.ClusterRoleBinding(clusterRoleName(cluster)).
		WithLabels(clusterLabels(cluster)).
		WithRoleRef(rbacac.RoleRef().WithAPIGroup(rbacv1.GroupName).WithKind("ClusterRole").WithName(clusterRoleName(cluster))).
		WithSubjects(groupSubject(cluster))
}

// roleBinding binds the shared role in the cluster's own namespace only.
func roleBinding(cluster string) *rbacac.RoleBindingApplyConfiguration {
	return rbacac.RoleBinding(roleBindingName(cluster, "registration"), cluster).
		WithLabels(clusterLabels(cluster)).
		WithRoleRef(rbacac.RoleRef().WithAPIGroup(rbacv1.GroupName).WithKind("ClusterRole").WithName(RegistrationClusterRole)).
		WithSubjects(groupSubject(cluster))
}

// RBAC is what accepting a cluster grants its identity, in the order the
// hub writes it: its ClusterRole and ClusterRoleBinding, then the
// RoleBinding in its namespace.
func RBAC(cluster string) []runtime.ApplyConfiguration {
	return []runtime.ApplyConfiguration{clusterRole(cluster), clusterRoleBinding(cluster), roleBinding(cluster)}
}

// rbacObjects are the per-cluster RBAC objects, for deletion.
func rbacObjects(cluster string) []client.Object {
	if common.ReservedClusterName(cluster) != "" {
		return nil // never its own: these names are the RBAC every cluster shares
	}
	return []client.Object{
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: clusterRoleName(cluster)}},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: clusterRoleName(cluster)}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: roleBindingName(cluster, "registration"), Namespace: cluster}},
	}
}
