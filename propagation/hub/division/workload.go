package division

import (
	"fmt"
	"math"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// builtinPaths are where the built-in workloads hold their replicas: a
// Job runs parallelism pods at once, which is what is divided (its
// completions stay the template's, each cluster's Job completing on its
// own).
var builtinPaths = map[schema.GroupKind]string{
	{Group: "apps", Kind: "Deployment"}:  "/spec/replicas",
	{Group: "apps", Kind: "StatefulSet"}: "/spec/replicas",
	{Group: "apps", Kind: "ReplicaSet"}:  "/spec/replicas",
	{Group: "batch", Kind: "Job"}:        "/spec/parallelism",
}

// PathOf is where a kind holds its replicas, as a JSON pointer: the
// path configured for it first, else the built-in one; "" for a kind
// without replicas.
func PathOf(gk schema.GroupKind, configured []v1alpha1.ReplicaPath) string {
	for _, p := range configured {
		if p.Group == gk.Group && p.Kind == gk.Kind {
			return p.Path
		}
	}
	return builtinPaths[gk]
}

// Replicas is the integer at path in obj (decoded JSON); false when the
// path does not lead to a non-negative integer that fits an int32.
func Replicas(obj map[string]any, path string) (int32, bool) {
	parent, key, err := walk(obj, path, false)
	if err != nil {
		return 0, false
	}
	var n float64
	switch v := parent[key].(type) {
	case int64:
		n = float64(v)
	case float64:
		n = v
	default:
		return 0, false
	}
	if n < 0 || n > math.MaxInt32 || n != math.Trunc(n) {
		return 0, false
	}
	return int32(n), true
}

// SetReplicas writes n at path in obj, making the maps on the way.
func SetReplicas(obj map[string]any, path string, n int32) error {
	parent, key, err := walk(obj, path, true)
	if err != nil {
		return err
	}
	parent[key] = int64(n)
	return nil
}

// walk follows a JSON pointer of object keys to the map holding its last
// key; create makes missing maps.
func walk(obj map[string]any, path string, create bool) (map[string]any, string, error) {
	if !strings.HasPrefix(path, "/") {
		return nil, "", fmt.Errorf("replica path %q: want a JSON pointer, such as /spec/replicas", path)
	}
	keys := strings.Split(path[1:], "/")
	cur := obj
	for i, k := range keys {
		k = strings.ReplaceAll(strings.ReplaceAll(k, "~1", "/"), "~0", "~")
		if i == len(keys)-1 {
			return cur, k, nil
		}
		next, ok := cur[k].(map[string]any)
		if !ok {
			if cur[k] != nil || !create {
				return nil, "", fmt.Errorf("replica path %s: %s is not an object", path, "/"+strings.Join(keys[:i+1], "/"))
			}
			next = map[string]any{}
			cur[k] = next
		}
		cur = next
	}
	return nil, "", fmt.Errorf("replica path %q is empty", path)
}
