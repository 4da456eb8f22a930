package propagation

import "testing"

// TestAddon checks the seam: a valid built-in addon with a hub half and
// no agent half.
func TestAddon(t *testing.T) {
	a := Addon()
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	if a.SetupHub == nil || a.RunAgent != nil || len(a.HubRules) > 0 {
		t.Errorf("want a hub half only, got SetupHub %t, RunAgent %t, HubRules %v", a.SetupHub != nil, a.RunAgent != nil, a.HubRules)
	}
}
