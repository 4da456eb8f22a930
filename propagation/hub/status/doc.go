// Package status writes the members' aggregated status into the hub
// templates of (Cluster)Propagations: for each Deployment, StatefulSet,
// DaemonSet, ReplicaSet and Job of the delivered revision, the status its
// clusters feed back through the propagation's ManifestWorks, summed by
// aggregate.Status, becomes the template's own `.status`, so that
// `kubectl rollout status` and Argo CD's health checks read the template
// on the hub as if it were one cluster's object. An object out of an
// envelope (annotated apps.corral.dev/envelope) has no template on the
// hub: its status is fed back, but summed into nothing.
//
// It owns the feedback rules of the works (ManifestConfigs, given to the
// distribute controller through distribute.Options.ManifestConfigs: the
// rules of aggregate.FeedbackRules for every manifest of a kind
// aggregate.Supported, whatever the propagation's statusAggregation, since
// the hook sees the manifests only) and the templates' status subresource.
//
// It watches Propagations, ClusterPropagations and the ManifestWorks
// labelled as theirs (apps.corral.dev/propagation and, for a Propagation,
// apps.corral.dev/propagation-namespace). It reads the delivered revision
// (status.deliveredRevision) and the works' status feedback, and writes
// each template's /status, guarded by the resourceVersion read, only when
// the aggregated status differs from the template's. With
// statusAggregation Disabled it writes nothing.
//
// The members are the clusters of status.clusters and those holding one
// of the propagation's works. A cluster without a work, or whose object
// is not of the delivered revision, holds the template's
// observedGeneration back. Which revision an object is of is read from
// the object itself: every delivered object carries the
// apps.corral.dev/revision label and the feedback rules return it
// (aggregate.FeedbackRevision), so aggregate.NewMember is given the
// delivered revision, and a member that still reports an older label is
// outdated even though its work agent applied the new spec and has not
// read the object again yet. The work-based check stays for an object
// that feeds no label back (delivered before objects carried it, or by a
// work agent that evaluates no such rule): then a member is outdated when
// its work carries another revision or its agent has not applied the
// work's current spec (its Applied condition's observedGeneration).
//
// corral's hub runs no workload controllers, so nothing else writes a
// template's status. On a hub that does run them (a kube-controller-manager
// reconciling Deployments), set statusAggregation: Disabled, or deliver
// the workloads inside an envelope: the two writers would fight.
package status
