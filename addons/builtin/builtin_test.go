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
