package status

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	workv1 "open-cluster-management.io/api/work/v1"
)

func TestEvaluate(t *testing.T) {
	cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"ready": "yes"}}}
	job := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "batch/v1", "kind": "Job",
		"status": map[string]any{"conditions": []any{map[string]any{"type": "Complete", "status": "True"}}}}}
	cases := map[string]struct {
		obj     *unstructured.Unstructured
		rule    workv1.ConditionRule
		status  metav1.ConditionStatus
		reason  string
		message string
	}{
		"CEL true, with a message expression": {
			obj: cm, rule: workv1.ConditionRule{Condition: "Ready", Type: workv1.CelConditionExpressionsType,
				CelExpressions: []string{`object.data.ready == "yes"`}, MessageExpression: `result ? "ready" : "not ready"`},
			status: metav1.ConditionTrue, reason: workv1.ConditionRuleEvaluated, message: "ready",
		},
		"CEL expressions are ANDed": {
			obj: cm, rule: workv1.ConditionRule{Condition: "Ready", Type: workv1.CelConditionExpressionsType,
				CelExpressions: []string{`true`, `object.data.ready == "no"`}, Message: "m"},
			status: metav1.ConditionFalse, reason: workv1.ConditionRuleEvaluated, message: "m",
		},
		"CEL that does not compile": {
			obj: cm, rule: workv1.ConditionRule{Condition: "Ready", Type: workv1.CelConditionExpressionsType, CelExpressions: []string{`object.(`}},
			status: metav1.ConditionFalse, reason: workv1.ConditionRuleInvalid,
		},
		"CEL without expressions is invalid, not true": {
			obj: cm, rule: workv1.ConditionRule{Condition: workv1.ManifestComplete, Type: workv1.CelConditionExpressionsType},
			status: metav1.ConditionFalse, reason: workv1.ConditionRuleInvalid,
		},
		"CEL that fails": {
			obj: cm, rule: workv1.ConditionRule{Condition: "Ready", Type: workv1.CelConditionExpressionsType, CelExpressions: []string{`object.spec.x == 1`}},
			status: metav1.ConditionFalse, reason: workv1.ConditionRuleExpressionError,
		},
		"a complete Job": {
			obj: job, rule: workv1.ConditionRule{Type: workv1.WellKnownConditionsType},
			status: metav1.ConditionTrue, reason: workv1.ConditionRuleEvaluated,
		},
		"no well-known conditions for a ConfigMap": {
			obj: cm, rule: workv1.ConditionRule{Type: workv1.WellKnownConditionsType},
			status: metav1.ConditionFalse, reason: workv1.ConditionRuleInvalid,
		},
	}
	rules, err := NewRules()
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := rules.Evaluate(tc.obj, []workv1.ConditionRule{tc.rule}, 1)
			if len(got) != 1 {
				t.Fatalf("got %d conditions, want 1", len(got))
			}
			c := got[0]
			if c.Status != tc.status || c.Reason != tc.reason || (tc.message != "" && c.Message != tc.message) {
				t.Errorf("got %s/%s %q, want %s/%s %q", c.Status, c.Reason, c.Message, tc.status, tc.reason, tc.message)
			}
		})
	}
}
