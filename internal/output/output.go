// Package output prints what a verb returns the way kubectl does: a table
// by default, or the object as -o json or -o yaml.
package output

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// AddFlag registers -o/--output on fs, into format.
func AddFlag(fs *pflag.FlagSet, format *string) {
	fs.StringVarP(format, "output", "o", *format, "output format: json or yaml (default: a table)")
}

// Validate says, in one line, what is wrong with format.
func Validate(format string) error {
	switch format {
	case "", "json", "yaml":
		return nil
	}
	return fmt.Errorf("--output %q is not supported: use json or yaml, or leave it out for a table", format)
}

// Print writes obj as format, or calls table for the default.
func Print(w io.Writer, format string, obj any, table func(io.Writer)) error {
	switch format {
	case "json":
		b, err := json.MarshalIndent(obj, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(w, string(b))
		return err
	case "yaml":
		b, err := yaml.Marshal(obj)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	case "":
		table(w)
		return nil
	}
	return Validate(format)
}

// Object is what Objects prints: a pointer to a Kubernetes object.
type Object[T any] interface {
	*T
	metav1.Object
	runtime.Object
}

// list is kubectl's -o json|yaml form of several objects.
type list struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Items      []any  `json:"items"`
}

// Objects writes items, objects of apiVersion and kind, as format (json or
// yaml) the way kubectl get does: the object itself when one was asked for
// by name (one), else a v1 List of them; each with its apiVersion and
// kind, and without managedFields.
func Objects[T any, P Object[T]](w io.Writer, format, apiVersion, kind string, items []T, one bool) error {
	gvk := schema.FromAPIVersionAndKind(apiVersion, kind)
	out := make([]any, len(items))
	for i := range items {
		obj := P(&items[i])
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		obj.SetManagedFields(nil)
		out[i] = obj
	}
	if one && len(out) == 1 {
		return Print(w, format, out[0], nil)
	}
	return Print(w, format, list{APIVersion: "v1", Kind: "List", Items: out}, nil)
}

// ValueKind names, for a person, the kind of a value decoded from YAML or
// JSON: "map", "list", "string", "number", "boolean" or "null".
func ValueKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "map"
	case []any:
		return "list"
	case string:
		return "string"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return "number"
}

// OrDash is s, or "-" for an empty cell of a table.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
