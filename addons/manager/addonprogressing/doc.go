// Package addonprogressing sets the Progressing condition of
// ManagedClusterAddOns, with the reasons OCM's addon manager uses, and each
// config's lastAppliedConfig once the addon runs with it (what a rollout of
// configs waits for).
//
// Reconciler does it for the built-in addons whose hub halves run in the
// process. A built-in addon deploys no ManifestWork (its agent half runs in
// `corral agent`), so its configs are applied once their spec hashes are
// known: until every desired config has one, Progressing is True
// (Progressing); then it is False (Completed). A config of a type the addon
// does not support makes it False (ConfigurationUnsupported).
//
// WorkReconciler does it for every other addon, whose agent arrives as
// ManifestWorks rendered by the addon framework (SetWorkProgressing): it
// is Completed once every work of the addon was rendered with the desired
// configs and is Applied and Available. It runs with the addon lifecycle.
//
// Available (lease-based: the cluster's agent reports it) and Degraded (the
// agent's to report) are not written here.
//
// Reconciler watches the built-in addons' ManagedClusterAddOns;
// WorkReconciler the others', their ClusterManagementAddOns and the
// ManifestWorks labelled with an addon's name. Both write
// ManagedClusterAddOns' status.
package addonprogressing
