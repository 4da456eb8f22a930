package webhook

import (
	"context"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
)

func binding(name, set string) *clusterv1beta2.ManagedClusterSetBinding {
	return &clusterv1beta2.ManagedClusterSetBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team-a"},
		Spec:       clusterv1beta2.ManagedClusterSetBindingSpec{ClusterSet: set},
	}
}

func TestBindingValidator(t *testing.T) {
	cases := map[string]struct {
		op       admissionv1.Operation
		obj, old *clusterv1beta2.ManagedClusterSetBinding
		grants   grants
		sarFails bool
		want     outcome
	}{
		"binding a set the user may bind": {
			op: admissionv1.Create, obj: binding("set-a", "set-a"), grants: grants{"bind/set-a"},
			want: allowedOutcome(),
		},
		"binding a set the user may not bind": {
			op: admissionv1.Create, obj: binding("set-a", "set-a"), grants: grants{"bind/set-b", "join/set-a"},
			want: refused(403, `user "alice" may not bind cluster set "set-a" to namespace "team-a"`,
				`create on managedclustersets/bind (API group cluster.open-cluster-management.io) for "set-a"`),
		},
		"a binding not named after its set": {
			op: admissionv1.Create, obj: binding("mine", "set-a"), grants: grants{"bind/set-a"},
			want: refused(400, `managed cluster set binding "mine" in namespace "team-a" binds cluster set "set-a"`, `name it "set-a"`),
		},
		"an update that points the binding at another set": {
			op: admissionv1.Update, obj: binding("set-a", "set-b"), old: binding("set-a", "set-a"), grants: grants{"bind/set-b"},
			want: refused(400, `binds cluster set "set-b"`),
		},
		"an update of a well-named binding needs no permission": {
			op: admissionv1.Update, obj: binding("set-a", "set-a"), old: binding("set-a", "set-a"),
			want: allowedOutcome(),
		},
		"an authorizer that fails": {
			op: admissionv1.Create, obj: binding("set-a", "set-a"), sarFails: true,
			want: refused(500, "the authorizer is down"),
		},
		"a delete is let through": {
			op: admissionv1.Delete, old: binding("set-a", "set-a"),
			want: allowedOutcome(),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			kube := newFakeKube(tc.grants, tc.sarFails)
			v := &bindingValidator{access: accessReviewer{kube: kube}}
			checkOutcome(t, v.Handle(context.Background(), request(t, tc.op, tc.obj, tc.old)), tc.want)
		})
	}
}
