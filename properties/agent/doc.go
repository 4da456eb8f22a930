// Package agent is the properties addon's agent half. Every interval
// (with jitter) it collects the managed cluster's properties (Collect: the
// API server's version, the nodes' count, summed capacity and allocatable,
// platform, product, region and zones), makes the well-known ones
// ClusterClaims on the managed cluster labelled api.LabelClaimOwner
// (creating, updating and deleting only those; the CRD is installed by
// the addon), lists the user's own ClusterClaims, bounds all claims
// (api.Bound) and writes the report (api.Report) into the ConfigMap
// api.ReportName in its cluster namespace on the hub — only when a
// property changed, so a quiet cluster writes nothing and a busy one at
// most once an interval.
//
// It reads Nodes and writes ClusterClaims on the managed cluster, and
// writes one ConfigMap on the hub, as the addon's own hub identity.
package agent
