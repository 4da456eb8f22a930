package status

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	workv1 "open-cluster-management.io/api/work/v1"
)

func TestRead(t *testing.T) {
	deployment := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "d", "labels": map[string]any{"a": "b"}},
		"status":   map[string]any{"replicas": int64(3), "readyReplicas": int64(2)},
	}}
	job := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "batch/v1", "kind": "Job", "metadata": map[string]any{"name": "j"},
		"status": map[string]any{"succeeded": int64(1), "conditions": []any{map[string]any{"type": "Complete", "status": "True"}}},
	}}
	cases := map[string]struct {
		obj     *unstructured.Unstructured
		rules   []workv1.FeedbackRule
		raw     bool
		want    []workv1.FeedbackValue
		wantErr string
	}{
		"Deployment well-known status, unset fields left out": {
			obj: deployment, rules: []workv1.FeedbackRule{{Type: workv1.WellKnownStatusType}},
			want: []workv1.FeedbackValue{
				{Name: "ReadyReplicas", Value: workv1.FieldValue{Type: workv1.Integer, Integer: ptr.To[int64](2)}},
				{Name: "Replicas", Value: workv1.FieldValue{Type: workv1.Integer, Integer: ptr.To[int64](3)}},
			},
		},
		"a JSONPath named as a well-known field replaces its value": {
			obj: deployment, rules: []workv1.FeedbackRule{{Type: workv1.WellKnownStatusType},
				{Type: workv1.JSONPathsType, JsonPaths: []workv1.JsonPath{{Name: "Replicas", Path: ".status.readyReplicas"}}}},
			want: []workv1.FeedbackValue{
				{Name: "ReadyReplicas", Value: workv1.FieldValue{Type: workv1.Integer, Integer: ptr.To[int64](2)}},
				{Name: "Replicas", Value: workv1.FieldValue{Type: workv1.Integer, Integer: ptr.To[int64](2)}},
			},
		},
		"Job well-known status": {
			obj: job, rules: []workv1.FeedbackRule{{Type: workv1.WellKnownStatusType}},
			want: []workv1.FeedbackValue{
				{Name: "JobComplete", Value: workv1.FieldValue{Type: workv1.String, String: ptr.To("True")}},
				{Name: "JobSucceeded", Value: workv1.FieldValue{Type: workv1.Integer, Integer: ptr.To[int64](1)}},
			},
		},
		"a structured value without raw JSON is an error": {
			obj:     deployment,
			rules:   []workv1.FeedbackRule{{Type: workv1.JSONPathsType, JsonPaths: []workv1.JsonPath{{Name: "l", Path: ".metadata.labels"}}}},
			wantErr: "RawFeedbackJsonString",
		},
		"a structured value as raw JSON": {
			obj: deployment, raw: true,
			rules: []workv1.FeedbackRule{{Type: workv1.JSONPathsType, JsonPaths: []workv1.JsonPath{{Name: "l", Path: ".metadata.labels"}}}},
			want:  []workv1.FeedbackValue{{Name: "l", Value: workv1.FieldValue{Type: workv1.JsonRaw, JsonRaw: ptr.To(`{"a":"b"}`)}}},
		},
		"a path for another version is skipped": {
			obj:   deployment,
			rules: []workv1.FeedbackRule{{Type: workv1.JSONPathsType, JsonPaths: []workv1.JsonPath{{Name: "r", Version: "v2", Path: ".status.replicas"}}}},
		},
		"a kind with no well-known status": {
			obj:     &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}},
			rules:   []workv1.FeedbackRule{{Type: workv1.WellKnownStatusType}},
			wantErr: "use JSONPaths",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Read(tc.obj, tc.rules, tc.raw)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("error %v, want one with %q", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got.Values); diff != "" {
				t.Errorf("values (-want +got):\n%s", diff)
			}
		})
	}
}
