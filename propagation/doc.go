// Package propagation is the propagation addon: native objects on the hub
// as templates, delivered by OCM Placements to the clusters as
// ManifestWorks, with revisions, rollback and their status back on the
// hub. It has a hub half only; any work agent delivers what it writes.
// docs/propagation.md is the design and says what is built so far: the
// API (api/v1alpha1), the revision computations (hub/revision), the
// selector controller writing revisions (hub/selector) and the addon's
// seam (addon.go), which addons/builtin does not list yet.
package propagation
