package apply

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/corral-dev/corral/work/adoption"
)

// bookkeeping are the label and annotation prefixes of what corral and
// the work agent put on objects for themselves: never a difference.
var bookkeeping = []string{"apps.corral.dev/", workv1.ObjectSpecHash}

// Diff lists the fields the manifest (desired) gives whose value the
// object on the cluster (existing) does not have, in the manifest's
// order of keys (sorted): every field outside metadata and status, and
// the labels and annotations the manifest sets, but corral's own
// (bookkeeping). A field the cluster has and the manifest does not give
// is no difference (a default, or another controller's), nor is an
// ignored one, nor a zero value (false, 0, "") the cluster leaves out, as
// the API server stores it. Numbers compare by value; a missing field, null, {} and
// [] alike. Lists compare item by item when both have as many, else
// whole.
func Diff(desired, existing *unstructured.Unstructured, ignored []fieldPath) []adoption.Field {
	d := &differ{ignored: ignored}
	for _, k := range sortedKeys(desired.Object) {
		switch k {
		case "apiVersion", "kind", "status":
		case "metadata":
			for _, field := range []string{"labels", "annotations"} {
				want, _, _ := unstructured.NestedStringMap(desired.Object, "metadata", field)
				have, _, _ := unstructured.NestedStringMap(existing.Object, "metadata", field)
				for _, key := range sortedKeys(want) {
					if slices.ContainsFunc(bookkeeping, func(p string) bool { return strings.HasPrefix(key, p) }) {
						continue
					}
					var cluster any
					if v, ok := have[key]; ok {
						cluster = v
					}
					d.compare(fieldPath{"metadata", field, key}, want[key], cluster)
				}
			}
		default:
			d.compare(fieldPath{k}, desired.Object[k], existing.Object[k])
		}
	}
	return d.fields
}

type differ struct {
	ignored []fieldPath
	fields  []adoption.Field
}

func (d *differ) compare(path fieldPath, hub, cluster any) {
	if slices.ContainsFunc(d.ignored, func(p fieldPath) bool { return slices.Equal(p, path) }) {
		return
	}
	switch h := hub.(type) {
	case map[string]any:
		if c, ok := cluster.(map[string]any); ok || cluster == nil {
			for _, k := range sortedKeys(h) {
				var cv any
				if c != nil {
					cv = c[k]
				}
				d.compare(append(slices.Clip(path), k), h[k], cv)
			}
			return
		}
	case []any:
		if c, ok := cluster.([]any); ok && len(c) == len(h) {
			for i := range h {
				d.compare(append(slices.Clip(path), strconv.Itoa(i)), h[i], c[i])
			}
			return
		}
	}
	if cluster == nil && zero(hub) {
		return // the API server leaves out a zero value: false, 0, ""
	}
	if !equal(hub, cluster) {
		d.fields = append(d.fields, adoption.Field{Path: path.String(), Hub: rawJSON(hub), Cluster: rawJSON(cluster)})
	}
}

func zero(v any) bool {
	switch x := v.(type) {
	case bool:
		return !x
	case string:
		return x == ""
	}
	return normalise(v) == float64(0)
}

func rawJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// String is the path as a JSON path, as kubectl writes one:
// .spec.containers[0].image, dots in a key escaped.
func (p fieldPath) String() string {
	var b strings.Builder
	for _, step := range p {
		if _, err := strconv.Atoi(step); err == nil {
			b.WriteString("[" + step + "]")
			continue
		}
		b.WriteString("." + strings.ReplaceAll(step, ".", `\.`))
	}
	return b.String()
}
