package manager

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
	"k8s.io/client-go/kubernetes"
	"open-cluster-management.io/addon-framework/pkg/agent"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	ctrl "sigs.k8s.io/controller-runtime"
)

// FieldOwner is the field manager of what the addon manager writes.
const FieldOwner = "corral-addon-manager"

// RBACName is the name of the Role and RoleBinding that give an addon's
// agent its HubRules in a cluster namespace.
func RBACName(addon string) string {
	return "open-cluster-management:addon:" + addon
}

// permissionConfig returns the PermissionConfig of an addon with rules:
// a Role with the rules in the cluster namespace, bound to the addon's
// group of that cluster (agent.DefaultGroups' first, which only that
// cluster's addon agent is in), both owned by the ManagedClusterAddOn so
// that the garbage collector removes them when the addon is disabled.
func permissionConfig(kube kubernetes.Interface, rules []rbacv1.PolicyRule) agent.PermissionConfigFunc {
	return func(ctx context.Context, cluster *clusterv1.ManagedCluster, addon *addonv1beta1.ManagedClusterAddOn) error {
		if addon.DeletionTimestamp != nil {
			return nil // the garbage collector takes the RBAC with it
		}
		name, ns := RBACName(addon.Name), cluster.Name
		owner := metav1ac.OwnerReference().
			WithAPIVersion(addonv1beta1.GroupVersion.String()).WithKind("ManagedClusterAddOn").
			WithName(addon.Name).WithUID(addon.UID).WithBlockOwnerDeletion(true)
		labels := map[string]string{addonv1beta1.AddonLabelKey: addon.Name}
		role := rbacv1ac.Role(name, ns).WithLabels(labels).WithOwnerReferences(owner)
		for _, r := range rules {
			role.WithRules(rbacv1ac.PolicyRule().WithVerbs(r.Verbs...).WithAPIGroups(r.APIGroups...).
				WithResources(r.Resources...).WithResourceNames(r.ResourceNames...).WithNonResourceURLs(r.NonResourceURLs...))
		}
		binding := rbacv1ac.RoleBinding(name, ns).WithLabels(labels).WithOwnerReferences(owner).
			WithRoleRef(rbacv1ac.RoleRef().WithAPIGroup(rbacv1.GroupName).WithKind("Role").WithName(name)).
			WithSubjects(rbacv1ac.Subject().WithAPIGroup(rbacv1.GroupName).WithKind(rbacv1.GroupKind).
				WithName(agent.DefaultGroups(cluster.Name, addon.Name)[0]))
		apply := metav1.ApplyOptions{FieldManager: FieldOwner, Force: true}
		if _, err := kube.RbacV1().Roles(ns).Apply(ctx, role, apply); err != nil {
			return fmt.Errorf("applying the Role of addon %s in %s: %w", addon.Name, ns, err)
		}
		if _, err := kube.RbacV1().RoleBindings(ns).Apply(ctx, binding, apply); err != nil {
			return fmt.Errorf("applying the RoleBinding of addon %s in %s: %w", addon.Name, ns, err)
		}
		ctrl.LoggerFrom(ctx).V(4).Info("Applied an addon's hub RBAC", "addon", addon.Name, "namespace", ns)
		return nil
	}
}
