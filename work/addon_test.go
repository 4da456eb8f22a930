package work

import (
	"slices"
	"testing"

	"github.com/corral-dev/corral/registration/hub/managedcluster"
)

// The registration core deletes a deleted cluster's work addon after its
// ManifestWorks, so that the addon's agent is there to remove what they
// applied: it must know the addon by this name.
func TestTheRegistrationCoreDeletesTheWorkAddOnLast(t *testing.T) {
	if !slices.Contains(managedcluster.DefaultWorkAddOns, AddonName) {
		t.Errorf("managedcluster.DefaultWorkAddOns = %v, want it to hold the work addon %q", managedcluster.DefaultWorkAddOns, AddonName)
	}
}
