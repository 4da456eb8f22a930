package scheduler

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
)

// MaxDecisionsPerPage is the most clusters one PlacementDecision holds.
const MaxDecisionsPerPage = 100

// groups divides the selected clusters into decision groups: first each
// predefined group's clusters (those its selector matches and no earlier
// group took), then the rest, each split into groups of at most
// clustersPerDecisionGroup, by cluster name. There is always at least one
// group, empty when nothing is selected.
func groups(c *compiled, selected []Decision, feasible []*clusterv1.ManagedCluster, chosen []int) []Group {
	size, _ := groupLength(c.perGroup, len(selected))
	taken := make([]bool, len(selected))
	var out []Group
	for _, g := range c.groups {
		var members []Decision
		for k, i := range chosen {
			if !taken[k] {
				if ok, _ := g.sel.Matches(feasible[i], false); ok {
					members = append(members, selected[k])
					taken[k] = true
				}
			}
		}
		out = appendGroups(out, g.name, members, size)
	}
	var rest []Decision
	for k := range selected {
		if !taken[k] {
			rest = append(rest, selected[k])
		}
	}
	out = appendGroups(out, "", rest, size)
	if len(out) == 0 {
		out = []Group{{Index: 0, Clusters: []Decision{}}}
	}
	return out
}

func appendGroups(out []Group, name string, members []Decision, size int) []Group {
	slices.SortFunc(members, func(a, b Decision) int { return strings.Compare(a.Cluster, b.Cluster) })
	for len(members) > 0 {
		n := min(size, len(members))
		if n <= 0 {
			n = len(members)
		}
		out = append(out, Group{Index: len(out), Name: name, Clusters: members[:n:n]})
		members = members[n:]
	}
	return out
}

// Page is one PlacementDecision: its name, labels and decisions.
type Page struct {
	Name       string
	GroupIndex int
	GroupName  string
	Decisions  []clusterv1beta1.ClusterDecision
}

// Labels are the labels the api gives a PlacementDecision: its
// placement, its decision group's index and name.
func (pg *Page) Labels(placement string) map[string]string {
	return map[string]string{
		clusterv1beta1.PlacementLabel:          placement,
		clusterv1beta1.DecisionGroupIndexLabel: fmt.Sprint(pg.GroupIndex),
		clusterv1beta1.DecisionGroupNameLabel:  pg.GroupName,
	}
}

// Pages splits the result's groups into PlacementDecisions of at most
// MaxDecisionsPerPage clusters, named <placement>-decision-<n> with n
// counting from 1 across the groups, as OCM names them; each group has at
// least one page. A group's clusters are ordered by name, or with sortBy
// Score by score (highest first, then name) across its pages, so that the
// first page holds the best: the api orders the decisions, not each page.
func (r *Result) Pages(placement string) []Page {
	var out []Page
	for _, g := range r.Groups {
		clusters := g.Clusters
		if r.SortByScore {
			clusters = slices.Clone(clusters) // by name already: stable keeps name order among ties
			slices.SortStableFunc(clusters, func(a, b Decision) int { return cmp.Compare(b.Score, a.Score) })
		}
		for first := true; first || len(clusters) > 0; first = false {
			n := min(MaxDecisionsPerPage, len(clusters))
			page := Page{Name: fmt.Sprintf("%s-decision-%d", placement, len(out)+1), GroupIndex: g.Index, GroupName: g.Name,
				Decisions: make([]clusterv1beta1.ClusterDecision, 0, n)}
			for _, d := range clusters[:n] {
				page.Decisions = append(page.Decisions, clusterv1beta1.ClusterDecision{ClusterName: d.Cluster, Score: d.Score})
			}
			out = append(out, page)
			clusters = clusters[n:]
		}
	}
	return out
}

// GroupSelector is the label selector of every PlacementDecision of a
// placement.
func GroupSelector(placement string) labels.Selector {
	return labels.SelectorFromSet(labels.Set{clusterv1beta1.PlacementLabel: placement})
}
