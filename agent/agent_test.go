package agent

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/corral-dev/corral/addons"
)

func TestAgentValidateAddons(t *testing.T) {
	builtins := []addons.Addon{
		{Name: "work", RunAgent: func(context.Context, addons.AgentEnv) error { return nil }},
		{Name: "hubonly"},
	}
	cases := map[string]struct {
		set     func(o *Options)
		wantErr string
		// wantSelected are the addons a valid o runs; nil is not checked.
		wantSelected []string
	}{
		"all built-ins by default": {set: func(*Options) {}, wantSelected: []string{"work", "hubonly"}},
		"named built-ins":          {set: func(o *Options) { o.Addons = []string{"work"} }, wantSelected: []string{"work"}},
		"an unknown addon": {
			set:     func(o *Options) { o.Addons = []string{"nope"} },
			wantErr: `--addons: unknown addon "nope": the built-in addons are work, hubonly`,
		},
		"no registration with a hub kubeconfig": {
			set: func(o *Options) { o.NoRegistration, o.HubKubeconfig = true, "hub.kubeconfig" },
		},
		"no registration without a hub kubeconfig": {
			set:     func(o *Options) { o.NoRegistration = true },
			wantErr: "--no-registration needs --hub-kubeconfig",
		},
		"no registration of addons with no agent half": {
			set: func(o *Options) {
				o.NoRegistration, o.HubKubeconfig, o.Addons = true, "hub.kubeconfig", []string{"hubonly"}
			},
			wantErr: "none of the addons [hubonly] has an agent half",
		},
		"no registration with a bootstrap kubeconfig": {
			set: func(o *Options) {
				o.NoRegistration, o.HubKubeconfig, o.BootstrapKubeconfig = true, "hub.kubeconfig", "boot.kubeconfig"
			},
			wantErr: "--no-registration runs no registration agent",
		},
		"labels and annotations for the ManagedCluster": {
			set: func(o *Options) {
				o.ClusterLabels = map[string]string{"env": "prod", "example.com/team": "a"}
				o.ClusterAnnotations = map[string]string{"agent.open-cluster-management.io/owner": "team-a"}
			},
		},
		"a label key that is not one": {
			set:     func(o *Options) { o.ClusterLabels = map[string]string{"env prod": "x"} },
			wantErr: `--cluster-labels: "env prod" is not a label key`,
		},
		"a label value that is not one": {
			set:     func(o *Options) { o.ClusterLabels = map[string]string{"env": "a b"} },
			wantErr: `--cluster-labels: "a b" is not a value of label env`,
		},
		"an annotation without the agent's prefix": {
			set:     func(o *Options) { o.ClusterAnnotations = map[string]string{"owner": "team-a"} },
			wantErr: `--cluster-annotations: "owner" does not start with agent.open-cluster-management.io/`,
		},
		"no registration with labels": {
			set: func(o *Options) {
				o.NoRegistration, o.HubKubeconfig, o.ClusterLabels = true, "hub.kubeconfig", map[string]string{"env": "prod"}
			},
			wantErr: "--no-registration runs no registration agent",
		},
		"a hub kubeconfig without no registration": {
			set:     func(o *Options) { o.HubKubeconfig = "hub.kubeconfig" },
			wantErr: "--hub-kubeconfig is for --no-registration",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := NewOptions(io.Discard, builtins...)
			o.ClusterName = "c1"
			tc.set(o)
			err := o.Validate()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("Validate = %v, want an error containing %q", err, tc.wantErr)
			}
			if got := addons.Names(o.selected); tc.wantSelected != nil && strings.Join(got, ",") != strings.Join(tc.wantSelected, ",") {
				t.Errorf("selected %v, want %v", got, tc.wantSelected)
			}
		})
	}
}
