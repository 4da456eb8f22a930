// Package aggregate turns the member clusters' status of a propagated
// workload into the status of its template on the hub, so that `kubectl
// rollout status` and Argo CD's health checks read the template as if it
// were one cluster's object.
//
// It owns, for Deployment, StatefulSet, DaemonSet, ReplicaSet and Job:
// the status feedback rules the propagation's ManifestWorks carry
// (FeedbackRules: scalar JSONPaths, which any OCM work agent reads), the
// reading of a cluster's fed-back values (NewMember), and the aggregated
// `.status` (Status): counters summed; `observedGeneration` the
// template's `metadata.generation` only when every cluster observed its
// own object's generation and, on its own, passes the check `kubectl
// rollout status` makes against the template's spec — otherwise lower,
// so that kubectl keeps waiting. Summed counters alone cannot say a
// rollout is done: two clusters of a 4-replica Deployment, one with 4
// updated and one still at 2, sum to 6 updated, over the 4 kubectl asks
// for.
//
// It is pure: it reads and writes nothing. The propagation hub status
// step writes the rules into the works and the result into the
// templates' status subresource.
package aggregate
