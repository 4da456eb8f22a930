// Package agent is the hello addon's agent half. It runs on a managed
// cluster (as `hello-addon agent`, the Deployment the hub half sends) or
// beside it as a hosted agent, and:
//
//   - renews the lease hello in its install namespace on the managed
//     cluster with addon-framework's lease updater; the cluster's agent
//     turns it into the addon's Available condition on the hub;
//   - keeps the ConfigMap hello in its cluster namespace on the hub, with
//     the managed cluster's Kubernetes version, re-read every interval and
//     written only when it changed.
//
// On the hub it uses only the addon's own credentials (the
// hello-hub-kubeconfig Secret), which may touch nothing but that ConfigMap.
package agent
