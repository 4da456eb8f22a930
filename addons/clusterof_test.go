package addons

import (
	"context"
	"testing"

	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
)

func TestClusterOf(t *testing.T) {
	mca := &addonv1alpha1.ManagedClusterAddOn{}
	mca.Namespace, mca.Name = "c1", "work"
	got := ClusterOf(context.Background(), mca)
	if len(got) != 1 || got[0].Name != "c1" || got[0].Namespace != "" {
		t.Errorf("ClusterOf = %v, want the cluster c1 (cluster-scoped)", got)
	}
}
