// Package agent is `corral agent`, a managed cluster's run mode: Options
// (its flags, and what an in-process caller sets beside them) and Run,
// which runs the registration agent (registration/agent) and, beside it,
// the addon host (addons/host) with the built-in addons' agent halves.
// RunAddonHost and RunWithAddonHost are the pieces `corral join` and the
// dev fleet reuse; ClusterFlags and ClusterMeta are the flags every verb
// run against a managed cluster shares. The binary, `corral join`, the dev
// fleet and the suites all start the agent through it.
package agent
