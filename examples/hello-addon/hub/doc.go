// Package hub is the hello addon's hub half, built on addon-framework's
// addonfactory. It runs on the hub (as `hello-addon manager`) and, for
// every ManagedClusterAddOn named hello:
//
//   - renders the agent's manifests (manifests/templates: a Deployment, its
//     ServiceAccount and the Role that lets it renew its lease) for the
//     cluster, which the framework sends to the cluster as the ManifestWork
//     addon-hello-deploy-0 in its cluster namespace; the cluster's work agent
//     applies it;
//   - declares one registration: a client certificate from the
//     kube-apiserver-client signer with the framework's default subject, and
//     approves the CSR the cluster's agent makes for it only when its subject
//     is exactly that and it was requested by that cluster's own identity;
//   - gives that identity a Role in the cluster namespace on the hub, and
//     nothing else: it may create the ConfigMap hello there and update it;
//   - reads the addon's health from its lease (the agent renews it on the
//     managed cluster and the cluster's agent reports it).
//
// It never talks to a managed cluster: everything reaches a cluster
// through the hub.
package hub
