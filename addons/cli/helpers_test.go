package cli

import (
	"bytes"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/internal/hubclient/hubclienttest"
	"github.com/corral-dev/corral/internal/testing/builder"
)

func fakeHub(t *testing.T, objs ...client.Object) client.WithWatch {
	t.Helper()
	return hubclienttest.NewClientBuilder(t, objs...).Build()
}

// hubOpts is a hub whose client is c, and a buffer for a verb's Out.
func hubOpts(c client.WithWatch) (hubclient.Hub, *bytes.Buffer) {
	return hubclient.Hub{Client: c}, &bytes.Buffer{}
}

// acceptedCluster is a cluster in set "prod" the hub accepted, as the hub
// reports it.
func acceptedCluster(name string) *clusterv1.ManagedCluster {
	return builder.Cluster(name).InSet("prod").Accepted().Condition(metav1.Condition{
		Type: clusterv1.ManagedClusterConditionHubAccepted, Status: metav1.ConditionTrue, Reason: "HubClusterAdminAccepted"}).Obj()
}

func clusterSet(name string) *clusterv1beta2.ManagedClusterSet {
	return &clusterv1beta2.ManagedClusterSet{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: clusterv1beta2.ManagedClusterSetSpec{ClusterSelector: clusterv1beta2.ManagedClusterSelector{
			SelectorType: clusterv1beta2.ExclusiveClusterSetLabel}}}
}

func cma(name string) *addonv1alpha1.ClusterManagementAddOn {
	return &addonv1alpha1.ClusterManagementAddOn{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: addonv1alpha1.ClusterManagementAddOnSpec{
			AddOnMeta:       addonv1alpha1.AddOnMeta{Description: name + " addon"},
			InstallStrategy: addonv1alpha1.InstallStrategy{Type: addonv1alpha1.AddonInstallStrategyManual}}}
}

func cond(typ string, status metav1.ConditionStatus, msg string) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, Reason: "Test", Message: msg}
}
