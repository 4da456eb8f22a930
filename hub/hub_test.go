package hub

import (
	"context"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/corral-dev/corral/addons"
)

func TestHubAddonFlags(t *testing.T) {
	run := func(context.Context, addons.AgentEnv) error { return nil }
	builtins := []addons.Addon{{Name: "work", RunAgent: run}, {Name: "placement", RunAgent: run}}
	cases := map[string]struct {
		builtins []addons.Addon
		args     []string
		// wantErr is in the one-line error; "" means valid.
		wantErr      string
		wantSelected []string
		wantLeaseID  string
	}{
		"all by default":             {builtins: builtins, wantSelected: []string{"work", "placement"}, wantLeaseID: "corral-hub"},
		"some":                       {builtins: builtins, args: []string{"--addons", "placement"}, wantSelected: []string{"placement"}, wantLeaseID: "corral-hub"},
		"unknown":                    {builtins: builtins, args: []string{"--addons", "health"}, wantErr: `--addons: unknown addon "health": the built-in addons are work, placement`},
		"unknown, with no built-ins": {args: []string{"--addons", "work"}, wantErr: `--addons: unknown addon "work": this corral has no built-in addons`},
		"no registration": {builtins: builtins, args: []string{"--addons", "work,placement", "--no-registration"},
			wantSelected: []string{"work", "placement"}, wantLeaseID: "corral-hub-addons-work-placement"},
		"none":                       {builtins: builtins, args: []string{"--addons", "none"}, wantSelected: []string{}, wantLeaseID: "corral-hub"},
		"none with others":           {builtins: builtins, args: []string{"--addons", "none,work"}, wantErr: `--addons: "none" picks no addon, so it cannot be named with others`},
		"no registration, none":      {builtins: builtins, args: []string{"--addons", "none", "--no-registration"}, wantErr: "--no-registration runs only the named addons' hub halves"},
		"no registration, no addons": {args: []string{"--no-registration"}, wantErr: "--no-registration runs only the named addons' hub halves"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := NewOptions(tc.builtins...)
			if err := o.Command().ParseFlags(tc.args); err != nil {
				t.Fatal(err)
			}
			err := o.Validate()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("validate = %v, want one line with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(addons.Names(o.selected), ","); got != strings.Join(tc.wantSelected, ",") {
				t.Errorf("selected %s, want %v", got, tc.wantSelected)
			}
			if got := o.leaderElectionID(); got != tc.wantLeaseID {
				t.Errorf("leader election ID %s, want %s", got, tc.wantLeaseID)
			}
		})
	}
}

func TestHubTakesAddonsOwnFlags(t *testing.T) {
	var setting string
	builtins := []addons.Addon{{Name: "props",
		HubFlags: func(fs *pflag.FlagSet) {
			fs.StringVar(&setting, "props-setting", "default", "a setting of the props hub half")
		},
		SetupHub: func(ctrl.Manager, addons.HubEnv) error { return nil }}}
	o := NewOptions(builtins...)
	cmd := o.Command()
	if f := cmd.Flags().Lookup("props-setting"); f == nil || f.DefValue != "default" {
		t.Fatalf("corral hub has no --props-setting flag with its default: %v", f)
	}
	if err := cmd.ParseFlags([]string{"--props-setting", "given"}); err != nil {
		t.Fatal(err)
	}
	if setting != "given" {
		t.Errorf("the addon's setting is %q after --props-setting given", setting)
	}
	if err := o.Validate(); err != nil {
		t.Errorf("validate with the addon selected: %v", err)
	}
}

// TestHubRefusesFlagsOfAddonsNotRun checks a hub half's flag given to a hub
// that does not run that addon is refused in one line, not ignored.
func TestHubRefusesFlagsOfAddonsNotRun(t *testing.T) {
	var setting string
	builtins := []addons.Addon{
		{Name: "props", HubFlags: func(fs *pflag.FlagSet) { fs.StringVar(&setting, "props-setting", "default", "") }, SetupHub: func(ctrl.Manager, addons.HubEnv) error { return nil }},
		{Name: "work", SetupHub: func(ctrl.Manager, addons.HubEnv) error { return nil }},
	}
	for _, args := range [][]string{{"--addons", "work", "--props-setting", "x"}, {"--addons", "none", "--props-setting", "x"}} {
		o := NewOptions(builtins...)
		if err := o.Command().ParseFlags(args); err != nil {
			t.Fatal(err)
		}
		err := o.Validate()
		want := "--props-setting is a setting of the props addon, whose hub half does not run here: name it in --addons or drop the flag"
		if err == nil || err.Error() != want {
			t.Errorf("%v: validate = %v, want %q", args, err, want)
		}
	}
	o := NewOptions(builtins...)
	if err := o.Command().ParseFlags([]string{"--addons", "work"}); err != nil {
		t.Fatal(err)
	}
	if err := o.Validate(); err != nil {
		t.Errorf("an addon's flag left alone: %v", err)
	}
}

// TestHubServesWebhooksOnAFreePortOnlyInProcess checks that an in-process
// hub may ask for its webhooks on a free port, and --webhook-port may not
// give a negative one.
func TestHubServesWebhooksOnAFreePortOnlyInProcess(t *testing.T) {
	o := NewOptions()
	o.FreeWebhookPort = true
	if err := o.Validate(); err != nil {
		t.Errorf("Validate with FreeWebhookPort: %v", err)
	}
	if got := o.webhookOptions().Port; got != 0 {
		t.Errorf("the webhook server's port is %d, want 0 (a free one)", got)
	}
	for _, port := range []string{"-1", "70000"} {
		o := NewOptions()
		if err := o.Command().ParseFlags([]string{"--webhook-port", port}); err != nil {
			t.Fatal(err)
		}
		want := "webhook port " + port + " is not a port: give 1-65535"
		if err := o.Validate(); err == nil || err.Error() != want {
			t.Errorf("--webhook-port %s: Validate = %v, want %q", port, err, want)
		}
	}
}
