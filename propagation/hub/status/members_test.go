package status

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/propagation/hub/aggregate"
)

func TestCollectMembers(t *testing.T) {
	member := func(outdated bool, fb workv1.StatusFeedbackResult) aggregate.Member {
		m, err := aggregate.NewMember(fb, 0)
		if err != nil {
			t.Fatal(err)
		}
		m.Outdated = outdated
		return m
	}
	other := work("c3", 2, 1, fed(1, 1, 4))
	other.Labels["apps.corral.dev/propagation"] = "other"
	cases := map[string]struct {
		clusters []string
		works    []client.Object
		want     map[string]aggregate.Member
	}{
		"both fed back, current": {
			clusters: []string{"c1", "c2"},
			works:    []client.Object{work("c1", 2, 1, fed(1, 1, 4)), work("c2", 2, 1, fed(1, 1, 2))},
			want:     map[string]aggregate.Member{"c1": member(false, fed(1, 1, 4)), "c2": member(false, fed(1, 1, 2))},
		},
		"a scheduled cluster without a work is a zero member": {
			clusters: []string{"c1", "c2"},
			works:    []client.Object{work("c1", 2, 1, fed(1, 1, 4))},
			want:     map[string]aggregate.Member{"c1": member(false, fed(1, 1, 4)), "c2": {}},
		},
		"a work of an older revision is outdated": {
			works: []client.Object{work("c1", 1, 1, fed(1, 1, 4))},
			want:  map[string]aggregate.Member{"c1": member(true, fed(1, 1, 4))},
		},
		"a work its agent has not applied is outdated": {
			works: []client.Object{work("c1", 2, 0, fed(1, 1, 4))},
			want:  map[string]aggregate.Member{"c1": member(true, fed(1, 1, 4))},
		},
		"an object of an older revision is outdated on a current work": {
			works: []client.Object{work("c1", 2, 1, fedRev("1", 1, 1, 4))},
			want:  map[string]aggregate.Member{"c1": member(true, fedRev("1", 1, 1, 4))},
		},
		"an object of the delivered revision is current before its work's Applied catches up": {
			works: []client.Object{work("c1", 2, 0, fedRev("2", 1, 1, 4))},
			want:  map[string]aggregate.Member{"c1": member(false, fedRev("2", 1, 1, 4))},
		},
		"an object whose revision label is not a number is outdated": {
			works: []client.Object{work("c1", 2, 1, fedRev("two", 1, 1, 4))},
			want:  map[string]aggregate.Member{"c1": member(true, fedRev("two", 1, 1, 4))},
		},
		"a work without feedback for the object is a zero member": {
			works: []client.Object{work("c1", 2, 1, workv1.StatusFeedbackResult{})},
			want:  map[string]aggregate.Member{"c1": {Values: map[string]any{}}},
		},
		"another propagation's work is not a member": {
			works: []client.Object{work("c1", 2, 1, fed(1, 1, 4)), other},
			want:  map[string]aggregate.Member{"c1": member(false, fed(1, 1, 4))},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := &Reconciler{Client: fakeClient(t, tc.works...), Namespaced: true}
			s := scopeOf(prop(2, tc.clusters...))
			s.targets = []target{webTarget}
			if _, err := r.collectMembers(context.Background(), s); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]map[string]aggregate.Member{tc.want}, s.members); diff != "" {
				t.Errorf("members (-want +got):\n%s", diff)
			}
		})
	}
}
