package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/corral-dev/corral/internal/output"
	"github.com/corral-dev/corral/work/hub/validation"
)

// manifestExtensions are the files of a directory -f reads, as kubectl
// does.
var manifestExtensions = []string{".yaml", ".yml", ".json"}

// ReadManifests reads the Kubernetes objects of a YAML or JSON file (or
// standard input for "-", or every .yaml, .yml and .json file of a
// directory, in name order), several YAML documents and kind List
// expanded, and checks them as the hub's webhook will.
func ReadManifests(path string, stdin io.Reader) ([]workv1.Manifest, error) {
	files, err := manifestFiles(path)
	if err != nil {
		return nil, err
	}
	var manifests []workv1.Manifest
	for _, f := range files {
		var data []byte
		if f == "-" {
			data, err = io.ReadAll(stdin)
		} else {
			data, err = os.ReadFile(f)
		}
		if err != nil {
			return nil, fmt.Errorf("reading manifest file %s: %w", f, err)
		}
		read, err := decodeManifests(f, data)
		if err != nil {
			return nil, err
		}
		manifests = append(manifests, read...)
	}
	if len(manifests) == 0 {
		return nil, fmt.Errorf("%s holds no Kubernetes objects: a work needs at least one", path)
	}
	if err := validation.Manifests(manifests); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return manifests, nil
}

// manifestFiles are the files -f path names: itself, or a directory's
// manifest files sorted by name.
func manifestFiles(path string) ([]string, error) {
	if path == "-" {
		return []string{path}, nil
	}
	info, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("manifest file %s does not exist: give -f with a YAML file of Kubernetes objects, or a directory of them", path)
	}
	if err != nil {
		return nil, fmt.Errorf("reading manifest file %s: %w", path, err)
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, fmt.Errorf("reading directory %s: %w", path, err)
	}
	var files []string
	for _, e := range entries {
		if !e.IsDir() && slices.Contains(manifestExtensions, strings.ToLower(filepath.Ext(e.Name()))) {
			files = append(files, filepath.Join(path, e.Name()))
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("directory %s holds no .yaml, .yml or .json file: give -f a directory of manifests, or a file", path)
	}
	slices.Sort(files)
	return files, nil
}

// decodeManifests reads the objects of one file's data.
func decodeManifests(path string, data []byte) ([]workv1.Manifest, error) {
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
	return manifests, nil
}

// object reads a manifest as an object, for its kind, name, namespace and
// spec; the manifests were checked by ReadManifests (or the webhook).
func object(m workv1.Manifest) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(m.Raw); err != nil {
		return &unstructured.Unstructured{Object: map[string]any{}}
	}
	return u
}

// objectName is how a message names an object: "deployment web", or
// "deployment default/web".
func objectName(u *unstructured.Unstructured) string {
	name := u.GetName()
	if u.GetNamespace() != "" {
		name = u.GetNamespace() + "/" + name
	}
	return strings.ToLower(u.GetKind()) + " " + name
}
