package webhook

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/internal/testing/builder"
)

func TestClusterValidator(t *testing.T) {
	terminating := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "c1"}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating}}
	cases := map[string]struct {
		op       admissionv1.Operation
		obj, old *clusterv1.ManagedCluster
		grants   grants
		objects  []runtime.Object
		sarFails bool
		want     outcome
	}{
		"a new cluster in a set the user may join": {
			op: admissionv1.Create, obj: builder.Cluster("c1").InSet("set-a").Obj(), grants: grants{"join/set-a"},
			want: allowedOutcome(),
		},
		"a new cluster in a set the user may not join": {
			op: admissionv1.Create, obj: builder.Cluster("c1").InSet("set-a").Obj(), grants: grants{"join/set-b"},
			want: refused(403, `user "alice" may not add managed cluster "c1" to cluster set "set-a"`,
				`create on managedclustersets/join (API group cluster.open-cluster-management.io) for "set-a"`),
		},
		"labelling an existing cluster into a set needs join on it": {
			op: admissionv1.Update, obj: builder.Cluster("c1").InSet("set-a").Obj(), old: builder.Cluster("c1").Obj(),
			want: refused(403, `may not add managed cluster "c1" to cluster set "set-a"`, "managedclustersets/join"),
		},
		"moving a cluster between sets with join on both": {
			op: admissionv1.Update, obj: builder.Cluster("c1").InSet("set-b").Obj(), old: builder.Cluster("c1").InSet("set-a").Obj(), grants: grants{"join/set-a", "join/set-b"},
			want: allowedOutcome(),
		},
		"moving a cluster out of a set the user may not join": {
			op: admissionv1.Update, obj: builder.Cluster("c1").InSet("set-b").Obj(), old: builder.Cluster("c1").InSet("set-a").Obj(), grants: grants{"join/set-b"},
			want: refused(403, `may not take managed cluster "c1" out of cluster set "set-a"`, `for "set-a"`),
		},
		"moving a cluster into a set the user may not join": {
			op: admissionv1.Update, obj: builder.Cluster("c1").InSet("set-b").Obj(), old: builder.Cluster("c1").InSet("set-a").Obj(), grants: grants{"join/set-a"},
			want: refused(403, `may not add managed cluster "c1" to cluster set "set-b"`, `for "set-b"`),
		},
		"removing the set label needs join on the set left": {
			op: admissionv1.Update, obj: builder.Cluster("c1").Obj(), old: builder.Cluster("c1").InSet("set-a").Obj(),
			want: refused(403, `may not take managed cluster "c1" out of cluster set "set-a"`),
		},
		"an update that keeps the set needs no permission": {
			op: admissionv1.Update, obj: builder.Cluster("c1").InSet("set-a").ClientConfig("https://c1.example:6443").Obj(), old: builder.Cluster("c1").InSet("set-a").Obj(),
			want: allowedOutcome(),
		},
		"accepting at creation needs managedclusters/accept": {
			op: admissionv1.Create, obj: builder.Cluster("c1").InSet("set-a").Accepted().Obj(), grants: grants{"join/set-a"},
			want: refused(403, `user "alice" may not accept managed cluster "c1"`,
				`update on managedclusters/accept (API group register.open-cluster-management.io) for "c1"`),
		},
		"accepting at creation with managedclusters/accept": {
			op: admissionv1.Create, obj: builder.Cluster("c1").InSet("set-a").Accepted().Obj(), grants: grants{"join/set-a", "accept/c1"},
			want: allowedOutcome(),
		},
		"accepting by update needs managedclusters/accept for this cluster": {
			op: admissionv1.Update, obj: builder.Cluster("c1").InSet("set-a").Accepted().Obj(), old: builder.Cluster("c1").InSet("set-a").Obj(), grants: grants{"accept/c2"},
			want: refused(403, `may not accept managed cluster "c1"`),
		},
		"an accepted cluster stays accepted without the permission": {
			op: admissionv1.Update, obj: builder.Cluster("c1").InSet("set-a").Accepted().Obj(), old: builder.Cluster("c1").InSet("set-a").Accepted().Obj(),
			want: allowedOutcome(),
		},
		"revoking acceptance needs no accept permission": {
			op: admissionv1.Update, obj: builder.Cluster("c1").InSet("set-a").Obj(), old: builder.Cluster("c1").InSet("set-a").Accepted().Obj(),
			want: allowedOutcome(),
		},
		"accepting while the cluster namespace is terminating": {
			op: admissionv1.Update, obj: builder.Cluster("c1").InSet("set-a").Accepted().Obj(), old: builder.Cluster("c1").InSet("set-a").Obj(), grants: grants{"accept/c1"},
			objects: []runtime.Object{terminating},
			want:    refused(403, `managed cluster "c1" cannot be accepted while its namespace is terminating`),
		},
		"an http client config URL": {
			op: admissionv1.Create, obj: builder.Cluster("c1").InSet("set-a").ClientConfig("https://ok.example").ClientConfig("http://c1.example:6443").Obj(), grants: grants{"join/set-a"},
			want: refused(400, `spec.managedClusterClientConfigs[1].url "http://c1.example:6443" is not an https URL`),
		},
		"an empty client config URL": {
			op: admissionv1.Create, obj: builder.Cluster("c1").InSet("set-a").ClientConfig("").Obj(), grants: grants{"join/set-a"},
			want: refused(400, `spec.managedClusterClientConfigs[0].url "" is not an https URL`),
		},
		"a name that cannot name a namespace": {
			op: admissionv1.Create, obj: builder.Cluster("c1.example.com").InSet("set-a").Obj(), grants: grants{"join/set-a"},
			want: refused(400, `managed cluster "c1.example.com": the name must be a DNS-1123 label`),
		},
		"a reserved name": {
			op: admissionv1.Create, obj: builder.Cluster("registration").InSet("set-a").Obj(), grants: grants{"join/set-a"},
			want: refused(400, `managed cluster "registration": cluster name "registration" is reserved`),
		},
		"a name of the hub's own namespaces": {
			op: admissionv1.Create, obj: builder.Cluster("kube-system").InSet("set-a").Obj(), grants: grants{"join/set-a"},
			want: refused(400, `cluster name "kube-system" is reserved: names beginning with "kube-"`),
		},
		"a taint key that is not a qualified name": {
			op: admissionv1.Create, obj: builder.Cluster("c1").InSet("set-a").Taint("bad key!", "", clusterv1.TaintEffectNoSelect, earlier.Time).Obj(),
			want: refused(400, `spec.taints[0].key "bad key!" is not a qualified name`),
		},
		"a taint effect that does not exist": {
			op: admissionv1.Create, obj: builder.Cluster("c1").InSet("set-a").Taint("a", "", "NoExecute", earlier.Time).Obj(),
			want: refused(400, `spec.taints[0].effect "NoExecute" is not one of [NoSelect PreferNoSelect NoSelectIfNew]`),
		},
		"a taint value over 1024 characters": {
			op: admissionv1.Create, obj: builder.Cluster("c1").InSet("set-a").Taint("a", strings.Repeat("v", 1025), clusterv1.TaintEffectNoSelect, earlier.Time).Obj(),
			want: refused(400, `spec.taints[0].value is 1025 characters long, more than 1024`),
		},
		"the same taint key and effect twice": {
			op: admissionv1.Update, old: builder.Cluster("c1").InSet("set-a").Obj(), obj: builder.Cluster("c1").InSet("set-a").
				Taint("a", "1", clusterv1.TaintEffectNoSelect, earlier.Time).
				Taint("a", "2", clusterv1.TaintEffectPreferNoSelect, earlier.Time).
				Taint("a", "3", clusterv1.TaintEffectNoSelect, earlier.Time).Obj(),
			want: refused(400, `spec.taints[2] repeats key "a" with effect NoSelect of spec.taints[0]`),
		},
		"a stored malformed cluster can still be updated when its malformed fields stay": {
			op:   admissionv1.Update,
			obj:  builder.Cluster("c1.example").InSet("set-a").ClientConfig("http://x").Taint("a", "", "Nope", time.Time{}).Obj(),
			old:  builder.Cluster("c1.example").InSet("set-a").ClientConfig("http://x").Taint("a", "", "Nope", earlier.Time).Obj(),
			want: allowedOutcome(),
		},
		"an update that changes a malformed field is refused": {
			op:   admissionv1.Update,
			obj:  builder.Cluster("c1").InSet("set-a").ClientConfig("http://y").Obj(),
			old:  builder.Cluster("c1").InSet("set-a").ClientConfig("http://x").Obj(),
			want: refused(400, `url "http://y"`),
		},
		"several problems in one line": {
			op: admissionv1.Create, obj: builder.Cluster("c1").InSet("set-a").ClientConfig("http://x").Taint("a", "", "Nope", earlier.Time).Obj(),
			want: refused(400, `url "http://x"`, `effect "Nope"`),
		},
		"an authorizer that fails": {
			op: admissionv1.Create, obj: builder.Cluster("c1").InSet("set-a").Obj(), sarFails: true,
			want: refused(500, "the authorizer is down"),
		},
		"a delete is let through": {
			op: admissionv1.Delete, old: builder.Cluster("c1").InSet("set-a").Obj(),
			want: allowedOutcome(),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			kube := newFakeKube(tc.grants, tc.sarFails, tc.objects...)
			v := &clusterValidator{kube: kube, access: accessReviewer{kube: kube}}
			checkOutcome(t, v.Handle(context.Background(), request(t, tc.op, tc.obj, tc.old)), tc.want)
		})
	}
}

