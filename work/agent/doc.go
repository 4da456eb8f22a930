// Package agent is the work addon's agent half: it applies the
// ManifestWorks in its cluster namespace on the hub to the managed cluster
// and reports their status back (work/agent/manifestwork), tracks what it
// applied in AppliedManifestWorks (work/agent/appliedwork), applies each
// manifest with its update strategy (work/agent/apply) and reads status
// feedback (work/agent/status).
//
// Run is the seam the work addon's RunAgent calls; SetupWithManager is the
// same wiring on a manager the caller owns.
package agent
