package bootstrap

import "testing"

// TestIsJoinRequester: the joins corral accept approves are those OCM's
// clusteradm accept approves — the bootstrap service account and
// bootstrap-token users of the managed-cluster group — and the older
// corral account's; nobody else's.
func TestIsJoinRequester(t *testing.T) {
	for name, tc := range map[string]struct {
		user   string
		groups []string
		want   bool
	}{
		"the bootstrap service account":        {"system:serviceaccount:open-cluster-management:agent-registration-bootstrap", nil, true},
		"older corral hubs' account":           {"system:serviceaccount:open-cluster-management:cluster-bootstrap", nil, true},
		"a bootstrap-token user of the group":  {"system:bootstrap:abc123", []string{"system:bootstrappers", TokenGroup}, true},
		"a bootstrap-token user of kubelets":   {"system:bootstrap:abc123", []string{"system:bootstrappers", "system:bootstrappers:kubeadm:default-node-token"}, false},
		"a user claiming the group":            {"mallory", []string{TokenGroup}, false},
		"another service account of namespace": {"system:serviceaccount:open-cluster-management:default", nil, false},
	} {
		if got := IsJoinRequester(tc.user, tc.groups, Requesters()); got != tc.want {
			t.Errorf("%s: IsJoinRequester(%q, %v) = %v, want %v", name, tc.user, tc.groups, got, tc.want)
		}
	}
}
