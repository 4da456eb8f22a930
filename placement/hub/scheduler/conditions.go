package scheduler

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
)

// Reasons of the PlacementSatisfied condition (OCM's, so that tools that
// read them keep working), given as OCM v1.2.0 gives them: in order, no
// binding, no bound set named, no cluster in the eligible sets, no
// cluster selected (NoManagedClusterMatched, whatever numberOfClusters
// is), fewer selected than numberOfClusters, all selected.
const (
	ReasonNoBindings          = "NoManagedClusterSetBindings"
	ReasonNoIntersection      = "NoIntersection"
	ReasonSetsEmpty           = "AllManagedClusterSetsEmpty"
	ReasonNoClusterMatched    = "NoManagedClusterMatched"
	ReasonNotAllScheduled     = "NotAllDecisionsScheduled"
	ReasonAllScheduled        = "AllDecisionsScheduled"
	ReasonMisconfiguredSpec   = "Misconfigured"
	ReasonConfigurationPassed = "Succeedconfigured"
)

// Conditions are the PlacementSatisfied and PlacementMisconfigured
// conditions the result calls for, at the placement's generation.
func (r *Result) Conditions(generation int64) []metav1.Condition {
	misconfigured := metav1.Condition{Type: clusterv1beta1.PlacementConditionMisconfigured, ObservedGeneration: generation,
		Status: metav1.ConditionFalse, Reason: ReasonConfigurationPassed, Message: "Placement configurations check pass"}
	if r.Misconfigured != nil {
		misconfigured.Status, misconfigured.Reason, misconfigured.Message = metav1.ConditionTrue, ReasonMisconfiguredSpec, r.Misconfigured.Error()
		satisfied := metav1.Condition{Type: clusterv1beta1.PlacementConditionSatisfied, ObservedGeneration: generation,
			Status: metav1.ConditionFalse, Reason: ReasonMisconfiguredSpec, Message: "the placement is misconfigured: " + r.Misconfigured.Error()}
		return []metav1.Condition{satisfied, misconfigured}
	}
	satisfied := metav1.Condition{Type: clusterv1beta1.PlacementConditionSatisfied, ObservedGeneration: generation, Status: metav1.ConditionFalse}
	selected := len(r.Selected)
	switch {
	case len(r.BoundSets) == 0:
		satisfied.Reason, satisfied.Message = ReasonNoBindings, fmt.Sprintf("no ManagedClusterSet is bound to namespace %[1]s: bind one with `corral clusterset bind SET --namespace %[1]s`", r.Namespace)
	case len(r.EligibleSets) == 0:
		satisfied.Reason, satisfied.Message = ReasonNoIntersection, fmt.Sprintf("none of spec.clusterSets is bound to namespace %s (bound: %s)", r.Namespace, strings.Join(r.BoundSets, ", "))
	case r.Candidates == 0:
		satisfied.Reason, satisfied.Message = ReasonSetsEmpty, fmt.Sprintf("the ManagedClusterSets %s have no cluster", strings.Join(r.EligibleSets, ", "))
	case r.Feasible == 0:
		satisfied.Reason, satisfied.Message = ReasonNoClusterMatched, fmt.Sprintf("none of the %d candidate clusters matches the placement's predicates and tolerations", r.Candidates)
		if r.Candidates == 1 {
			satisfied.Message = "the one candidate cluster does not match the placement's predicates and tolerations"
		}
		if r.Wanted > 0 {
			satisfied.Message += fmt.Sprintf(", %d wanted", r.Wanted)
		}
	case selected == 0 && r.Wanted == 0:
		// OCM calls a placement that selects nothing unsatisfied, whatever
		// it wanted.
		satisfied.Reason, satisfied.Message = ReasonNoClusterMatched, "numberOfClusters is 0: no cluster is selected"
	case selected == 0:
		satisfied.Reason, satisfied.Message = ReasonNoClusterMatched, "no matching cluster fits the spreadPolicy"
	case r.Wanted >= 0 && r.Feasible < r.Wanted:
		satisfied.Reason, satisfied.Message = ReasonNotAllScheduled, fmt.Sprintf("%s, %d wanted", matchPhrase(r.Feasible), r.Wanted)
	case r.Wanted >= 0 && selected < r.Wanted:
		satisfied.Reason, satisfied.Message = ReasonNotAllScheduled, fmt.Sprintf("%d of the %d matching clusters fit the spreadPolicy, %d wanted", selected, r.Feasible, r.Wanted)
	default:
		satisfied.Status, satisfied.Reason = metav1.ConditionTrue, ReasonAllScheduled
		satisfied.Message = fmt.Sprintf("%s selected", Count(selected, "cluster"))
	}
	return []metav1.Condition{satisfied, misconfigured}
}

func matchPhrase(n int) string {
	if n == 1 {
		return "1 cluster matches"
	}
	return fmt.Sprintf("%d clusters match", n)
}

// Count is n noun, in the plural unless n is 1: "1 cluster", "3 clusters".
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
