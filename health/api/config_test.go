package api

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
)

func vars(kv ...string) []addonv1alpha1.CustomizedVariable {
	var out []addonv1alpha1.CustomizedVariable
	for i := 0; i < len(kv); i += 2 {
		out = append(out, addonv1alpha1.CustomizedVariable{Name: kv[i], Value: kv[i+1]})
	}
	return out
}

func TestParseSettings(t *testing.T) {
	cases := map[string]struct {
		vars    []addonv1alpha1.CustomizedVariable
		want    Settings
		wantErr []string
	}{
		"none: the defaults": {want: DefaultSettings()},
		"all set": {
			vars: vars(VarProbeInterval, "5s", VarStaleAfter, "20s", VarMinReadyNodeShare, "0.75", VarWorkloads, "Deployment/kube-system/coredns, DaemonSet/kube-system/proxy", "other", "x"),
			want: Settings{ProbeInterval: Duration{5 * time.Second}, StaleAfter: Duration{20 * time.Second}, MinReadyNodeShare: 0.75,
				Workloads: []WorkloadRef{{KindDeployment, "kube-system", "coredns"}, {KindDaemonSet, "kube-system", "proxy"}}},
		},
		"staleAfter follows the interval": {
			vars: vars(VarProbeInterval, "10s"),
			want: Settings{ProbeInterval: Duration{10 * time.Second}, StaleAfter: Duration{30 * time.Second}, MinReadyNodeShare: DefaultMinReadyNodeShare},
		},
		"a negative interval":             {vars: vars(VarProbeInterval, "-5s"), wantErr: []string{`probeInterval "-5s" is not a positive duration`}},
		"an interval that is no duration": {vars: vars(VarProbeInterval, "often"), wantErr: []string{`probeInterval "often"`}},
		"an unknown workload kind": {
			vars:    vars(VarWorkloads, "StatefulSet/db/postgres"),
			wantErr: []string{`"StatefulSet/db/postgres" has kind "StatefulSet", which is not supported: use Deployment or DaemonSet`},
		},
		"a malformed workload":        {vars: vars(VarWorkloads, "Deployment/web"), wantErr: []string{`"Deployment/web" is not Kind/namespace/name`}},
		"a share above one":           {vars: vars(VarMinReadyNodeShare, "1.5"), wantErr: []string{`minReadyNodeShare "1.5" is not a share`}},
		"stale before the next probe": {vars: vars(VarProbeInterval, "1m", VarStaleAfter, "30s"), wantErr: []string{"staleAfter 30s is not longer than probeInterval 1m0s"}},
		"every problem at once": {
			vars:    vars(VarProbeInterval, "-1s", VarWorkloads, "Job/a/b"),
			wantErr: []string{"probeInterval", "Job"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := ParseSettings(tc.vars)
			if len(tc.wantErr) > 0 {
				for _, want := range tc.wantErr {
					if err == nil || !strings.Contains(err.Error(), want) {
						t.Errorf("error %v does not say %q", err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("settings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDescribe(t *testing.T) {
	s, err := ParseSettings(vars(VarProbeInterval, "5s", VarWorkloads, "Deployment/kube-system/coredns"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Describe(), "probing every 5s, stale after 15s, at least 50% of nodes Ready, 1 workloads"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
}

func TestValidate(t *testing.T) {
	valid := Settings{ProbeInterval: Duration{5 * time.Second}, StaleAfter: Duration{20 * time.Second}, MinReadyNodeShare: 0.75,
		Workloads: []WorkloadRef{{KindDeployment, "kube-system", "coredns"}}}
	cases := map[string]struct {
		edit    func(*Settings)
		wantErr string
	}{
		"valid":                       {edit: func(*Settings) {}},
		"the defaults":                {edit: func(s *Settings) { *s = DefaultSettings() }},
		"no probe interval":           {edit: func(s *Settings) { s.ProbeInterval.Duration = 0 }, wantErr: `probeInterval "0s" is not a positive duration: give one such as 30s`},
		"a negative interval":         {edit: func(s *Settings) { s.ProbeInterval.Duration = -time.Second }, wantErr: `probeInterval "-1s" is not a positive duration`},
		"stale before the next probe": {edit: func(s *Settings) { s.StaleAfter.Duration = 5 * time.Second }, wantErr: "staleAfter 5s is not longer than probeInterval 5s"},
		"a share above one":           {edit: func(s *Settings) { s.MinReadyNodeShare = 1.5 }, wantErr: `minReadyNodeShare "1.5" is not a share: give a number from 0 to 1`},
		"an unknown workload kind": {
			edit:    func(s *Settings) { s.Workloads[0].Kind = "StatefulSet" },
			wantErr: `"StatefulSet/kube-system/coredns" has kind "StatefulSet", which is not supported`,
		},
		"a workload with no name": {edit: func(s *Settings) { s.Workloads[0].Name = "" }, wantErr: `"Deployment/kube-system/" is not Kind/namespace/name`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := valid
			s.Workloads = slices.Clone(valid.Workloads)
			tc.edit(&s)
			err := s.Validate()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("Validate: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("Validate: %v, want an error saying %q", err, tc.wantErr)
			}
		})
	}
}
