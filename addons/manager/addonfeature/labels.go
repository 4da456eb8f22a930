package addonfeature

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
)

// LabelPrefix, followed by an addon's name, is the ManagedCluster label
// that says how that addon is on the cluster.
const LabelPrefix = "feature.open-cluster-management.io/addon-"

// The values of an addon's label.
const (
	// Available: the addon's Available condition is True.
	Available = "available"
	// Unhealthy: the addon's Available condition is False.
	Unhealthy = "unhealthy"
	// Unreachable: the addon's Available condition is Unknown or missing.
	Unreachable = "unreachable"
)

// LabelKey is the ManagedCluster label of addon.
func LabelKey(addon string) string { return LabelPrefix + addon }

// Value is the label value of mca, by its Available condition.
func Value(mca *addonv1alpha1.ManagedClusterAddOn) string {
	c := meta.FindStatusCondition(mca.Status.Conditions, addonv1alpha1.ManagedClusterAddOnConditionAvailable)
	switch {
	case c == nil:
		return Unreachable
	case c.Status == metav1.ConditionTrue:
		return Available
	case c.Status == metav1.ConditionFalse:
		return Unhealthy
	default:
		return Unreachable
	}
}

// wantLabels are the addon labels a cluster with addons should have:
// one for each addon that is not being deleted.
func wantLabels(addons []addonv1alpha1.ManagedClusterAddOn) map[string]string {
	want := make(map[string]string, len(addons))
	for i := range addons {
		if !addons[i].DeletionTimestamp.IsZero() {
			continue
		}
		want[LabelKey(addons[i].Name)] = Value(&addons[i])
	}
	return want
}

// relabel returns labels with the addon labels of want: those missing or
// different set, those of addons not in want removed, the others kept. It
// reports whether anything changed, and never changes labels itself.
func relabel(labels, want map[string]string) (map[string]string, bool) {
	out := make(map[string]string, len(labels)+len(want))
	changed := false
	for k, v := range labels {
		if _, ok := want[k]; !ok && strings.HasPrefix(k, LabelPrefix) {
			changed = true
			continue
		}
		out[k] = v
	}
	for k, v := range want {
		if old, ok := labels[k]; !ok || old != v {
			changed = true
		}
		out[k] = v
	}
	return out, changed
}

// addonLabels are the labels of labels that have LabelPrefix.
func addonLabels(labels map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range labels {
		if strings.HasPrefix(k, LabelPrefix) {
			out[k] = v
		}
	}
	return out
}
