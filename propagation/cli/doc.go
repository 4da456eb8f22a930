// Package cli holds the propagation addon's verbs: `corral propagate`,
// which creates a Propagation (or a ClusterPropagation) of hub objects and,
// with --clusters, the Placement it follows; and `corral propagation get`,
// `history`, `rollback` and `delete`. They read and write only the hub's
// apps.corral.dev objects, Placements and cluster set bindings; the
// controllers in propagation/hub do the rest.
package cli
