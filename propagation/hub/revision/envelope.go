package revision

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// IsEnvelope says whether obj is an envelope: a ConfigMap labelled
// apps.corral.dev/envelope "true", delivering the manifests in its data
// values instead of itself.
func IsEnvelope(obj *unstructured.Unstructured) bool {
	gvk := obj.GroupVersionKind()
	return gvk.Group == "" && gvk.Kind == "ConfigMap" && obj.GetLabels()[v1alpha1.LabelEnvelope] == "true"
}

// EnvelopeName is the value of AnnotationEnvelope on the objects of an
// envelope: the ConfigMap's namespace/name.
func EnvelopeName(envelope *unstructured.Unstructured) string {
	return envelope.GetNamespace() + "/" + envelope.GetName()
}

// Enveloped is one object of an envelope, and the data key it is under.
type Enveloped struct {
	Key    string
	Object *unstructured.Unstructured
}

// Open decodes the manifests an envelope carries: each data value (by
// key, in key order) is YAML or JSON of one or more documents separated
// by "---" lines; empty documents are skipped. Each object gets the
// annotation AnnotationEnvelope, naming the envelope, and is otherwise
// as written. A value that does not decode, or a document that is not an
// object with apiVersion, kind and metadata.name, is an error of one line
// naming the envelope, the key and the document. binaryData is not read.
func Open(envelope *unstructured.Unstructured) ([]Enveloped, error) {
	data, _, err := unstructured.NestedStringMap(envelope.Object, "data")
	if err != nil {
		return nil, fmt.Errorf("envelope ConfigMap %s: data: %w", EnvelopeName(envelope), err)
	}
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var out []Enveloped
	for _, key := range keys {
		objs, err := decodeValue(data[key])
		if err != nil {
			return nil, fmt.Errorf("envelope ConfigMap %s, key %q: %s", EnvelopeName(envelope), key, oneLine(err.Error()))
		}
		for _, obj := range objs {
			annotations := obj.GetAnnotations()
			if annotations == nil {
				annotations = map[string]string{}
			}
			annotations[v1alpha1.AnnotationEnvelope] = EnvelopeName(envelope)
			obj.SetAnnotations(annotations)
			out = append(out, Enveloped{Key: key, Object: obj})
		}
	}
	return out, nil
}

// decodeValue decodes the documents of one data value.
func decodeValue(value string) ([]*unstructured.Unstructured, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(value)))
	var out []*unstructured.Unstructured
	for n := 1; ; n++ {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", n, err)
		}
		obj, err := decodeDocument(doc)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", n, err)
		}
		if obj != nil {
			out = append(out, obj)
		}
	}
}

// decodeDocument decodes one YAML or JSON document; nil for an empty one.
func decodeDocument(doc []byte) (*unstructured.Unstructured, error) {
	j, err := yaml.YAMLToJSON(doc)
	if err != nil {
		return nil, err
	}
	var v any
	// utiljson keeps integers int64, as the API machinery's objects have
	// them.
	if err := utiljson.Unmarshal(j, &v); err != nil {
		return nil, err
	}
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("a %T is not an object", v)
	}
	obj := &unstructured.Unstructured{Object: m}
	for _, f := range []struct{ name, value string }{
		{"apiVersion", stringAt(m, "apiVersion")},
		{"kind", stringAt(m, "kind")},
		{"metadata.name", stringAt(m, "metadata", "name")},
	} {
		if f.value == "" {
			return nil, fmt.Errorf("the object has no %s", f.name)
		}
	}
	if _, err := schema.ParseGroupVersion(obj.GetAPIVersion()); err != nil {
		return nil, fmt.Errorf("apiVersion %q is not group/version", obj.GetAPIVersion())
	}
	return obj, nil
}

// stringAt is the string at path in m, "" when it is missing or not a
// string.
func stringAt(m map[string]any, path ...string) string {
	s, _, _ := unstructured.NestedString(m, path...)
	return s
}

// oneLine joins a multi-line message into one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
