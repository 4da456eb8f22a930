// Package conversion converts ManagedClusterAddOn and ClusterManagementAddOn
// between the two versions the api module serves: v1alpha1, the version
// the hub's API server stores, and v1beta1. The hub's webhook server
// (registration/webhook) serves Handler as the CRDs' conversion webhook.
//
// The field mapping is the api module's own (addon/v1beta1/conversion.go):
// registrations' signerName+subject ↔ type+kubeClient/customSigner, the
// status-level kubeClientDriver ↔ each kubeClient registration's driver,
// a ClusterManagementAddOn's supportedConfigs ↔ defaultConfigs (with the
// module's reserved name for "no default"). What v1beta1 has no field for
// is carried in annotations of the v1beta1 object and restored, and the
// annotation removed, on the way back, so a v1alpha1 object read and
// written back as v1beta1 is stored as it was:
//   - spec.installNamespace in addon.open-cluster-management.io/v1alpha1-install-namespace,
//     as OCM does: addon-framework reads the install namespace from it.
//   - the deprecated status.addOnConfiguration (and a ClusterManagementAddOn's
//     spec.addOnConfiguration), a kubeClientDriver with no kubeClient
//     registration to hold it, a kube-client registration's
//     organizationUnit, and a configReference's deprecated inline name that
//     differs from its desiredConfig's, in V1alpha1FieldsAnnotation.
//
// A v1beta1 object written and read back loses only what v1alpha1 storage
// cannot hold and v1beta1 clients do not write: different drivers on
// several kubeClient registrations come back as the first one's.
package conversion