// The reviews carry the requesting user whole, and name the permission the
// OCM contract names.
func TestClusterValidatorAsksForTheUsersPermissions(t *testing.T) {
	kube := newFakeKube(grants{"join/set-a", "join/set-b", "accept/c1"}, false)
	v := &clusterValidator{kube: kube, access: accessReviewer{kube: kube}}
	resp := v.Handle(context.Background(), request(t, admissionv1.Update, builder.Cluster("c1").InSet("set-b").Accepted().Obj(), builder.Cluster("c1").InSet("set-a").Obj()))
	checkOutcome(t, resp, allowedOutcome())
	spec := func(group, resource, subresource, verb, name string) authorizationv1.SubjectAccessReviewSpec {
		return authorizationv1.SubjectAccessReviewSpec{
			User: "alice", UID: "u-1", Groups: alice.Groups,
			Extra: map[string]authorizationv1.ExtraValue{"scopes": {"s1"}},
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Group: group, Resource: resource, Subresource: subresource, Verb: verb, Name: name,
			},
		}
	}
	want := []authorizationv1.SubjectAccessReviewSpec{
		spec("register.open-cluster-management.io", "managedclusters", "accept", "update", "c1"),
		spec("cluster.open-cluster-management.io", "managedclustersets", "join", "create", "set-a"),
		spec("cluster.open-cluster-management.io", "managedclustersets", "join", "create", "set-b"),
	}
	if diff := cmp.Diff(want, kube.reviews); diff != "" {
		t.Errorf("reviews (-want +got):\n%s", diff)
	}
}

