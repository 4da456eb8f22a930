// Package unreachable marks the addons of a cluster whose agent stopped
// heartbeating as Unknown, as OCM's hub does (the addon health check of
// its registration hub): when a ManagedCluster's Available condition is
// Unknown, nothing on the cluster reports its addons any more, so each
// ManagedClusterAddOn in its namespace gets Available=Unknown with the
// cluster's reason and message (ManagedClusterLeaseUpdateStopped, from the
// lease controller). The addon labels (addonfeature) then say
// `unreachable`. A cluster that is False is left to its addons' agents,
// and so is one that comes back: its agent reports its addons again.
//
// It watches ManagedClusters whose Available condition becomes Unknown
// (or changes reason or message while Unknown), not their other updates;
// it writes ManagedClusterAddOns' Available condition.
package unreachable
