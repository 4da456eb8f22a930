package health

import (
	"strings"
	"testing"

	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"

	"github.com/corral-dev/corral/health/api"
)

func TestValidateDeploymentConfig(t *testing.T) {
	cases := map[string]struct {
		vars []addonv1alpha1.CustomizedVariable
		want []string // in the error; none: valid
	}{
		"fast probes":              {vars: []addonv1alpha1.CustomizedVariable{{Name: api.VarProbeInterval, Value: "2s"}, {Name: api.VarStaleAfter, Value: "20s"}}},
		"someone else's variables": {vars: []addonv1alpha1.CustomizedVariable{{Name: "replicas", Value: "-1"}}},
		"a negative interval and an unknown workload kind": {
			vars: []addonv1alpha1.CustomizedVariable{{Name: api.VarProbeInterval, Value: "-5s"}, {Name: api.VarWorkloads, Value: "StatefulSet/db/postgres"}},
			want: []string{`probeInterval "-5s" is not a positive duration`, `has kind "StatefulSet", which is not supported: use Deployment or DaemonSet`},
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
