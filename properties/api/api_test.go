package api

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBound(t *testing.T) {
	many := func(n int) []Claim {
		var out []Claim
		for i := range n {
			out = append(out, Claim{Name: fmt.Sprintf("user-%02d", i), Value: "v"})
		}
		return out
	}
	cases := map[string]struct {
		own, user   []Claim
		wantKept    int
		wantFirst   string
		wantDropped []string
	}{
		"within the bounds, own first, users by name": {
			own: []Claim{{Name: ClaimKubeVersion, Value: "v1.35.4"}}, user: []Claim{{Name: "b", Value: "2"}, {Name: "a", Value: "1"}},
			wantKept: 3, wantFirst: ClaimKubeVersion,
		},
		"too many: the last users' are dropped": {
			own: []Claim{{Name: ClaimKubeVersion, Value: "v1.35.4"}}, user: many(MaxClaims + 1),
			wantKept: MaxClaims, wantFirst: ClaimKubeVersion, wantDropped: []string{"user-19", "user-20"},
		},
		"a value too long is dropped": {
			user:     []Claim{{Name: "big", Value: strings.Repeat("x", MaxClaimValueLength+1)}, {Name: "ok", Value: "y"}},
			wantKept: 1, wantFirst: "ok", wantDropped: []string{"big"},
		},
		"a user claim cannot shadow an own one": {
			own: []Claim{{Name: ClaimPlatform, Value: "AWS"}}, user: []Claim{{Name: ClaimPlatform, Value: "fake"}},
			wantKept: 1, wantFirst: ClaimPlatform,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			kept, dropped := Bound(tc.own, tc.user)
			if len(kept) != tc.wantKept {
				t.Errorf("kept %d claims, want %d", len(kept), tc.wantKept)
			}
			if len(kept) > 0 && kept[0].Name != tc.wantFirst {
				t.Errorf("first claim %s, want %s", kept[0].Name, tc.wantFirst)
			}
			if tc.wantFirst == ClaimPlatform && kept[0].Value != "AWS" {
				t.Errorf("the user's claim replaced the agent's: %v", kept[0])
			}
			if diff := cmp.Diff(tc.wantDropped, dropped); diff != "" {
				t.Errorf("dropped (-want +got):\n%s", diff)
			}
		})
	}
}
