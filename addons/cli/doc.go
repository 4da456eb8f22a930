// Package cli is `corral addon`: list the addons the hub knows
// (ClusterManagementAddOns) with where they are enabled and their health,
// enable and disable them on clusters (ManagedClusterAddOns in the
// clusters' namespaces), and show one addon's state per cluster.
//
// It writes ManagedClusterAddOn v1alpha1, the version the hub stores, so
// that it works whether or not the hub serves the v1beta1 conversion.
// enable checks everything first (every addon has a ClusterManagementAddOn,
// every cluster is accepted) and writes nothing when one check fails.
// Enable is also a library call (Enable, WaitForAddons) for `corral dev
// up --addons`.
package cli