// TestClusterAgentMayNotChangeTheHubsTaints: the api says the unreachable
// and unavailable taints cannot be added or removed by the agent; its
// other changes, and the hub's, go through.
func TestClusterAgentMayNotChangeTheHubsTaints(t *testing.T) {
	at := time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)
	unreachable := func() *builder.ClusterBuilder {
		return builder.Cluster("c1").Taint(clusterv1.ManagedClusterTaintUnreachable, "", clusterv1.TaintEffectNoSelect, at)
	}
	agent := authenticationv1.UserInfo{Username: "system:open-cluster-management:c1:abcde",
		Groups: []string{"system:open-cluster-management:c1", "system:open-cluster-management:managed-clusters", "system:authenticated"}}
	cases := map[string]struct {
		user     authenticationv1.UserInfo
		obj, old *clusterv1.ManagedCluster
		want     outcome
	}{
		"the agent removing the unreachable taint": {user: agent, obj: builder.Cluster("c1").Obj(), old: unreachable().Obj(),
			want: refused(403, "its agent may not add or remove the taints")},
		"the agent adding it": {user: agent, obj: unreachable().Obj(), old: builder.Cluster("c1").Obj(),
			want: refused(403, "its agent may not add or remove the taints")},
		"the agent changing another taint": {user: agent, obj: unreachable().Taint("mine", "", clusterv1.TaintEffectNoSelect, at).Obj(),
			old: unreachable().Obj(), want: allowedOutcome()},
		"the hub removing it": {user: alice, obj: builder.Cluster("c1").Obj(), old: unreachable().Obj(), want: allowedOutcome()},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			kube := newFakeKube(nil, false)
			v := &clusterValidator{kube: kube, access: accessReviewer{kube: kube}}
			req := request(t, admissionv1.Update, tc.obj, tc.old)
			req.UserInfo = tc.user
			checkOutcome(t, v.Handle(context.Background(), req), tc.want)
		})
	}
}
