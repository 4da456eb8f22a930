package webhook

import (
	"context"
	"fmt"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/client-go/kubernetes"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/registration/common"
)

// permission is a verb on a (virtual) subresource, granted per object name
// by RBAC.
type permission struct {
	group, resource, subresource, verb string
}

// The permissions the webhooks check, as OCM defines them.
var (
	joinClusterSet = permission{group: clusterv1.GroupName, resource: "managedclustersets", subresource: "join", verb: "create"}
	bindClusterSet = permission{group: clusterv1.GroupName, resource: "managedclustersets", subresource: "bind", verb: "create"}
	acceptCluster  = permission{group: common.RegisterGroup, resource: "managedclusters", subresource: "accept", verb: "update"}
)

// describe says how to grant p on name, for a refusal message.
func (p permission) describe(name string) string {
	return fmt.Sprintf("%s on %s/%s (API group %s) for %q", p.verb, p.resource, p.subresource, p.group, name)
}

// accessReviewer asks the API server whether a user may do something.
type accessReviewer struct {
	kube kubernetes.Interface
}

// allowed reports whether user has p on the object name.
func (a accessReviewer) allowed(ctx context.Context, user authenticationv1.UserInfo, p permission, name string) (bool, error) {
	ok, err := common.Allowed(ctx, a.kube, user.Username, user.UID, user.Groups, user.Extra, authorizationv1.ResourceAttributes{
		Group: p.group, Resource: p.resource, Subresource: p.subresource, Verb: p.verb, Name: name,
	})
	if err != nil {
		return false, fmt.Errorf("asking the API server whether user %q may %s: %w", user.Username, p.describe(name), err)
	}
	return ok, nil
}
