package revision

import (
	"encoding/json"
	"errors"
	"fmt"

	workv1 "open-cluster-management.io/api/work/v1"
)

const (
	// MaxWorkBytes is the most a ManifestWork's manifests may weigh in
	// all: OCM's 500 KiB cap, which the work hub's validation enforces.
	MaxWorkBytes = 500 * 1024
	// PartBudget is what Split is given for a part: under MaxWorkBytes,
	// leaving room for what a work adds to its manifests.
	PartBudget = 400 * 1024
)

// ErrTooLarge is returned (wrapped) by Split for an object no
// ManifestWork can carry.
var ErrTooLarge = errors.New("over the 500 KiB a ManifestWork may carry")

// Split shares manifests, in their order, over parts of at most budget
// bytes each, one ManifestWork per part, never splitting a manifest: a new
// part starts when the next manifest would take the current one over
// budget. A manifest over budget has a part of its own; one over
// MaxWorkBytes is an error wrapping ErrTooLarge. No manifests give no
// parts.
func Split(manifests []workv1.Manifest, budget int) ([][]workv1.Manifest, error) {
	if budget <= 0 {
		return nil, fmt.Errorf("a budget of %d bytes: give a positive one", budget)
	}
	var parts [][]workv1.Manifest
	var part []workv1.Manifest
	size := 0
	for i, m := range manifests {
		n := len(m.Raw)
		if n > MaxWorkBytes {
			return nil, fmt.Errorf("manifest %d (%s) is %d bytes, %w", i, name(m), n, ErrTooLarge)
		}
		if len(part) > 0 && size+n > budget {
			parts = append(parts, part)
			part, size = nil, 0
		}
		part = append(part, m)
		size += n
	}
	if len(part) > 0 {
		parts = append(parts, part)
	}
	return parts, nil
}

// name names a manifest in messages: Kind namespace/name, as far as it
// decodes.
func name(m workv1.Manifest) string {
	var meta struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Namespace string `json:"namespace"`
			Name      string `json:"name"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(m.Raw, &meta); err != nil {
		return "undecodable"
	}
	if meta.Metadata.Namespace != "" {
		return meta.Kind + " " + meta.Metadata.Namespace + "/" + meta.Metadata.Name
	}
	return meta.Kind + " " + meta.Metadata.Name
}
