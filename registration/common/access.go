package common

import (
	"context"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// RegisterGroup is the API group of the virtual subresources that guard a
// cluster's registration: managedclusters/accept and
// managedclusters/clientcertificates.
const RegisterGroup = "register.open-cluster-management.io"

// Allowed asks the API server, with a SubjectAccessReview, whether user
// (with uid, groups and extra, as an admission request or a CSR carries
// them) may do what attrs describe. The error is the API server's, for the
// caller to say what it was asking.
func Allowed[V ~[]string](ctx context.Context, kube kubernetes.Interface, user, uid string, groups []string, extra map[string]V,
	attrs authorizationv1.ResourceAttributes,
) (bool, error) {
	extras := make(map[string]authorizationv1.ExtraValue, len(extra))
	for k, v := range extra {
		extras[k] = authorizationv1.ExtraValue(v)
	}
	review, err := kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
		Spec: authorizationv1.SubjectAccessReviewSpec{User: user, UID: uid, Groups: groups, Extra: extras, ResourceAttributes: &attrs},
	}, metav1.CreateOptions{})
	if err != nil {
		return false, err
	}
	return review.Status.Allowed, nil
}
