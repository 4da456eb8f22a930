package manifestwork

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/corral-dev/corral/work/agent/appliedwork"
	"github.com/corral-dev/corral/work/agent/apply"
)

// executorClients are the managed cluster clients that impersonate
// executors, one per service account, made when a work first needs it.
type executorClients struct {
	config  *rest.Config
	mu      sync.Mutex
	clients map[string]dynamic.Interface
}

func newExecutorClients(config *rest.Config) *executorClients {
	return &executorClients{config: config, clients: map[string]dynamic.Interface{}}
}

// client impersonates the executor's service account. Only the user is
// set: for a service account the API server adds its groups
// (system:serviceaccounts, system:serviceaccounts:<namespace>) itself,
// whereas naming them would need the impersonate verb on groups besides
// serviceaccounts, more than OCM's work agent role grants.
func (c *executorClients) client(e *workv1.ManifestWorkExecutor) (dynamic.Interface, error) {
	user, err := executorUser(e)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if client, ok := c.clients[user]; ok {
		return client, nil
	}
	cfg := rest.CopyConfig(c.config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("managed cluster client impersonating executor %s: %w", user, err)
	}
	c.clients[user] = client
	return client, nil
}

// writer is the client that writes what work applies: the agent's own,
// or for a work with an executor one impersonating it, so that the
// managed API server holds every write to the executor's RBAC, escalation
// checks included (a SubjectAccessReview cannot ask whether binding a
// role grants more than the executor holds).
func (r *Reconciler) writer(work *workv1.ManifestWork) (dynamic.Interface, error) {
	if work.Spec.Executor == nil {
		return r.dynamic, nil
	}
	return r.executors.client(work.Spec.Executor)
}

// refusedToExecutor is err told as the managed API server's refusal of
// the work's executor when it is one, nil otherwise: the write went
// through a client impersonating the executor and was forbidden, say by
// RBAC's escalation check.
func refusedToExecutor(work *workv1.ManifestWork, key apply.Key, err error) error {
	if work.Spec.Executor == nil || !apierrors.IsForbidden(err) {
		return nil
	}
	user, _ := executorUser(work.Spec.Executor)
	return fmt.Errorf("the work's executor %s may not apply %s, the managed cluster says: %w", user, key, err)
}

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
	var denied []string
	for _, verb := range verbsFor(m, work.Spec.DeleteOption) {
		namespace, name := m.result.Key.Namespace, m.result.Key.Name
		if m.mapping.Scope.Name() != meta.RESTScopeNameNamespace {
			namespace = ""
		}
		allowed, err := r.executorMay(ctx, work.Spec.Executor, verb, m.mapping.Resource, namespace, name)
		if err != nil {
			return fmt.Errorf("asking whether executor %s may %s %s: %w", user, verb, m.result.Key, err)
		}
		if !allowed {
			denied = append(denied, verb)
		}
	}
	if len(denied) > 0 {
		return fmt.Errorf("the work's executor %s may not %s %s on the managed cluster: grant it those verbs (a Role or ClusterRole bound to it) or change the executor",
			user, strings.Join(denied, ", "), m.result.Key)
	}
	return nil
}

// executorMay asks the managed cluster (SubjectAccessReview, through the
// answer cache) whether the executor may do verb with the object of gvr
// named name in namespace ("" for a cluster-scoped one); create, list and
// watch are asked of no name.
func (r *Reconciler) executorMay(ctx context.Context, e *workv1.ManifestWorkExecutor, verb string, gvr schema.GroupVersionResource, namespace, name string) (bool, error) {
	user, err := executorUser(e)
	if err != nil {
		return false, err
	}
	attrs := &authorizationv1.ResourceAttributes{Verb: verb, Group: gvr.Group, Version: gvr.Version, Resource: gvr.Resource, Namespace: namespace, Name: name}
	if verb == "create" || verb == "list" || verb == "watch" {
		attrs.Name = ""
	}
	sa := e.Subject.ServiceAccount
	spec := authorizationv1.SubjectAccessReviewSpec{
		User: user, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + sa.Namespace, "system:authenticated"},
		ResourceAttributes: attrs,
	}
	return r.access.allowed(spec, func() (bool, error) {
		sar := &authorizationv1.SubjectAccessReview{Spec: spec}
		err := r.managed.Create(ctx, sar)
		return sar.Status.Allowed, err
	})
}

// executorMayDelete is, for a deleted work with an executor, whether
// releasing res may delete it: only if the executor may delete it now. An
// object it may not delete (a grant revoked since, or a work that orphaned
// it when applied and deletes it now) is let go of but kept. A work without
// an executor deletes as the agent.
func (r *Reconciler) executorMayDelete(ctx context.Context, work *workv1.ManifestWork) func(workv1.AppliedManifestResourceMeta) bool {
	if work.Spec.Executor == nil {
		return nil
	}
	return func(res workv1.AppliedManifestResourceMeta) bool {
		allowed, err := r.executorMay(ctx, work.Spec.Executor, "delete", appliedwork.GVR(res), res.Namespace, res.Name)
		if err != nil || !allowed {
			ctrl.LoggerFrom(ctx).V(1).Info("Keeping an object the work's executor may not delete", "resource", res.Resource,
				"namespace", res.Namespace, "name", res.Name, "err", err)
			return false
		}
		return true
	}
}

// accessRecheck is how long an executor's access review is believed: a
// work applies a thousand objects without asking a thousand times, and a
// grant or revocation is seen within this long (a work with a refused
// manifest looks again after it).
const accessRecheck = time.Minute

// accessCache remembers SubjectAccessReview answers for accessRecheck.
type accessCache struct {
	clock   clock.Clock
	mu      sync.Mutex
	answers map[string]accessAnswer
	swept   time.Time
}

type accessAnswer struct {
	allowed bool
	at      time.Time
}

func newAccessCache(c clock.Clock) *accessCache {
	return &accessCache{clock: c, answers: map[string]accessAnswer{}}
}

// allowed is the remembered answer for spec, or ask's, remembered.
func (c *accessCache) allowed(spec authorizationv1.SubjectAccessReviewSpec, ask func() (bool, error)) (bool, error) {
	a := spec.ResourceAttributes
	key := strings.Join([]string{spec.User, a.Verb, a.Group, a.Version, a.Resource, a.Namespace, a.Name}, "\x00")
	now := c.clock.Now()
	c.mu.Lock()
	answer, ok := c.answers[key]
	if ok && now.Sub(answer.at) >= accessRecheck {
		delete(c.answers, key)
		ok = false
	}
	c.mu.Unlock()
	if ok {
		return answer.allowed, nil
	}
	allowed, err := ask()
	if err != nil {
		return false, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.answers[key] = accessAnswer{allowed: allowed, at: now}
	if now.Sub(c.swept) >= accessRecheck {
		// Answers nobody asks for again (a deleted work's) go too.
		for k, a := range c.answers {
			if now.Sub(a.at) >= accessRecheck {
				delete(c.answers, k)
			}
		}
		c.swept = now
	}
	return allowed, nil
}
