package confirm

import (
	"bytes"
	"strings"
	"testing"
)

func TestAsk(t *testing.T) {
	removing := Effect{Verb: "move cluster2 to cluster set prod", Changes: []string{"cluster2: moves from default to prod"},
		Removes: []string{"cluster2 from placement team-a/web"}}
	harmless := Effect{Verb: "put cluster3 in cluster set prod", Changes: []string{"cluster3: put in prod"}}
	cases := map[string]struct {
		opts    Options
		effect  Effect
		want    bool
		wantErr string
		wantOut []string
		notOut  []string
	}{
		"nothing removed goes ahead without a word": {
			opts: Options{}, effect: harmless, want: true, notOut: []string{"cluster3"},
		},
		"nothing removed, dry run, shows and stops": {
			opts: Options{DryRun: true}, effect: harmless, wantOut: []string{"cluster3: put in prod", "dry run: nothing was changed"},
		},
		"off a terminal without --yes is refused": {
			opts: Options{}, effect: removing, wantErr: "pass --yes",
			wantOut: []string{"This removes:", "  - cluster2 from placement team-a/web"},
		},
		"--yes goes ahead, showing the effect": {
			opts: Options{Yes: true}, effect: removing, want: true, wantOut: []string{"cluster2: moves from default to prod"},
		},
		"--dry-run wins over --yes": {
			opts: Options{Yes: true, DryRun: true}, effect: removing, wantOut: []string{"dry run: nothing was changed"},
		},
		"a person answering y goes ahead": {
			opts: Options{Terminal: true, In: strings.NewReader("y\n")}, effect: removing, want: true,
			wantOut: []string{"Move cluster2 to cluster set prod? [y/N] "},
		},
		"a person answering yes goes ahead": {
			opts: Options{Terminal: true, In: strings.NewReader("YES\n")}, effect: removing, want: true,
		},
		"a person answering nothing stops": {
			opts: Options{Terminal: true, In: strings.NewReader("\n")}, effect: removing, wantOut: []string{"nothing was changed"},
		},
		"a person answering n stops": {
			opts: Options{Terminal: true, In: strings.NewReader("n\n")}, effect: removing, wantOut: []string{"nothing was changed"},
		},
		"end of input stops": {
			opts: Options{Terminal: true, In: strings.NewReader("")}, effect: removing,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			got, err := tc.opts.Ask(&out, tc.effect)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("error is not one line: %q", err)
				}
			} else if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if got != tc.want {
				t.Errorf("Ask = %v, want %v", got, tc.want)
			}
			for _, s := range tc.wantOut {
				if !strings.Contains(out.String(), s) {
					t.Errorf("output lacks %q:\n%s", s, out.String())
				}
			}
			for _, s := range tc.notOut {
				if strings.Contains(out.String(), s) {
					t.Errorf("output has %q:\n%s", s, out.String())
				}
			}
		})
	}
}
