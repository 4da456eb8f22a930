package cli

import (
	"fmt"
	"slices"
	"strings"

	workv1 "open-cluster-management.io/api/work/v1"
)

// dropped names the objects of old that manifests no longer has: what
// the agent removes from a cluster when apply replaces old's objects.
func dropped(old []workv1.Manifest, manifests []workv1.Manifest) []string {
	kept := map[string]bool{}
	for _, m := range manifests {
		kept[identity(m)] = true
	}
	var gone []string
	for _, m := range old {
		if id := identity(m); !kept[id] {
			u := object(m)
			gone = append(gone, resourceName(workv1.ManifestResourceMeta{Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName()}))
		}
	}
	slices.Sort(gone)
	return gone
}

// identity is what makes a manifest the same object on a cluster: its
// group, kind, namespace and name.
func identity(m workv1.Manifest) string {
	u := object(m)
	return strings.Join([]string{u.GroupVersionKind().Group, u.GetKind(), u.GetNamespace(), u.GetName()}, "/")
}

// droppedLine is the Removes line for the objects apply takes off where.
func droppedLine(gone []string, where string) string {
	return fmt.Sprintf("%s: the agent removes %s (not in the file any more)", where, strings.Join(gone, ", "))
}
