package properties

import (
	"slices"
	"strings"
	"testing"

	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"

	"github.com/corral-dev/corral/properties/api"
)

func TestValidateDeploymentConfig(t *testing.T) {
	cases := map[string]struct {
		vars []addonv1alpha1.CustomizedVariable
		want []string // in the error; none: valid
	}{
		"none":              {},
		"a slower interval": {vars: []addonv1alpha1.CustomizedVariable{{Name: api.VarCollectInterval, Value: "5m"}}},
		"too fast, and another addon's variable": {
			vars: []addonv1alpha1.CustomizedVariable{{Name: api.VarCollectInterval, Value: "1s"}, {Name: "probeInterval", Value: "10s"}},
			want: []string{"collectInterval 1s is shorter than 5s", `"probeInterval" is not a variable of the properties addon`},
		},
	}
	validate := Addon().ValidateDeploymentConfig
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := validate(addonv1alpha1.AddOnDeploymentConfigSpec{CustomizedVariables: tc.vars})
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("error %v, want none", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want one saying %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
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
