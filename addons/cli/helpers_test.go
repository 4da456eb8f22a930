package cli

import (
	"bytes"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/internal/hubclient/hubclienttest"
)

func fakeHub(t *testing.T, objs ...client.Object) client.Client {
	t.Helper()
	return hubclienttest.NewClientBuilder(t, objs...).Build()
}

// hubOpts is a hub whose client is c, and a buffer for a verb's Out.
func hubOpts(c client.Client) (hubclient.Hub, *bytes.Buffer) {
	return hubclient.Hub{Client: c}, &bytes.Buffer{}
}

// cluster is an accepted cluster in set "prod" unless changed.
func cluster(name string, accepted bool) *clusterv1.ManagedCluster {
	mc := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: name,
		Labels: map[string]string{clusterv1beta2.ClusterSetLabel: "prod"}}}
	mc.Spec.HubAcceptsClient = accepted
	if accepted {
		meta.SetStatusCondition(&mc.Status.Conditions, metav1.Condition{
			Type: clusterv1.ManagedClusterConditionHubAccepted, Status: metav1.ConditionTrue, Reason: "HubClusterAdminAccepted"})
	}
	return mc
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

func mca(addon, cluster string, conds ...metav1.Condition) *addonv1alpha1.ManagedClusterAddOn {
	a := &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Name: addon, Namespace: cluster}}
	a.Status.Conditions = conds
	return a
}

func cond(typ string, status metav1.ConditionStatus, msg string) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, Reason: "Test", Message: msg}
}
