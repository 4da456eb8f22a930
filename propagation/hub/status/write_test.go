package status

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/propagation/hub/aggregate"
)

func TestWriteStatus(t *testing.T) {
	member := func(gen, observed, n int64) aggregate.Member {
		m, err := aggregate.NewMember(fed(gen, observed, n), 0)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	cases := map[string]struct {
		template *appsv1.Deployment
		members  map[string]aggregate.Member
		want     *appsv1.DeploymentStatus
		written  bool
	}{
		"both caught up: summed, observedGeneration reached": {
			template: template(appsv1.DeploymentStatus{}),
			members:  map[string]aggregate.Member{"c1": member(1, 1, 4), "c2": member(1, 1, 4)},
			want:     &appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 8, ReadyReplicas: 8, UpdatedReplicas: 8, AvailableReplicas: 8},
			written:  true,
		},
		"one not fed back: observedGeneration held back": {
			template: template(appsv1.DeploymentStatus{}),
			members:  map[string]aggregate.Member{"c1": member(1, 1, 4), "c2": {}},
			want:     &appsv1.DeploymentStatus{Replicas: 4, ReadyReplicas: 4, UpdatedReplicas: 4, AvailableReplicas: 4},
			written:  true,
		},
		"unchanged: not written": {
			template: template(appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 8, ReadyReplicas: 8, UpdatedReplicas: 8, AvailableReplicas: 8}),
			members:  map[string]aggregate.Member{"c1": member(1, 1, 4), "c2": member(1, 1, 4)},
			want:     &appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 8, ReadyReplicas: 8, UpdatedReplicas: 8, AvailableReplicas: 8},
		},
		"no template on the hub: skipped": {
			members: map[string]aggregate.Member{"c1": member(1, 1, 4)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var objs []client.Object
			if tc.template != nil {
				objs = append(objs, tc.template)
			}
			c := fakeClient(t, objs...)
			before := &appsv1.Deployment{}
			_ = c.Get(context.Background(), client.ObjectKey{Namespace: "shop", Name: "web"}, before)
			s := scopeOf(prop(2, "c1", "c2"))
			s.targets, s.members = []target{webTarget}, []map[string]aggregate.Member{tc.members}
			if _, err := (&Reconciler{Client: c, Templates: c, Namespaced: true}).writeStatus(context.Background(), s); err != nil {
				t.Fatal(err)
			}
			if tc.template == nil {
				return
			}
			got := &appsv1.Deployment{}
			if err := c.Get(context.Background(), client.ObjectKey{Namespace: "shop", Name: "web"}, got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(*tc.want, got.Status); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
			if written := got.ResourceVersion != before.ResourceVersion; written != tc.written {
				t.Errorf("written = %v, want %v", written, tc.written)
			}
		})
	}
}

// template is the hub's Deployment shop/web, 4 replicas, generation 1,
// with status.
func template(status appsv1.DeploymentStatus) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", Generation: 1},
		Spec:       appsv1.DeploymentSpec{Replicas: ptr.To[int32](4)},
		Status:     status,
	}
}
