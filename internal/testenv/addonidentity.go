package testenv

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/corral-dev/corral/addons"
)

// AddonIdentity grants addon's HubRules in cluster's namespace on the hub
// (admin), as the addon manager does, to the addon's group of that
// cluster, and returns a config that acts as the addon's agent there
// (impersonating its user and group): a suite runs an agent half with no
// more than its hub identity may do.
func AddonIdentity(ctx context.Context, admin *rest.Config, cluster string, addon addons.Addon) (*rest.Config, error) {
	kube, err := kubernetes.NewForConfig(admin)
	if err != nil {
		return nil, err
	}
	group := fmt.Sprintf("system:open-cluster-management:cluster:%s:addon:%s", cluster, addon.Name)
	user := fmt.Sprintf("%s:agent:%s", group, addon.Name)
	name := "test-addon-" + addon.Name
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: name}, Rules: addon.HubRules}
	if _, err := kube.RbacV1().Roles(cluster).Create(ctx, role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("granting addon %s its hub rules: %w", addon.Name, err)
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: group}},
	}
	if _, err := kube.RbacV1().RoleBindings(cluster).Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("binding addon %s's hub rules: %w", addon.Name, err)
	}
	cfg := rest.CopyConfig(admin)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: []string{group, "system:authenticated"}}
	return cfg, nil
}
