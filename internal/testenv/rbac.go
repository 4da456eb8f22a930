package testenv

import (
	"context"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Granted says whether the API server of c already lets user do
// everything rules name in namespace ("" for cluster scope). A new Role or
// binding takes effect a moment after it is written (the authorizer reads
// a cache); a spec that goes on to expect a refusal from something other
// than RBAC waits for this first.
func Granted(ctx context.Context, c client.Client, user, namespace string, rules ...rbacv1.PolicyRule) (bool, error) {
	for _, rule := range rules {
		if ok, err := grantedRule(ctx, c, user, namespace, rule); !ok || err != nil {
			return false, err
		}
	}
	return true, nil
}

func grantedRule(ctx context.Context, c client.Client, user, namespace string, rule rbacv1.PolicyRule) (bool, error) {
	names := rule.ResourceNames
	if len(names) == 0 {
		names = []string{""}
	}
	for _, group := range rule.APIGroups {
		for _, resource := range rule.Resources {
			resource, sub, _ := strings.Cut(resource, "/")
			for _, verb := range rule.Verbs {
				for _, name := range names {
					review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
						User: user,
						ResourceAttributes: &authorizationv1.ResourceAttributes{
							Namespace: namespace, Verb: verb, Group: group, Resource: resource, Subresource: sub, Name: name,
						},
					}}
					if err := c.Create(ctx, review); err != nil || !review.Status.Allowed {
						return false, err
					}
				}
			}
		}
	}
	return true, nil
}
