package hubclient

import (
	"slices"
	"testing"

	"github.com/spf13/pflag"
)

func TestAddClustersFlagTakesBothSpellings(t *testing.T) {
	cases := map[string]struct {
		args []string
		want []string
	}{
		"--clusters":     {args: []string{"--clusters", "c1,c2"}, want: []string{"c1", "c2"}},
		"--cluster":      {args: []string{"--cluster", "c1"}, want: []string{"c1"}},
		"both, appended": {args: []string{"--cluster", "c1", "--clusters", "c2"}, want: []string{"c1", "c2"}},
		"neither":        {args: nil, want: nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
			AddClustersFlag(fs, &got, "clusters to use")
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("clusters = %v, want %v", got, tc.want)
			}
		})
	}
}
