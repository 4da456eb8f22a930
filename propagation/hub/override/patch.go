package override

import (
	"encoding/json"
	"fmt"
	"maps"

	jsonpatch "github.com/evanphx/json-patch/v5"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// jsonPatch applies the rule's RFC 6902 operations, their values' strings
// expanded; a path that does not exist (for remove and replace, or a
// parent for add) is an error.
func (r *Rule) jsonPatch(obj map[string]any, vars variables) error {
	if len(r.Spec.JSONPatch) == 0 {
		return nil
	}
	ops := make([]map[string]any, 0, len(r.Spec.JSONPatch))
	for i, op := range r.Spec.JSONPatch {
		o := map[string]any{"op": string(op.Op), "path": op.Path}
		value, err := patchValue(i, op)
		if err != nil {
			return err
		}
		if op.Value != nil {
			if value, err = eachString(value, vars.expand); err != nil {
				return fmt.Errorf("jsonPatch[%d]: %w", i, err)
			}
			o["value"] = value
		}
		ops = append(ops, o)
	}
	rawOps, err := json.Marshal(ops)
	if err != nil {
		return err
	}
	patch, err := jsonpatch.DecodePatch(rawOps)
	if err != nil {
		return fmt.Errorf("jsonPatch: %w", err)
	}
	doc, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	for i := range patch {
		single := jsonpatch.Patch{patch[i]}
		if doc, err = single.Apply(doc); err != nil {
			return fmt.Errorf("jsonPatch[%d] (%s %s): %w", i, r.Spec.JSONPatch[i].Op, r.Spec.JSONPatch[i].Path, err)
		}
	}
	patched := map[string]any{}
	if err := utiljson.Unmarshal(doc, &patched); err != nil {
		return err
	}
	clear(obj)
	maps.Copy(obj, patched)
	return nil
}

// patchValue is the i-th operation's value, decoded (nil for remove): add
// and replace take one, remove none, and it must be JSON.
func patchValue(i int, op v1alpha1.JSONPatchOperation) (any, error) {
	if (op.Value == nil) != (op.Op == v1alpha1.JSONPatchRemove) {
		return nil, fmt.Errorf("jsonPatch[%d] (%s %s): add and replace take a value, remove none", i, op.Op, op.Path)
	}
	if op.Value == nil {
		return nil, nil
	}
	var value any
	if err := utiljson.Unmarshal(op.Value.Raw, &value); err != nil {
		return nil, fmt.Errorf("jsonPatch[%d]: the value is not JSON: %w", i, err)
	}
	return value, nil
}
