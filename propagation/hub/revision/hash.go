package revision

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// HashPrefix starts every Hash, as a revision's spec.hash must.
const HashPrefix = "sha256:"

// Hash names objs, cleaned by Clean: "sha256:" and the hex SHA-256 of
// their JSON in Sort's order. It does not depend on the order of objs or
// of their fields, and does not change objs.
func Hash(objs []*unstructured.Unstructured) (string, error) {
	sorted := slices.Clone(objs)
	Sort(sorted)
	h := sha256.New()
	var size [8]byte
	for _, obj := range sorted {
		// encoding/json writes map keys sorted: the same object always
		// gives the same bytes.
		b, err := json.Marshal(obj.Object)
		if err != nil {
			return "", fmt.Errorf("encoding %s: %w", describe(obj), err)
		}
		// Each object's length first, so that no two lists of objects
		// hash the same bytes.
		binary.BigEndian.PutUint64(size[:], uint64(len(b)))
		h.Write(size[:])
		h.Write(b)
	}
	return HashPrefix + hex.EncodeToString(h.Sum(nil)), nil
}

// HashWithOverrides is Hash of objs, and then of overrides when there
// are any: a revision without overrides hashes as it did before they
// existed, so that no revision is made again for them.
func HashWithOverrides(objs []*unstructured.Unstructured, overrides []v1alpha1.OverrideSnapshot) (string, error) {
	hash, err := Hash(objs)
	if err != nil || len(overrides) == 0 {
		return hash, err
	}
	b, err := json.Marshal(overrides)
	if err != nil {
		return "", fmt.Errorf("encoding the overrides: %w", err)
	}
	h := sha256.New()
	h.Write([]byte(hash))
	h.Write([]byte{0})
	h.Write(b)
	return HashPrefix + hex.EncodeToString(h.Sum(nil)), nil
}

// Manifests encodes objs, in their order, as OCM work Manifests: what a
// revision holds and a ManifestWork carries.
func Manifests(objs []*unstructured.Unstructured) ([]workv1.Manifest, error) {
	out := make([]workv1.Manifest, 0, len(objs))
	for _, obj := range objs {
		b, err := json.Marshal(obj.Object)
		if err != nil {
			return nil, fmt.Errorf("encoding %s: %w", describe(obj), err)
		}
		out = append(out, workv1.Manifest{RawExtension: runtime.RawExtension{Raw: b}})
	}
	return out, nil
}

// describe names obj in messages: Kind namespace/name.
func describe(obj *unstructured.Unstructured) string {
	if ns := obj.GetNamespace(); ns != "" {
		return obj.GetKind() + " " + ns + "/" + obj.GetName()
	}
	return obj.GetKind() + " " + obj.GetName()
}
