package hub

import (
	"os"
	"runtime/debug"
	"testing"

	"k8s.io/utils/ptr"
)

func TestSetGCPercent(t *testing.T) {
	for name, tc := range map[string]struct {
		env  *string
		want int
	}{
		"GOGC unset: the hub's":     {want: gcPercent},
		"GOGC set: left to the env": {env: ptr.To("100"), want: 77},
	} {
		t.Run(name, func(t *testing.T) {
			prev := debug.SetGCPercent(77)
			t.Cleanup(func() { debug.SetGCPercent(prev) })
			if tc.env != nil {
				t.Setenv("GOGC", *tc.env)
			} else {
				t.Setenv("GOGC", "") // restored after the test
				if err := os.Unsetenv("GOGC"); err != nil {
					t.Fatal(err)
				}
			}
			setGCPercent()
			if got := debug.SetGCPercent(77); got != tc.want {
				t.Errorf("GOGC after setGCPercent: %d, want %d", got, tc.want)
			}
		})
	}
}
