package manifestwork

import (
	"context"
	"fmt"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/corral-dev/corral/work/agent/appliedwork"
)

// executorUser is the user name of a ManifestWork's executor.
func executorUser(e *workv1.ManifestWorkExecutor) (string, error) {
	if e.Subject.Type != workv1.ExecutorSubjectTypeServiceAccount || e.Subject.ServiceAccount == nil {
		return "", fmt.Errorf("executor subject type %q is not supported: use ServiceAccount with a namespace and a name", e.Subject.Type)
	}
	sa := e.Subject.ServiceAccount
	return "system:serviceaccount:" + sa.Namespace + ":" + sa.Name, nil
}

// verbsFor are what the executor must be allowed to do with a manifest's
// object: read it always; create and change it unless it is read only;
// delete it unless the work orphans it.
func verbsFor(m *manifest, opt *workv1.DeleteOption) []string {
	if m.readOnly() {
		return []string{"get", "list", "watch"}
	}
	verbs := []string{"get", "list", "watch", "create", "update", "patch"}
	if id, ok := m.identifier(); ok && !appliedwork.Orphaned(opt, id) {
		verbs = append(verbs, "delete")
	}
	return verbs
}

// authorize asks the managed cluster whether the work's executor may do
// with m's object what applying it takes (SubjectAccessReview); nil when
// the work has no executor.
func (r *Reconciler) authorize(ctx context.Context, work *workv1.ManifestWork, m *manifest) error {
	if work.Spec.Executor == nil {
		return nil
	}
	user, err := executorUser(work.Spec.Executor)
	if err != nil {
		return err
	}
	sa := work.Spec.Executor.Subject.ServiceAccount
	var denied []string
	for _, verb := range verbsFor(m, work.Spec.DeleteOption) {
		attrs := &authorizationv1.ResourceAttributes{
			Verb: verb, Group: m.mapping.Resource.Group, Version: m.mapping.Resource.Version, Resource: m.mapping.Resource.Resource,
			Namespace: m.result.Key.Namespace, Name: m.result.Key.Name,
		}
		if verb == "create" || verb == "list" || verb == "watch" {
			attrs.Name = ""
		}
		if m.mapping.Scope.Name() != meta.RESTScopeNameNamespace {
			attrs.Namespace = ""
		}
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: user, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + sa.Namespace, "system:authenticated"},
			ResourceAttributes: attrs,
		}}
		if err := r.managed.Create(ctx, sar); err != nil {
			return fmt.Errorf("asking whether executor %s may %s %s: %w", user, verb, m.result.Key, err)
		}
		if !sar.Status.Allowed {
			denied = append(denied, verb)
		}
	}
	if len(denied) > 0 {
		return fmt.Errorf("the work's executor %s may not %s %s on the managed cluster: grant it those verbs (a Role or ClusterRole bound to it) or change the executor",
			user, strings.Join(denied, ", "), m.result.Key)
	}
	return nil
}
