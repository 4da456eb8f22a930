// Package addonowner makes every ManagedClusterAddOn owned by the
// ClusterManagementAddOn of the same name, as OCM's addon manager does:
// the addon framework waits for that owner reference before it registers
// an addon, and the garbage collector removes an addon's
// ManagedClusterAddOns when its ClusterManagementAddOn goes. An addon
// whose ClusterManagementAddOn is annotated
// addon.open-cluster-management.io/lifecycle=self manages this itself and
// is left alone.
//
// It watches ManagedClusterAddOns and ClusterManagementAddOns (mapped to
// the ManagedClusterAddOns of that name); it writes ManagedClusterAddOns'
// owner references.
package addonowner
