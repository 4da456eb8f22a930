package addonconfig

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	rolloutsdk "open-cluster-management.io/sdk-go/pkg/apis/cluster/v1alpha1"
)

// config is one config an addon is to run with: its group and resource,
// referent and the spec hash known of it ("" while the addon framework
// has not hashed it).
type config struct {
	addonv1alpha1.ConfigGroupResource
	addonv1alpha1.ConfigSpecHash
}

// configs are desired configs with their group and resource, in order.
type configs []config

// Override replaces, per group and resource, the configs in base by those
// of over; a config named twice in over is there once.
func Override(base, over configs) configs {
	kept := slices.DeleteFunc(slices.Clone(base), func(b config) bool {
		return slices.ContainsFunc(over, func(o config) bool { return o.ConfigGroupResource == b.ConfigGroupResource })
	})
	for _, o := range over {
		if !slices.ContainsFunc(kept, func(k config) bool {
			return k.ConfigGroupResource == o.ConfigGroupResource && k.ConfigReferent == o.ConfigReferent
		}) {
			kept = append(kept, o)
		}
	}
	return kept
}

// defaults are the configs of an addon's clusters that no placement of
// its install strategy decides on: the supported configs' defaults, with
// the spec hashes the addon framework wrote in the addon's status.
func defaults(refs []addonv1alpha1.DefaultConfigReference) configs {
	asInstalled := make([]addonv1alpha1.InstallConfigReference, 0, len(refs))
	for _, r := range refs {
		asInstalled = append(asInstalled, addonv1alpha1.InstallConfigReference{ConfigGroupResource: r.ConfigGroupResource, DesiredConfig: r.DesiredConfig})
	}
	return placementConfigs(asInstalled)
}

// placementConfigs are the configs of a placement's clusters, from its
// install progression, with the spec hashes the addon framework wrote
// there.
func placementConfigs(refs []addonv1alpha1.InstallConfigReference) configs {
	var out configs
	for _, r := range refs {
		if r.DesiredConfig != nil {
			out = append(out, config{r.ConfigGroupResource, *r.DesiredConfig})
		}
	}
	return out
}

// own are the configs an addon names itself (spec.configs), with the spec
// hash the addon framework wrote in its status for the same config.
func own(mca *addonv1alpha1.ManagedClusterAddOn) configs {
	var out configs
	for _, c := range mca.Spec.Configs {
		d := config{c.ConfigGroupResource, addonv1alpha1.ConfigSpecHash{ConfigReferent: c.ConfigReferent}}
		for _, r := range mca.Status.ConfigReferences {
			if r.ConfigGroupResource == c.ConfigGroupResource && r.DesiredConfig != nil && r.DesiredConfig.ConfigReferent == c.ConfigReferent {
				d.SpecHash = r.DesiredConfig.SpecHash
			}
		}
		out = append(out, d)
	}
	return out
}

// ConfigReferences are the addon's config references for want: what is
// known of a config that stays (last applied, observed generation) is
// kept, and each desired config and its hash are want's. The deprecated
// inline referent, which v1alpha1 requires, is the desired one.
func ConfigReferences(want configs, existing []addonv1alpha1.ConfigReference) []addonv1alpha1.ConfigReference {
	var refs []addonv1alpha1.ConfigReference
	for _, w := range want {
		ref := addonv1alpha1.ConfigReference{ConfigGroupResource: w.ConfigGroupResource}
		i := slices.IndexFunc(existing, func(e addonv1alpha1.ConfigReference) bool {
			return e.ConfigGroupResource == w.ConfigGroupResource && e.DesiredConfig != nil && e.DesiredConfig.ConfigReferent == w.ConfigReferent
		})
		if i >= 0 {
			ref = *existing[i].DeepCopy()
		}
		ref.ConfigReferent = w.ConfigReferent
		ref.DesiredConfig = w.ConfigSpecHash.DeepCopy()
		refs = append(refs, ref)
	}
	return refs
}

// rolloutStatus is where an addon is in rolling out want, as OCM's addon
// manager reads it:
//   - ToApply while its status does not list exactly want, or, when it
//     has configs, is not Configured: want is still to be written there;
//   - Succeeded once every desired config was applied (lastAppliedConfig
//     is the desired one), since Progressing became Completed;
//   - otherwise Failed when Progressing says it failed or the addon does
//     not support a config, else Progressing, since Progressing became
//     that. A Progressing condition that still says Completed is from
//     the configs before: the time it gives is not this rollout's.
func rolloutStatus(mca *addonv1alpha1.ManagedClusterAddOn, want configs) rolloutsdk.ClusterRolloutStatus {
	st := rolloutsdk.ClusterRolloutStatus{ClusterName: mca.Namespace, Status: rolloutsdk.ToApply}
	refs := mca.Status.ConfigReferences
	listed := len(refs) == len(want) && !slices.ContainsFunc(want, func(w config) bool {
		return !slices.ContainsFunc(refs, func(r addonv1alpha1.ConfigReference) bool {
			return r.ConfigGroupResource == w.ConfigGroupResource && equality.Semantic.DeepEqual(r.DesiredConfig, &w.ConfigSpecHash)
		})
	})
	if !listed || len(want) > 0 && !meta.IsStatusConditionTrue(mca.Status.Conditions, addonv1alpha1.ManagedClusterAddOnConditionConfigured) {
		return st
	}
	progressing := meta.FindStatusCondition(mca.Status.Conditions, addonv1alpha1.ManagedClusterAddOnConditionProgressing)
	reason := ""
	if progressing != nil {
		reason = progressing.Reason
	}
	applied := !slices.ContainsFunc(refs, func(r addonv1alpha1.ConfigReference) bool {
		return !equality.Semantic.DeepEqual(r.LastAppliedConfig, r.DesiredConfig)
	})
	switch {
	case applied:
		st.Status = rolloutsdk.Succeeded
	case reason == addonv1alpha1.ProgressingReasonFailed || reason == addonv1alpha1.ProgressingReasonConfigurationUnsupported:
		st.Status = rolloutsdk.Failed
	default:
		st.Status = rolloutsdk.Progressing
	}
	// The condition's time is when this status began only if the
	// condition tells the same story: Completed for an applied addon, any
	// other reason for one that is not.
	if progressing != nil && applied == (reason == addonv1alpha1.ProgressingReasonCompleted) {
		st.LastTransitionTime = progressing.LastTransitionTime.DeepCopy()
	}
	return st
}

// configured is the Configured condition of an addon given its configs.
func configured(generation int64) metav1.Condition {
	return metav1.Condition{
		Type: addonv1alpha1.ManagedClusterAddOnConditionConfigured, Status: metav1.ConditionTrue,
		Reason: ReasonConfigured, Message: "Configurations configured", ObservedGeneration: generation,
	}
}
