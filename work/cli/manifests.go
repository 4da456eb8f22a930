package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/corral-dev/corral/internal/output"
	"github.com/corral-dev/corral/work/hub/validation"
)

// ReadManifests reads the Kubernetes objects of a YAML or JSON file (or
// standard input for "-"), several YAML documents and kind List expanded,
// and checks them as the hub's webhook will.
func ReadManifests(path string, stdin io.Reader) ([]workv1.Manifest, error) {
	var data []byte
	var err error
	if path == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("manifest file %s does not exist: give -f with a YAML file of Kubernetes objects", path)
		}
		return nil, fmt.Errorf("reading manifest file %s: %w", path, err)
	}
	var manifests []workv1.Manifest
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for doc := 1; ; doc++ {
		var v any
		if err := decoder.Decode(&v); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("%s: document %d is not YAML or JSON: %w", path, doc, err)
		}
		obj, isMap := v.(map[string]any)
		switch {
		case v == nil || isMap && len(obj) == 0:
			continue // an empty document, e.g. between two ---
		case !isMap:
			return nil, fmt.Errorf("%s: document %d is a %s, not a Kubernetes object (a map with apiVersion, kind and metadata)", path, doc, output.ValueKind(v))
		}
		objs := []any{obj}
		if obj["kind"] == "List" {
			items, _ := obj["items"].([]any)
			objs = items
		}
		for _, o := range objs {
			raw, err := json.Marshal(o)
			if err != nil {
				return nil, fmt.Errorf("%s: document %d: %w", path, doc, err)
			}
			manifests = append(manifests, workv1.Manifest{RawExtension: runtime.RawExtension{Raw: raw}})
		}
	}
	if len(manifests) == 0 {
		return nil, fmt.Errorf("%s holds no Kubernetes objects: a work needs at least one", path)
	}
	if err := validation.Manifests(manifests); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return manifests, nil
}
