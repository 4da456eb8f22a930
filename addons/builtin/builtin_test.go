package builtin

import "testing"

func TestAllValid(t *testing.T) {
	seen := map[string]bool{}
	for _, a := range All() {
		if err := a.Validate(); err != nil {
			t.Error(err)
		}
		if seen[a.Name] {
			t.Errorf("addon %s is listed twice", a.Name)
		}
		seen[a.Name] = true
	}
}

// TestHubOnly: propagation is listed and is the one built-in without an
// agent half, so `dev up` and the install suite enable every other one on
// clusters and it on none.
func TestHubOnly(t *testing.T) {
	var hubOnly []string
	for _, a := range All() {
		if a.HubOnly() {
			hubOnly = append(hubOnly, a.Name)
		}
	}
	if len(hubOnly) != 1 || hubOnly[0] != "propagation" {
		t.Errorf("hub-only built-ins %v, want [propagation]", hubOnly)
	}
}
