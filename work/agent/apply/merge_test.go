package apply

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestContains(t *testing.T) {
	cases := map[string]struct {
		have, want any
		contains   bool
	}{
		"defaulted fields do not count": {
			have: map[string]any{"spec": map[string]any{"replicas": int64(2), "strategy": "RollingUpdate"}},
			want: map[string]any{"spec": map[string]any{"replicas": int64(2)}}, contains: true,
		},
		"changed value":          {have: map[string]any{"a": "x"}, want: map[string]any{"a": "y"}},
		"missing key":            {have: map[string]any{}, want: map[string]any{"a": "y"}},
		"int and float agree":    {have: map[string]any{"n": float64(3)}, want: map[string]any{"n": int64(3)}, contains: true},
		"list element defaulted": {have: []any{map[string]any{"name": "c", "x": 1}}, want: []any{map[string]any{"name": "c"}}, contains: true},
		"list of another length": {have: []any{"a", "b"}, want: []any{"a"}},
		"empty map wanted, none": {have: nil, want: map[string]any{}, contains: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Contains(tc.have, tc.want); got != tc.contains {
				t.Errorf("Contains(%v, %v) = %v, want %v", tc.have, tc.want, got, tc.contains)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	cases := map[string]struct {
		have, want, merged any
	}{
		"maps merge by key": {
			have:   map[string]any{"a": "1", "b": map[string]any{"x": "1", "y": "1"}},
			want:   map[string]any{"b": map[string]any{"y": "2"}},
			merged: map[string]any{"a": "1", "b": map[string]any{"x": "1", "y": "2"}},
		},
		"lists are replaced": {
			have:   map[string]any{"l": []any{"a", "b"}},
			want:   map[string]any{"l": []any{"c"}},
			merged: map[string]any{"l": []any{"c"}},
		},
		"a map over a scalar": {
			have:   map[string]any{"a": "1"},
			want:   map[string]any{"a": map[string]any{"b": "2"}},
			merged: map[string]any{"a": map[string]any{"b": "2"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.merged, Merge(tc.have, tc.want)); diff != "" {
				t.Errorf("Merge (-want +got):\n%s", diff)
			}
		})
	}
}
