package validation

import (
	"errors"
	"fmt"

	utiljson "k8s.io/apimachinery/pkg/util/json"

	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/util/sets"
	workv1 "open-cluster-management.io/api/work/v1"
)

// MaxManifestsSize caps the total size of a work's manifests, in bytes:
// OCM's 500 KiB.
const MaxManifestsSize = 500 * 1024

// ErrNoManifests is returned (wrapped) for a work with no manifests.
var ErrNoManifests = errors.New("the work has no manifests: give at least one Kubernetes object")

// manifestMeta is what a manifest must say of itself.
type manifestMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name         string `json:"name"`
		GenerateName string `json:"generateName"`
		Namespace    string `json:"namespace"`
	} `json:"metadata"`
}

// Manifests checks a work's manifests: at least one, MaxManifestsSize in
// all, each a JSON object with apiVersion, kind and metadata.name (no
// generateName), none twice.
func Manifests(manifests []workv1.Manifest) error {
	if len(manifests) == 0 {
		return ErrNoManifests
	}
	total := 0
	for _, m := range manifests {
		total += len(m.Raw)
	}
	if total > MaxManifestsSize {
		return fmt.Errorf("the manifests are %d bytes, over the %d bytes (500 KiB) a work may carry: split them over several works", total, MaxManifestsSize)
	}
	seen := sets.New[string]()
	for i, m := range manifests {
		id, err := manifest(m.Raw)
		if err != nil {
			return fmt.Errorf("manifest %d: %w", i, err)
		}
		if seen.Has(id) {
			return fmt.Errorf("manifest %d: %s is in the work twice: give each object once", i, id)
		}
		seen.Insert(id)
	}
	return nil
}

// manifest checks one manifest and names it: apiVersion kind namespace/name.
func manifest(raw []byte) (string, error) {
	if len(raw) == 0 {
		return "", errors.New("it is empty: give a Kubernetes object")
	}
	var m manifestMeta
	// Keys are read case-sensitively, as the agent and the API server read
	// them: "Metadata" is not metadata.
	if err := utiljson.Unmarshal(raw, &m); err != nil {
		return "", fmt.Errorf("it is not a Kubernetes object (a JSON or YAML map): %w", err)
	}
	var missing []string
	if m.APIVersion == "" {
		missing = append(missing, "apiVersion")
	}
	if m.Kind == "" {
		missing = append(missing, "kind")
	}
	if m.Metadata.Name == "" {
		missing = append(missing, "metadata.name")
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("it has no %s: every manifest needs apiVersion, kind and metadata.name", joinAnd(missing))
	}
	if m.Metadata.GenerateName != "" {
		return "", errors.New("it sets metadata.generateName: a work applies objects by name, so give metadata.name only")
	}
	// Kinds differ in the names they accept; a name that cannot be in a
	// URL path is refused by every one.
	if errs := path.IsValidPathSegmentName(m.Metadata.Name); len(errs) > 0 {
		return "", fmt.Errorf("metadata.name %q is not a valid object name: %s", m.Metadata.Name, errs[0])
	}
	name := m.Metadata.Name
	if m.Metadata.Namespace != "" {
		name = m.Metadata.Namespace + "/" + name
	}
	return fmt.Sprintf("%s %s %s", m.APIVersion, m.Kind, name), nil
}

func joinAnd(words []string) string {
	switch len(words) {
	case 1:
		return words[0]
	case 2:
		return words[0] + " and " + words[1]
	}
	return words[0] + ", " + joinAnd(words[1:])
}
