package install

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/steps"
)

// writeStatus writes the addon's default config references and install
// progressions, in one patch when they changed.
func (r *Reconciler) writeStatus(ctx context.Context, s *scope) (steps.Result, error) {
	old := s.cma.DeepCopy()
	st := &s.cma.Status
	st.DefaultConfigReferences = DefaultConfigReferences(s.cma.Spec.SupportedConfigs, st.DefaultConfigReferences) //nolint:staticcheck // v1alpha1 is the stored version; its supportedConfigs is v1beta1's defaultConfigs
	st.InstallProgressions = InstallProgressions(s.cma, st.InstallProgressions)
	if equality.Semantic.DeepEqual(old.Status, s.cma.Status) {
		return steps.Continue, nil
	}
	if err := r.Client.Status().Patch(ctx, s.cma, client.MergeFromWithOptions(old, client.MergeFromWithOptimisticLock{})); err != nil {
		return steps.StopList, fmt.Errorf("writing the status of addon %s: %w", s.cma.Name, err)
	}
	return steps.Continue, nil
}

// DefaultConfigReferences lists the supported configs' defaults, keeping
// the spec hash already known for a default that did not change.
func DefaultConfigReferences(supported []addonv1alpha1.ConfigMeta, existing []addonv1alpha1.DefaultConfigReference) []addonv1alpha1.DefaultConfigReference {
	var refs []addonv1alpha1.DefaultConfigReference
	for _, c := range supported {
		if c.DefaultConfig == nil {
			continue
		}
		ref := addonv1alpha1.DefaultConfigReference{
			ConfigGroupResource: c.ConfigGroupResource,
			DesiredConfig:       &addonv1alpha1.ConfigSpecHash{ConfigReferent: *c.DefaultConfig},
		}
		for _, e := range existing {
			if e.ConfigGroupResource == ref.ConfigGroupResource && e.DesiredConfig != nil && e.DesiredConfig.ConfigReferent == ref.DesiredConfig.ConfigReferent {
				ref.DesiredConfig.SpecHash = e.DesiredConfig.SpecHash
			}
		}
		refs = append(refs, ref)
	}
	return refs
}

// InstallProgressions has one progression per placement of the install
// strategy, with the configs its clusters get: the supported configs'
// defaults, replaced per group and resource by the placement's own.
// The spec hash known of a config that stays, the last applied and last
// known good config of each config type, and the progression's conditions
// are kept.
func InstallProgressions(cma *addonv1alpha1.ClusterManagementAddOn, existing []addonv1alpha1.InstallProgression) []addonv1alpha1.InstallProgression {
	if cma.Spec.InstallStrategy.Type != addonv1alpha1.AddonInstallStrategyPlacements {
		return nil
	}
	var progressions []addonv1alpha1.InstallProgression
	for _, p := range cma.Spec.InstallStrategy.Placements {
		progression := addonv1alpha1.InstallProgression{PlacementRef: p.PlacementRef}
		i := slices.IndexFunc(existing, func(e addonv1alpha1.InstallProgression) bool { return e.PlacementRef == p.PlacementRef })
		var known []addonv1alpha1.InstallConfigReference
		if i >= 0 {
			progression.Conditions = existing[i].Conditions
			known = existing[i].ConfigReferences
		}
		for _, c := range PlacementConfigs(cma.Spec.SupportedConfigs, p.Configs) { //nolint:staticcheck // v1alpha1 is the stored version; its supportedConfigs is v1beta1's defaultConfigs
			ref := addonv1alpha1.InstallConfigReference{
				ConfigGroupResource: c.ConfigGroupResource,
				DesiredConfig:       &addonv1alpha1.ConfigSpecHash{ConfigReferent: c.ConfigReferent},
			}
			for _, k := range known {
				if k.ConfigGroupResource != ref.ConfigGroupResource {
					continue
				}
				// The last applied and last known good configs stay when
				// the placement names another config: they say what to
				// go back to.
				ref.LastAppliedConfig = k.LastAppliedConfig.DeepCopy()
				ref.LastKnownGoodConfig = k.LastKnownGoodConfig.DeepCopy()
				if k.DesiredConfig != nil && k.DesiredConfig.ConfigReferent == c.ConfigReferent {
					ref.DesiredConfig.SpecHash = k.DesiredConfig.SpecHash
				}
			}
			progression.ConfigReferences = append(progression.ConfigReferences, ref)
		}
		progressions = append(progressions, progression)
	}
	return progressions
}

// PlacementConfigs are the configs of a placement's clusters: the
// supported configs' defaults, and for each group and resource the
// placement names, the placement's instead.
func PlacementConfigs(supported []addonv1alpha1.ConfigMeta, placement []addonv1alpha1.AddOnConfig) []addonv1alpha1.AddOnConfig {
	var configs []addonv1alpha1.AddOnConfig
	for _, s := range supported {
		overridden := slices.ContainsFunc(placement, func(c addonv1alpha1.AddOnConfig) bool { return c.ConfigGroupResource == s.ConfigGroupResource })
		if s.DefaultConfig != nil && !overridden {
			configs = append(configs, addonv1alpha1.AddOnConfig{ConfigGroupResource: s.ConfigGroupResource, ConfigReferent: *s.DefaultConfig})
		}
	}
	for _, c := range placement {
		if !slices.Contains(configs, c) {
			configs = append(configs, c)
		}
	}
	return configs
}
