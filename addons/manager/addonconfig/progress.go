package addonconfig

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	rolloutsdk "open-cluster-management.io/sdk-go/pkg/apis/cluster/v1alpha1"
)

// progress sets the install progression's Progressing condition from its
// placement's rollout, as OCM's addon manager does: True (Progressing)
// until every addon on the placement's clusters that runs with the
// placement's configs (not its own) has applied them and is past its
// minSuccessTime, then False
// (Completed), and the configs become the progression's last applied and
// last known good ones. A placement with no such addon is still
// Progressing: nothing was applied yet. A rollout strategy that cannot be
// followed makes it False (Failed).
func progress(prog *addonv1alpha1.InstallProgression, p *placement) {
	cond := metav1.Condition{Type: addonv1alpha1.ManagedClusterAddOnConditionProgressing}
	if p.problem != nil {
		cond.Status, cond.Reason = metav1.ConditionFalse, addonv1alpha1.ProgressingReasonFailed
		cond.Message = fmt.Sprintf("the rollout strategy of placement %s/%s cannot be followed: %v", p.ref.Namespace, p.ref.Name, p.problem)
		meta.SetStatusCondition(&prog.Conditions, cond)
		return
	}
	// A cluster that succeeded but is still in its minSuccessTime is
	// busy: the rollout still waits for it.
	soaking := sets.New[string]()
	for _, c := range p.result.ClustersToRollout {
		if c.Status == rolloutsdk.Succeeded {
			soaking.Insert(c.ClusterName)
		}
	}
	var placed, done, busy, failed int
	for _, a := range p.addons {
		if !sameConfigs(a.want, p.want) {
			continue
		}
		placed++
		switch {
		case a.status.Status == rolloutsdk.Succeeded && soaking.Has(a.mca.Namespace):
			busy++
		case a.status.Status == rolloutsdk.Succeeded:
			done++
		case a.status.Status == rolloutsdk.Progressing:
			busy++
		case a.status.Status == rolloutsdk.Failed:
			failed++
		}
	}
	selected := p.clusters.Difference(p.claimed).Len()
	timedOut := len(p.result.ClustersTimeOut)
	if placed == 0 || done < placed {
		cond.Status, cond.Reason = metav1.ConditionTrue, addonv1alpha1.ProgressingReasonProgressing
		cond.Message = fmt.Sprintf("%d/%d addons applied the configs, %d progressing, %d failed, %d timed out; %d clusters selected",
			done, placed, busy, failed, timedOut, selected)
	} else {
		cond.Status, cond.Reason = metav1.ConditionFalse, addonv1alpha1.ProgressingReasonCompleted
		cond.Message = fmt.Sprintf("%d/%d addons applied the configs; %d clusters selected", done, placed, selected)
		for i, ref := range prog.ConfigReferences {
			if ref.DesiredConfig != nil {
				prog.ConfigReferences[i].LastAppliedConfig = ref.DesiredConfig.DeepCopy()
				prog.ConfigReferences[i].LastKnownGoodConfig = ref.DesiredConfig.DeepCopy()
			}
		}
	}
	meta.SetStatusCondition(&prog.Conditions, cond)
}

// sameConfigs says whether a and b are the same configs, in any order.
func sameConfigs(a, b configs) bool {
	if len(a) != len(b) {
		return false
	}
	for _, c := range a {
		if !slices.Contains(b, c) {
			return false
		}
	}
	return true
}
