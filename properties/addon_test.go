package properties

import (
	"slices"
	"strings"
	"testing"

	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"

	"github.com/corral-dev/corral/properties/api"
)

// TestValidateDeploymentConfig checks enable --config refuses what the
// hub half would (api.ParseSettings has the cases).
func TestValidateDeploymentConfig(t *testing.T) {
	validate := Addon().ValidateDeploymentConfig
	good := []addonv1alpha1.CustomizedVariable{{Name: api.VarCollectInterval, Value: "5m"}}
	if err := validate(addonv1alpha1.AddOnDeploymentConfigSpec{CustomizedVariables: good}); err != nil {
		t.Errorf("a valid config refused: %v", err)
	}
	bad := []addonv1alpha1.CustomizedVariable{{Name: api.VarCollectInterval, Value: "1s"}}
	if err := validate(addonv1alpha1.AddOnDeploymentConfigSpec{CustomizedVariables: bad}); err == nil || !strings.Contains(err.Error(), "collectInterval 1s is shorter than 5s") {
		t.Errorf("error %v, want one saying the interval is too short", err)
	}
}

// TestHubRulesSettings checks the agent may read and watch its settings
// ConfigMap, by name, and no other.
func TestHubRulesSettings(t *testing.T) {
	watches := 0
	for _, rule := range Addon().HubRules {
		if !slices.Contains(rule.Verbs, "watch") && !slices.Contains(rule.Verbs, "list") {
			continue
		}
		watches++
		if !slices.Equal(rule.ResourceNames, []string{api.ConfigName}) || !slices.Equal(rule.Resources, []string{"configmaps"}) {
			t.Errorf("rule %+v lists or watches more than the settings ConfigMap", rule)
		}
	}
	if watches == 0 {
		t.Error("no rule lets the agent watch its settings")
	}
}
