// Package addonprogressing sets the Progressing condition of the built-in
// addons' ManagedClusterAddOns, with the reasons OCM's addon manager uses.
// A built-in addon deploys no ManifestWork (its agent half runs in
// `corral agent`), so its configs are applied once their spec hashes are
// known: until every desired config has one, Progressing is True
// (Progressing); then it is False (Completed) and each config's
// lastAppliedConfig is its desired one. A config of a type the addon does
// not support makes it False (ConfigurationUnsupported). Third-party
// addons, whose agents arrive as ManifestWorks, are left to the work-based
// rules (not done here yet).
//
// Available (lease-based for built-ins: the agent side reports it) and
// Degraded (the agent's to report) are not written here.
//
// It watches the built-in addons' ManagedClusterAddOns; it writes their
// status.
package addonprogressing
