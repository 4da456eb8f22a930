package install

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/corral-dev/corral/deploy/charts"
	"github.com/corral-dev/corral/deploy/charts/corral-hub/crds"
)

// namespace is a Namespace object with the labels of a release.
func namespace(name string, labels map[string]string) *unstructured.Unstructured {
	ns := &unstructured.Unstructured{}
	ns.SetAPIVersion("v1")
	ns.SetKind("Namespace")
	ns.SetName(name)
	ns.SetLabels(labels)
	return ns
}

// crdObjects are the CRDs of the hub chart (package crds), as objects to
// apply.
func crdObjects() ([]*unstructured.Unstructured, error) {
	all, err := crds.All()
	if err != nil {
		return nil, err
	}
	out := make([]*unstructured.Unstructured, 0, len(all))
	for _, crd := range all {
		obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(crd)
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{Object: obj}
		u.SetAPIVersion("apiextensions.k8s.io/v1")
		u.SetKind("CustomResourceDefinition")
		unstructured.RemoveNestedField(u.Object, "status")
		unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
		out = append(out, u)
	}
	return out, nil
}

// releaseLabels are the labels the charts give what they make, for a
// release namespace made outside the chart (as `helm --create-namespace`
// does).
func releaseLabels(chart charts.Chart, version string) map[string]string {
	return map[string]string{
		"app.kubernetes.io/name":       string(chart),
		"app.kubernetes.io/part-of":    "corral",
		"app.kubernetes.io/version":    version,
		"app.kubernetes.io/managed-by": charts.ManagedBy,
	}
}

// Print writes objs as format: "yaml", a stream of documents `kubectl
// apply -f` and GitOps tools read, or "json", a v1 List.
func Print(w io.Writer, format string, objs []*unstructured.Unstructured) error {
	switch format {
	case "yaml":
		var b strings.Builder
		for _, obj := range objs {
			doc, err := yaml.Marshal(obj.Object)
			if err != nil {
				return err
			}
			b.WriteString("---\n")
			b.Write(doc)
		}
		_, err := io.WriteString(w, b.String())
		return err
	case "json":
		items := make([]any, len(objs))
		for i, obj := range objs {
			items[i] = obj.Object
		}
		doc, err := json.MarshalIndent(map[string]any{"apiVersion": "v1", "kind": "List", "items": items}, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(w, string(doc))
		return err
	}
	return fmt.Errorf("--output %q is not supported: use yaml or json, or leave it out to install", format)
}

// splitImage parses an image reference into the charts' image values:
// repository and tag, or repository and digest.
func splitImage(ref string) (map[string]any, error) {
	repo, digest, hasDigest := strings.Cut(ref, "@")
	values := map[string]any{}
	if hasDigest {
		if !strings.HasPrefix(digest, "sha256:") || len(digest) != len("sha256:")+64 {
			return nil, fmt.Errorf("--image %q: the digest is not sha256:<64 hex digits>", ref)
		}
		values["digest"] = digest
	}
	slash := strings.LastIndex(repo, "/")
	if colon := strings.LastIndex(repo, ":"); colon > slash {
		values["tag"] = repo[colon+1:]
		repo = repo[:colon]
	} else if !hasDigest {
		return nil, fmt.Errorf("--image %q names no tag or digest: give REPOSITORY:TAG or REPOSITORY@sha256:…", ref)
	}
	if repo == "" {
		return nil, fmt.Errorf("--image %q names no repository", ref)
	}
	values["repository"] = repo
	return values, nil
}
