package managedcluster

import (
	"slices"
	"testing"

	clusterv1 "open-cluster-management.io/api/cluster/v1"
)

// TestClusterRoleIsScopedToItsCluster: every rule on ManagedClusters names
// the cluster, so one cluster's identity can never reach (or delete)
// another's.
func TestClusterRoleIsScopedToItsCluster(t *testing.T) {
	role := clusterRole("c1")
	scoped := 0
	for _, r := range role.Rules {
		if !slices.Contains(r.APIGroups, clusterv1.GroupName) {
			continue
		}
		scoped++
		if !slices.Equal(r.ResourceNames, []string{"c1"}) {
			t.Errorf("rule on %v has resourceNames %v, want [c1]", r.Resources, r.ResourceNames)
		}
		// Deleting its own ManagedCluster is how a cluster unjoins; creating
		// one is the bootstrap identity's alone.
		if slices.Contains(r.Verbs, "create") {
			t.Errorf("rule on %v grants %v: a cluster may not create ManagedClusters", r.Resources, r.Verbs)
		}
	}
	if scoped != 2 {
		t.Errorf("%d rules on %s, want 2 (managedclusters and their status)", scoped, clusterv1.GroupName)
	}
}

// TestBindingsNameOnlyTheClusterGroup: the bindings grant to the cluster's
// group and nobody else, and the role binding lives in its namespace.
func TestBindingsNameOnlyTheClusterGroup(t *testing.T) {
	crb := clusterRoleBinding("c1")
	if len(crb.Subjects) != 1 || *crb.Subjects[0].Name != "system:open-cluster-management:c1" {
		t.Errorf("ClusterRoleBinding subjects = %+v", crb.Subjects)
	}
	rb := roleBinding("c1")
	if *rb.Namespace != "c1" {
		t.Errorf("RoleBinding %s is in %s, want c1", *rb.Name, *rb.Namespace)
	}
	if len(rb.Subjects) != 1 || *rb.Subjects[0].Name != "system:open-cluster-management:c1" {
		t.Errorf("RoleBinding %s subjects = %+v", *rb.Name, rb.Subjects)
	}
}
