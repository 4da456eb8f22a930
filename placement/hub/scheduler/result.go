package scheduler

import (
	"time"

	clusterv1 "open-cluster-management.io/api/cluster/v1"
)

// Options of one Schedule call.
type Options struct {
	// Now is the time tolerationSeconds and validUntil are judged at.
	Now time.Time
	// Explain records, in Result.Clusters, what each filter and
	// prioritizer said of every cluster; the controller leaves it off.
	Explain bool
}

// Result is what Schedule decided for one placement.
type Result struct {
	// Misconfigured says why the spec cannot be acted on; when it is
	// set, nothing else is.
	Misconfigured error `json:"-"`
	// MisconfiguredMessage is Misconfigured's message, for output.
	MisconfiguredMessage string `json:"misconfigured,omitempty"`
	// Namespace is the placement's namespace, which the sets are bound to.
	Namespace string `json:"-"`
	// BoundSets are the sets bound to the placement's namespace.
	BoundSets []string `json:"boundSets"`
	// EligibleSets are the bound sets the placement may choose from.
	EligibleSets []string `json:"eligibleSets"`
	// Candidates counts the clusters of the eligible sets.
	Candidates int `json:"candidates"`
	// Feasible counts the candidates that passed every filter.
	Feasible int `json:"feasible"`
	// Wanted is numberOfClusters, -1 when every feasible cluster is.
	Wanted int `json:"wanted"`
	// Prioritizers are the weighted prioritizers, in order.
	Prioritizers []Weight `json:"prioritizers"`
	// Selected are the chosen clusters, best first.
	Selected []Decision `json:"selected"`
	// Groups are the decision groups, each with its clusters.
	Groups []Group `json:"groups"`
	// RequeueAfter, when not zero, is when the result changes with time
	// alone: a toleration or a score runs out.
	RequeueAfter time.Duration `json:"requeueAfter,omitempty"`
	// SortByScore orders the decisions by score rather than name.
	SortByScore bool `json:"-"`
	// Margin is how far the last selected cluster's total is above the
	// best one left out: score changes that move totals by less in all
	// cannot change the selection. math.MaxInt64 when none left out could
	// take a place by its score; 0 when any change may (a spread policy).
	Margin int64 `json:"-"`
	// Ranges are, for each resource a prioritizer scaled allocatable
	// by, the least and the most among the feasible clusters.
	Ranges []Range `json:"-"`
	// Clusters explains every cluster, by name (Options.Explain only).
	Clusters []ClusterResult `json:"clusters,omitempty"`
}

// Range is the least and the most allocatable of one resource among the
// feasible clusters, as a resource prioritizer scaled them.
type Range struct {
	Resource clusterv1.ResourceName
	Min, Max float64
}

// Memo is what a hub keeps of a placement's last scheduling, to tell
// which changes can affect it (Plan.Affected, Result.Margin): that it
// ran, the ranges it scaled by, its margin, and whether no cluster
// passed. A hub keeps one per placement, a tenth of the size of the
// Result.
type Memo struct {
	Ranges       []Range
	Margin       int64
	NoneFeasible bool
}

// Memo is what a hub keeps of r.
func (r *Result) Memo() *Memo {
	return &Memo{Ranges: r.Ranges, Margin: r.Margin, NoneFeasible: r.Feasible == 0}
}

// Weight is one prioritizer and its weight.
type Weight struct {
	Name   string `json:"name"`
	Weight int32  `json:"weight"`
}

// Decision is one selected cluster and its total score.
type Decision struct {
	Cluster string `json:"cluster"`
	Score   int64  `json:"score"`
}

// Group is one decision group.
type Group struct {
	Index    int        `json:"index"`
	Name     string     `json:"name,omitempty"`
	Clusters []Decision `json:"clusters"`
}

// ClusterResult explains what the scheduler made of one cluster.
type ClusterResult struct {
	Name string `json:"name"`
	// Filters are the filters that ran, in order; the last one failed
	// when DroppedBy is set.
	Filters []FilterResult `json:"filters"`
	// DroppedBy names the filter that dropped the cluster.
	DroppedBy string `json:"droppedBy,omitempty"`
	// Scores are each prioritizer's score of a feasible cluster.
	Scores []PrioritizerScore `json:"scores,omitempty"`
	// Total is the sum of weight × score.
	Total int64 `json:"total"`
	// Rank is the cluster's place among the feasible ones, from 1.
	Rank     int    `json:"rank,omitempty"`
	Selected bool   `json:"selected"`
	Group    string `json:"group,omitempty"`
	// Note says why a feasible cluster was not selected, or what else
	// counted (a PreferNoSelect taint).
	Note string `json:"note,omitempty"`
}

// FilterResult is one filter's verdict.
type FilterResult struct {
	Filter string `json:"filter"`
	Passed bool   `json:"passed"`
	Detail string `json:"detail,omitempty"`
}

// PrioritizerScore is one prioritizer's score of a cluster.
type PrioritizerScore struct {
	Prioritizer string `json:"prioritizer"`
	Weight      int32  `json:"weight"`
	Score       int64  `json:"score"`
}
