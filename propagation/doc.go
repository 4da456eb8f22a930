// Package propagation is the propagation addon: native objects on the hub
// as templates, delivered by OCM Placements to the clusters as
// ManifestWorks, with revisions, rollback and their status back on the
// hub. It has a hub half only; any work agent delivers what it writes.
// docs/propagation.md is the design and says what is built so far: the
// API (api/v1alpha1) and the revision computations (hub/revision). The
// addon's seam (addon.go, as health/ has) comes with its controllers.
package propagation
