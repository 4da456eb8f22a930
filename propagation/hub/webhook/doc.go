// Package webhook is the propagation addon's validating admission
// webhooks, for CREATE and UPDATE of Propagations and ClusterPropagations
// (apps.corral.dev/v1alpha1), and of OverridePolicies and
// ClusterOverridePolicies (PolicyValidator: override.Validate, what
// their schema cannot check, such as a JSON patch value or a CEL cluster
// selector). It owns no objects and watches nothing; it answers the
// hub's API server, asking it in turn with SubjectAccessReviews. The hub's
// webhook server (registration/webhook) serves it, and registers its
// ValidatingWebhookConfiguration, only where the addon's hub half runs
// (Webhooks is the addon's addons.Addon.HubWebhooks).
//
// For propagations, it refuses, each in one line:
//   - a selector of the wrong scope, as the hub's RESTMapper says: a
//     Propagation selecting a cluster-scoped kind, or a ClusterPropagation
//     selecting a namespaced kind (it brings those through a Namespace). A
//     kind the hub does not serve (yet) is admitted: the selector
//     controller reports it as a condition, and looks again;
//   - a selector whose objects the writer may not read: a propagation
//     copies objects to clusters, so without this a user who may create
//     Propagations but not read Secrets could deliver them to a cluster it
//     controls. Reading is `get` of the object for a selector by name, and
//     `get` and `list` of the kind otherwise; in the Propagation's
//     namespace, or cluster-wide for a ClusterPropagation. A Namespace
//     selected with its contents (selectionScope NamespaceWithResources,
//     the default) also needs `get` and `list` of every resource (API group
//     `*`, resource `*`) in that namespace, or cluster-wide for a Namespace
//     selector by labels or of every Namespace. A kind the hub does not
//     serve is checked under the resource its kind guesses (lowercase
//     plural), which is what a CRD installed later usually calls it;
//   - for a ClusterPropagation, a Placement the writer may not `get`;
//   - a new or changed spec.replicaScheduling whose weights' cluster
//     selectors do not compile (CEL included).
//
// The permissions asked are the requesting user's, groups and extra, so
// RBAC with resourceNames decides per object.
//
// An UPDATE is checked only for what it changes, so that an admin may pin
// or roll back, or remove a finalizer from, someone else's propagation
// without holding its creator's rights, and a propagation stored before
// the webhook ran may still be updated. A selector that is new or changed
// is checked; a placement ref that is new (by namespace and name) is
// checked, and then every selector is, since the update sends everything
// the propagation selects to clusters it did not reach before. A pin, a
// changed rolloutStrategy, deletionPolicy or statusAggregation is
// admitted as it is: it delivers what was already admitted, where it was
// already going.
//
// What a propagation delivers can change after admission without a
// write this webhook sees: a Placement's selection (whoever may edit a
// Placement redirects every delivery that names it, as with
// ManifestWorkReplicaSets), new objects matching a label selector (the
// writer was allowed to list them all), and an envelope's contents
// (reading the ConfigMap is the permission checked: docs/security.md).
package webhook
