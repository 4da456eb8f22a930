// Package agent is `corral agent`, a managed cluster's run mode: Options
// (its flags, and what an in-process caller sets beside them) and Run,
// which runs the registration agent (registration/agent) and, beside it,
// the addon host (addons/host) with the built-in addons' agent halves.
// RunWithAddonHost is the piece `corral join` reuses; ClusterFlags and
// ClusterMeta are the flags every verb run against a managed cluster
// shares. The binary, `corral join`, the dev fleet and the interop suite
// start the agent through it.
package agent
