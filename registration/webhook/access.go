package webhook

import (
	"context"
	"fmt"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
)

// RegisterGroup is the API group of the virtual subresources that guard a
// cluster's registration (accept, clientcertificates).
const RegisterGroup = "register.open-cluster-management.io"

// permission is a verb on a (virtual) subresource, granted per object name
// by RBAC.
type permission struct {
	group, resource, subresource, verb string
}

// The permissions the webhooks check, as OCM defines them.
var (
	joinClusterSet = permission{group: clusterv1.GroupName, resource: "managedclustersets", subresource: "join", verb: "create"}
	bindClusterSet = permission{group: clusterv1.GroupName, resource: "managedclustersets", subresource: "bind", verb: "create"}
	acceptCluster  = permission{group: RegisterGroup, resource: "managedclusters", subresource: "accept", verb: "update"}
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
	extra := make(map[string]authorizationv1.ExtraValue, len(user.Extra))
	for k, v := range user.Extra {
		extra[k] = authorizationv1.ExtraValue(v)
	}
	review, err := a.kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
		Spec: authorizationv1.SubjectAccessReviewSpec{
			User: user.Username, UID: user.UID, Groups: user.Groups, Extra: extra,
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Group: p.group, Resource: p.resource, Subresource: p.subresource, Verb: p.verb, Name: name,
			},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		return false, fmt.Errorf("asking the API server whether user %q may %s: %w", user.Username, p.describe(name), err)
	}
	return review.Status.Allowed, nil
}
