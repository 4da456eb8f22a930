package aggregate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"
	workv1 "open-cluster-management.io/api/work/v1"
)

func TestNewMember(t *testing.T) {
	i := func(name string, n int64) workv1.FeedbackValue {
		return workv1.FeedbackValue{Name: name, Value: workv1.FieldValue{Type: workv1.Integer, Integer: &n}}
	}
	s := func(name, v string) workv1.FeedbackValue {
		return workv1.FeedbackValue{Name: name, Value: workv1.FieldValue{Type: workv1.String, String: &v}}
	}
	cases := map[string]struct {
		values    []workv1.FeedbackValue
		delivered int64
		want      Member
		wantErr   bool
	}{
		"integers, strings and booleans": {
			values: []workv1.FeedbackValue{
				i("replicas", 3), s("revision", "2"),
				{Name: "other", Value: workv1.FieldValue{Type: workv1.Boolean, Boolean: ptr.To(true)}},
			},
			want: Member{Values: map[string]any{"replicas": int64(3), "revision": "2", "other": true}},
		},
		"of the delivered revision": {
			values:    []workv1.FeedbackValue{s("revision", "2")},
			delivered: 2,
			want:      Member{Values: map[string]any{"revision": "2"}},
		},
		"of an older revision": {
			values:    []workv1.FeedbackValue{s("revision", "1")},
			delivered: 2,
			want:      Member{Values: map[string]any{"revision": "1"}, Outdated: true},
		},
		"without a revision label": {
			values:    []workv1.FeedbackValue{i("replicas", 3)},
			delivered: 2,
			want:      Member{Values: map[string]any{"replicas": int64(3)}, Outdated: true},
		},
		"nothing fed back": {
			want: Member{Values: map[string]any{}},
		},
		"a raw JSON value": {
			values:  []workv1.FeedbackValue{{Name: "x", Value: workv1.FieldValue{Type: workv1.JsonRaw, JsonRaw: ptr.To("{}")}}},
			wantErr: true,
		},
		"a type without its value": {
			values:  []workv1.FeedbackValue{{Name: "replicas", Value: workv1.FieldValue{Type: workv1.Integer}}},
			wantErr: true,
		},
		"a generation as a string": {
			values:  []workv1.FeedbackValue{s("generation", "3")},
			wantErr: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := NewMember(workv1.StatusFeedbackResult{Values: tc.values}, tc.delivered)
			if (err != nil) != tc.wantErr {
				t.Fatalf("NewMember error = %v, want error %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("member (-want +got):\n%s", diff)
			}
		})
	}
}
