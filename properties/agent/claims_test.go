package agent

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/corral-dev/corral/properties/api"
)

func claim(name, value string, own bool) *clusterv1alpha1.ClusterClaim {
	c := &clusterv1alpha1.ClusterClaim{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: clusterv1alpha1.ClusterClaimSpec{Value: value}}
	if own {
		c.Labels = map[string]string{api.LabelClaimOwner: "true"}
	}
	return c
}

func TestSyncClaims(t *testing.T) {
	s := runtime.NewScheme()
	if err := clusterv1alpha1.Install(s); err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(
		claim(api.ClaimKubeVersion, "v1.34.0", true), // stale: updated
		claim(api.ClaimRegion, "gone", true),         // no longer observed: deleted
		claim("team", "blue", false),                 // the user's: kept, reported
	).Build()
	user, err := syncClaims(context.Background(), c, []api.Claim{{Name: api.ClaimKubeVersion, Value: "v1.35.4"}, {Name: api.ClaimNodes, Value: "2"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]api.Claim{{Name: "team", Value: "blue"}}, user); diff != "" {
		t.Errorf("user claims (-want +got):\n%s", diff)
	}
	list := &clusterv1alpha1.ClusterClaimList{}
	if err := c.List(context.Background(), list); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, cl := range list.Items {
		got[cl.Name] = cl.Spec.Value
	}
	want := map[string]string{api.ClaimKubeVersion: "v1.35.4", api.ClaimNodes: "2", "team": "blue"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("claims on the cluster (-want +got):\n%s", diff)
	}
	var created clusterv1alpha1.ClusterClaim
	if err := c.Get(context.Background(), client.ObjectKey{Name: api.ClaimNodes}, &created); err != nil || created.Labels[api.LabelClaimOwner] != "true" {
		t.Errorf("a created claim is not labelled as the agent's: %v %v", created.Labels, err)
	}
}
