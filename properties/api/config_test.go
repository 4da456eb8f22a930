package api

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
)

func vars(kv ...string) []addonv1alpha1.CustomizedVariable {
	var out []addonv1alpha1.CustomizedVariable
	for i := 0; i < len(kv); i += 2 {
		out = append(out, addonv1alpha1.CustomizedVariable{Name: kv[i], Value: kv[i+1]})
	}
	return out
}

func interval(d time.Duration) Settings {
	return Settings{CollectInterval: metav1.Duration{Duration: d}}
}

func TestParseSettings(t *testing.T) {
	cases := map[string]struct {
		vars    []addonv1alpha1.CustomizedVariable
		want    Settings
		wantErr []string
	}{
		"none: the defaults":  {want: interval(DefaultCollectInterval)},
		"an interval":         {vars: vars(VarCollectInterval, "5m"), want: interval(5 * time.Minute)},
		"the floor":           {vars: vars(VarCollectInterval, "5s"), want: interval(MinCollectInterval)},
		"the ceiling":         {vars: vars(VarCollectInterval, "1h"), want: interval(MaxCollectInterval)},
		"not a duration":      {vars: vars(VarCollectInterval, "often"), wantErr: []string{`collectInterval "often" is not a duration: give one such as 30s or 5m`}},
		"a bare number":       {vars: vars(VarCollectInterval, "30"), wantErr: []string{`collectInterval "30" is not a duration`}},
		"a negative interval": {vars: vars(VarCollectInterval, "-30s"), wantErr: []string{"collectInterval -30s is shorter than 5s", "give 5s to 1h0m0s"}},
		"below the floor":     {vars: vars(VarCollectInterval, "1s"), wantErr: []string{"collectInterval 1s is shorter than 5s, which would load the cluster's API server for nothing: give 5s to 1h0m0s"}},
		"above the ceiling":   {vars: vars(VarCollectInterval, "2h"), wantErr: []string{"collectInterval 2h0m0s is longer than 1h0m0s, which would leave the hub's properties too far behind"}},
		"another addon's variables are left alone": {vars: vars("probeInterval", "10s", VarCollectInterval, "10s"), want: interval(10 * time.Second)},
		"every problem at once, a line each": {
			vars:    vars(VarCollectInterval, "1s", VarCollectInterval, "often"),
			wantErr: []string{"collectInterval 1s is shorter than 5s", "\n", `collectInterval "often" is not a duration`},
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

func TestValidate(t *testing.T) {
	cases := map[string]struct {
		s     Settings
		valid bool
	}{
		"the defaults":          {s: DefaultSettings(), valid: true},
		"none (an empty value)": {s: Settings{}},
		"too short":             {s: interval(time.Second)},
		"too long":              {s: interval(2 * time.Hour)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if err := tc.s.Validate(); (err == nil) != tc.valid {
				t.Errorf("Validate = %v, want valid %t", err, tc.valid)
			}
		})
	}
}

func TestDescribe(t *testing.T) {
	if got, want := interval(90*time.Second).Describe(), "collecting every 1m30s"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
}
