// Package webhook is the hub's admission webhooks for registration: who may
// put a ManagedCluster in a cluster set, accept it, or bind a set to a
// namespace. `corral hub` and the embedded hub of `corral dev up` serve them
// through the one seam SetupWithManager.
//
// # What it admits
//
// ManagedCluster (cluster.open-cluster-management.io/v1), CREATE and UPDATE:
//   - mutating: a cluster without a `cluster.open-cluster-management.io/clusterset`
//     label (or with an empty one) gets `default`. A taint's timeAdded belongs
//     to the hub: a taint that is new, or whose value or effect changed, gets
//     the hub's current time; a taint that stays keeps the time it had.
//   - validating: the name is a DNS-1123 label (it names the cluster
//     namespace); every managedClusterClientConfigs URL is https with a host;
//     taints have a qualified-name key, a known effect, a value of at most
//     1024 characters and no (key, effect) twice; setting
//     hubAcceptsClient to true needs `update` on
//     `register.open-cluster-management.io` managedclusters/accept for the
//     cluster, and is refused while the cluster namespace is terminating;
//     setting, changing or removing the clusterset label needs `create` on
//     `cluster.open-cluster-management.io` managedclustersets/join for the
//     set it leaves and the set it enters. An update is checked only
//     for the fields it changes, so a cluster stored before the webhooks
//     ran can still be updated and deleted.
//
// ManagedClusterSetBinding (cluster.open-cluster-management.io/v1beta2),
// CREATE and UPDATE: a binding is named after the set it binds
// (spec.clusterSet), and creating one needs `create` on managedclustersets/bind
// for that set.
//
// ManagedClusterAddOn and ClusterManagementAddOn (addon.open-cluster-management.io),
// both served as v1alpha1 (stored) and v1beta1: the CRDs' conversion
// webhook, at ConvertAddonsPath, converts between them as
// addons/conversion says, so a v1beta1 client (addon-framework) and a
// v1alpha1 client see one object with one meaning.
//
// Permissions are asked of the hub's API server with SubjectAccessReviews
// for the requesting user, groups and extra, so RBAC with resourceNames
// decides per set and per cluster. A refusal is one line naming the user,
// the permission it lacks and the object.
//
// These are OCM's rules (its registration webhook), with two differences.
// OCM refuses an update that sets a taint's timeAdded itself; corral
// overwrites or keeps the value instead, so that clients which stamp the
// time — corral's own taint controller among them — work whether or not
// webhooks run, and the stored time is always the hub's. And OCM checks
// every field on every update, so a cluster stored malformed could never
// again be updated, not even to remove its finalizer; corral checks what
// changed. corral also refuses taints OCM leaves to the CRD schema (and a
// (key, effect) pair twice, which the schema allows).
//
// Agents need nothing special: an agent creates its ManagedCluster with the
// bootstrap identity, whose role (corral init) includes
// managedclustersets/join, so the default label is allowed; afterwards it
// writes only status, which no webhook sees.
//
// # Serving and registration
//
// Every hub process serves the webhooks over TLS on Options.Port. The
// certificate comes from one of three sources:
//   - Options.CertDir: tls.crt, tls.key and ca.crt, the CA that signed
//     tls.crt, reloaded when they change; kept by someone else.
//   - Options.CertSecret: a Secret on the hub (type kubernetes.io/tls:
//     tls.crt, tls.key, ca.crt and ca.key) that the hub keeps itself. The
//     holder of the Lease below creates it when missing and renews it:
//     the serving certificate (30 days, for the Service's DNS names or the
//     URL's host) after 80% of its life, or at once when it is unusable or
//     for other names; the CA (a year) after 80% of its life. ca.crt holds
//     the current CA then the previous one until it expires, and is the
//     caBundle of the configurations; a serving certificate signed by a
//     new CA is written only once the configurations have trusted that CA
//     for publishGrace, so the API server can verify every certificate
//     served during a rotation. Every hub process watches that one Secret
//     (a field-selected informer, so RBAC by resourceNames suffices) and
//     serves what it holds, with no restart; it keeps the last usable
//     certificate when the Secret is deleted or spoiled, until the holder
//     writes a new one. A hub reached through a Service with no CertDir
//     uses the Secret DefaultCertSecretName in the Service's namespace.
//   - neither: a CA generated in memory at start for this process alone.
//
// The three webhook configurations (named as OCM names them), and the
// spec.conversion of the two addon CRDs, point the hub's API server at one
// hub process: by URL (default https://127.0.0.1:<port>)
// or by Service. Exactly one live hub process keeps them applied: the holder
// of the Lease `corral-hub-webhook` in open-cluster-management, elected among
// every `corral hub` and embedded hub on that API server, separately from
// the controllers' election. The holder applies them (server-side apply,
// field owner corral-hub-webhook) with its own URL or Service and CA, and
// re-applies whenever they change or go (a CRD re-installed by `corral
// init` comes back with no conversion, and is pointed again at once).
// When the holder stops it gives up the Lease and another live hub takes over, pointing the configurations at
// itself; so processes with certificates of their own never fight over the
// caBundle. With a Service, requests reach every replica, so replicas must
// share one certificate: a directory, or the Secret.
//
// Nothing removes the configurations when the last hub stops: their
// failurePolicy is Fail, so while no hub serves, ManagedCluster and binding
// writes (and those of the addons' objects, such as ManifestWorks and
// Propagations) are refused rather than admitted unchecked. `corral init` therefore
// installs no webhook configuration; the first hub that serves registers
// them.
package webhook
