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

// RBAC names, as OCM's agents and tools expect them.
const (
	// RegistrationClusterRole is shared by every cluster, bound in each
	// cluster namespace: leases, its addons' status, events.
	RegistrationClusterRole = "open-cluster-management:managedcluster:registration"
	// WorkClusterRole is shared by every cluster, bound in each cluster
	// namespace: ManifestWorks and their status, events.
	WorkClusterRole = "open-cluster-management:managedcluster:work"
)

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

// roleBindings bind the shared roles in the cluster's own namespace only.
func roleBindings(cluster string) []*rbacac.RoleBindingApplyConfiguration {
	bind := func(role, clusterRole string) *rbacac.RoleBindingApplyConfiguration {
		return rbacac.RoleBinding(roleBindingName(cluster, role), cluster).
			WithLabels(clusterLabels(cluster)).
			WithRoleRef(rbacac.RoleRef().WithAPIGroup(rbacv1.GroupName).WithKind("ClusterRole").WithName(clusterRole)).
			WithSubjects(groupSubject(cluster))
	}
	return []*rbacac.RoleBindingApplyConfiguration{
		bind("registration", RegistrationClusterRole),
		bind("work", WorkClusterRole),
	}
}

// RBAC is what accepting a cluster grants its identity, in the order the
// hub writes it: its ClusterRole and ClusterRoleBinding, then the
// RoleBindings in its namespace.
func RBAC(cluster string) []runtime.ApplyConfiguration {
	out := []runtime.ApplyConfiguration{clusterRole(cluster), clusterRoleBinding(cluster)}
	for _, rb := range roleBindings(cluster) {
		out = append(out, rb)
	}
	return out
}

// SharedClusterRoles are the roles every cluster namespace binds; the hub
// installs them once.
func SharedClusterRoles() []*rbacac.ClusterRoleApplyConfiguration {
	return []*rbacac.ClusterRoleApplyConfiguration{
		rbacac.ClusterRole(RegistrationClusterRole).WithRules(
			rule("coordination.k8s.io", []string{"leases"}, "get", "list", "watch", "update"),
			rule("addon.open-cluster-management.io", []string{"managedclusteraddons"}, "get", "list", "watch"),
			rule("addon.open-cluster-management.io", []string{"managedclusteraddons/status"}, "patch", "update"),
			rule("events.k8s.io", []string{"events"}, "create", "list", "watch"),
		),
		rbacac.ClusterRole(WorkClusterRole).WithRules(
			rule("", []string{"events"}, "create", "patch", "update"),
			rule("events.k8s.io", []string{"events"}, "create", "patch", "update"),
			rule("work.open-cluster-management.io", []string{"manifestworks"}, "get", "list", "watch", "update", "patch", "delete"),
			rule("work.open-cluster-management.io", []string{"manifestworks/status"}, "patch", "update"),
		),
	}
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
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: roleBindingName(cluster, "work"), Namespace: cluster}},
	}
}
