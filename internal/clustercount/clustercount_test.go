package clustercount

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestOf(t *testing.T) {
	cases := map[string]struct {
		v     intstr.IntOrString
		total int
		want  int
	}{
		"a number":                        {v: intstr.FromInt32(3), total: 10, want: 3},
		"a number over the total":         {v: intstr.FromInt32(30), total: 10, want: 30},
		"a number in a string":            {v: intstr.FromString("3"), total: 10, want: 3},
		"a percentage, rounded up":        {v: intstr.FromString("25%"), total: 10, want: 3},
		"7% of 100 is 7, not a float's 8": {v: intstr.FromString("7%"), total: 100, want: 7},
		"28% of 25 is 7":                  {v: intstr.FromString("28%"), total: 25, want: 7},
		"0%":                              {v: intstr.FromString("0%"), total: 10, want: 0},
		"unset":                           {total: 10, want: 0},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got, err := Of(tc.v, tc.total); err != nil || got != tc.want {
				t.Errorf("Of(%v, %d) = %d, %v; want %d", tc.v, tc.total, got, err, tc.want)
			}
		})
	}
	for _, bad := range []string{"half", "", "-1", "-5%", "1.5%"} {
		if _, err := Of(intstr.FromString(bad), 10); err == nil {
			t.Errorf("Of(%q) gives no error", bad)
		}
	}
}
