package status

import (
	"fmt"
	"sync"

	"github.com/google/cel-go/cel"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	workv1 "open-cluster-management.io/api/work/v1"
)

// Rules evaluates a manifest's conditionRules: CEL expressions over the
// object (variable object; a messageExpression also sees result), or the
// WellKnownConditions of Jobs and Pods. Compiled programs are kept.
type Rules struct {
	mu       sync.Mutex
	env      *cel.Env
	programs map[string]cel.Program
}

// NewRules returns an evaluator of conditionRules.
func NewRules() (*Rules, error) {
	env, err := cel.NewEnv(cel.Variable("object", cel.DynType), cel.Variable("result", cel.BoolType))
	if err != nil {
		return nil, fmt.Errorf("CEL environment: %w", err)
	}
	return &Rules{env: env, programs: map[string]cel.Program{}}, nil
}

func (r *Rules) program(expr string) (cel.Program, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.programs[expr]; ok {
		return p, nil
	}
	ast, iss := r.env.Compile(expr)
	if iss.Err() != nil {
		return nil, iss.Err()
	}
	p, err := r.env.Program(ast)
	if err != nil {
		return nil, err
	}
	r.programs[expr] = p
	return p, nil
}

// Evaluate returns the conditions the rules set on obj's manifest.
func (r *Rules) Evaluate(obj *unstructured.Unstructured, rules []workv1.ConditionRule, generation int64) []metav1.Condition {
	var out []metav1.Condition
	for _, rule := range rules {
		c := metav1.Condition{Type: rule.Condition, ObservedGeneration: generation, Reason: workv1.ConditionRuleEvaluated}
		switch rule.Type {
		case workv1.CelConditionExpressionsType:
			r.evaluateCEL(obj, rule, &c)
		case workv1.WellKnownConditionsType:
			wellKnownCondition(obj, rule, &c)
		default:
			c.Status, c.Reason = metav1.ConditionFalse, workv1.ConditionRuleInvalid
			c.Message = fmt.Sprintf("unknown condition rule type %q: use CEL or WellKnownConditions", rule.Type)
		}
		if c.Type != "" {
			out = append(out, c)
		}
	}
	return out
}

func (r *Rules) evaluateCEL(obj *unstructured.Unstructured, rule workv1.ConditionRule, c *metav1.Condition) {
	if len(rule.CelExpressions) == 0 {
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, workv1.ConditionRuleInvalid, "a CEL rule needs celExpressions: give at least one"
		return
	}
	result := true
	for _, expr := range rule.CelExpressions {
		p, err := r.program(expr)
		if err != nil {
			c.Status, c.Reason, c.Message = metav1.ConditionFalse, workv1.ConditionRuleInvalid, fmt.Sprintf("CEL expression %q does not compile: %v", expr, err)
			return
		}
		v, _, err := p.Eval(map[string]any{"object": obj.Object, "result": false})
		if err != nil {
			c.Status, c.Reason, c.Message = metav1.ConditionFalse, workv1.ConditionRuleExpressionError, fmt.Sprintf("CEL expression %q: %v", expr, err)
			return
		}
		b, ok := v.Value().(bool)
		if !ok {
			c.Status, c.Reason, c.Message = metav1.ConditionFalse, workv1.ConditionRuleInvalid, fmt.Sprintf("CEL expression %q gives a %s, not a bool", expr, v.Type())
			return
		}
		result = result && b
	}
	c.Status = metav1.ConditionFalse
	if result {
		c.Status = metav1.ConditionTrue
	}
	c.Message = rule.Message
	if rule.MessageExpression != "" {
		p, err := r.program(rule.MessageExpression)
		if err != nil {
			c.Message = fmt.Sprintf("messageExpression does not compile: %v", err)
			return
		}
		if v, _, err := p.Eval(map[string]any{"object": obj.Object, "result": result}); err == nil {
			if s, ok := v.Value().(string); ok && s != "" {
				c.Message = s
			}
		}
	}
}

// wellKnownCondition sets Complete for Jobs (their Complete or Failed
// condition) and Pods (phase Succeeded or Failed).
func wellKnownCondition(obj *unstructured.Unstructured, rule workv1.ConditionRule, c *metav1.Condition) {
	if rule.Condition == "" {
		c.Type = workv1.ManifestComplete
	}
	c.Status, c.Message = metav1.ConditionFalse, rule.Message
	if c.Type != workv1.ManifestComplete {
		c.Reason, c.Message = workv1.ConditionRuleInvalid, "WellKnownConditions only defines the Complete condition"
		return
	}
	switch obj.GroupVersionKind().GroupKind() {
	case schema.GroupKind{Group: "batch", Kind: "Job"}:
		conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
		for _, raw := range conds {
			if m, ok := raw.(map[string]any); ok && (m["type"] == "Complete" || m["type"] == "Failed") && m["status"] == "True" {
				c.Status = metav1.ConditionTrue
			}
		}
	case schema.GroupKind{Kind: "Pod"}:
		phase, _, _ := unstructured.NestedString(obj.Object, "status", "phase")
		if phase == "Succeeded" || phase == "Failed" {
			c.Status = metav1.ConditionTrue
		}
	default:
		c.Reason, c.Message = workv1.ConditionRuleInvalid, fmt.Sprintf("WellKnownConditions has no rule for kind %s: use CEL", obj.GetKind())
	}
}
