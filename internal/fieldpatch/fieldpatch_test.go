package fieldpatch

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSet(t *testing.T) {
	cases := map[string]struct {
		have, want any
		patch      string
	}{
		"set an absent field": {
			want:  []string{"a"},
			patch: `[{"op":"test","path":"/p","value":null},{"op":"add","path":"/p","value":["a"]}]`,
		},
		"change a field": {
			have:  []string{"a"},
			want:  []string{"a", "b"},
			patch: `[{"op":"test","path":"/p","value":["a"]},{"op":"add","path":"/p","value":["a","b"]}]`,
		},
		"an empty slice is an absent field": {
			have:  []string{},
			want:  []string{"a"},
			patch: `[{"op":"test","path":"/p","value":null},{"op":"add","path":"/p","value":["a"]}]`,
		},
		"set to empty removes": {
			have:  []string{"a"},
			want:  []string(nil),
			patch: `[{"op":"test","path":"/p","value":["a"]},{"op":"remove","path":"/p"}]`,
		},
		"remove a field": {
			have:  []string{"a"},
			patch: `[{"op":"test","path":"/p","value":["a"]},{"op":"remove","path":"/p"}]`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p, err := Set("/p", tc.have, tc.want)
			if err != nil {
				t.Fatal(err)
			}
			data, err := p.Data(nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.patch, string(data)); diff != "" {
				t.Errorf("patch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFields(t *testing.T) {
	p, err := Fields(
		Field{Path: "/a", Want: []string{"x"}},
		Field{Path: "/b", Have: []string{"y"}, Want: []string{"y", "z"}},
		Field{Path: "/c"},
	)
	if err != nil {
		t.Fatal(err)
	}
	data, err := p.Data(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"op":"test","path":"/a","value":null},{"op":"test","path":"/b","value":["y"]},{"op":"test","path":"/c","value":null},` +
		`{"op":"add","path":"/a","value":["x"]},{"op":"add","path":"/b","value":["y","z"]}]`
	if diff := cmp.Diff(want, string(data)); diff != "" {
		t.Errorf("patch (-want +got):\n%s", diff)
	}
}
