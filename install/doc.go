// Package install puts corral into clusters a user owns and takes it out
// again: it renders the charts of deploy/charts for the hub or a managed
// cluster's agent, server-side applies the objects in Helm's order (CRDs
// first, Established before anything uses them), waits until a Deployment
// has rolled out, reads what is installed, and deletes what it applied.
// `corral init`, `join`, `clean`, `unjoin`, `get hub-info` and `get
// agent-info` call it, and so does the in-process hub setup of the dev
// fleet and the suites (registration/cli InstallHub); `--output yaml`
// prints the same objects.
package install
