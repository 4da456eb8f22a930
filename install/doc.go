// Package install puts corral into clusters a user owns and takes it out
// again: it renders the charts of deploy/charts for the hub or a managed
// cluster's agent, server-side applies the objects in Helm's order (CRDs
// first, Established before anything uses them), waits until a Deployment
// has rolled out, and deletes what it applied. `corral init`, `corral
// join`, `corral clean` and `corral unjoin` are its callers; their
// `--output yaml` prints the same objects.
package install
