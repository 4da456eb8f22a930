package manager

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"open-cluster-management.io/addon-framework/pkg/agent"
	"open-cluster-management.io/addon-framework/pkg/utils"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	addonclient "open-cluster-management.io/api/client/addon/clientset/versioned"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/addons"
)

// builtinAgent is a built-in addon as the addon framework sees it. Its
// agent half runs in-process in `corral agent`, so it deploys no
// manifests; its agent registers with the framework's default subject,
// gets its CSR approved by approveCSR and its HubRules in its cluster
// namespace, and reports its health with a lease.
type builtinAgent struct {
	options agent.AgentAddonOptions
}

var _ agent.AgentAddon = builtinAgent{}

// newBuiltinAgent builds the framework's view of a.
// An AddOnDeploymentConfig among its configs may set its install namespace.
func newBuiltinAgent(a addons.Addon, kube kubernetes.Interface, addonClient addonclient.Interface) builtinAgent {
	registration := &agent.RegistrationOption{
		Configurations:  agent.KubeClientSignerConfigurations(a.Name, a.Name),
		CSRApproveCheck: approveCSR,
	}
	if len(a.HubRules) > 0 {
		registration.PermissionConfig = permissionConfig(kube, a.HubRules)
	}
	return builtinAgent{options: agent.AgentAddonOptions{
		AddonName:           a.Name,
		Registration:        registration,
		HealthProber:        &agent.HealthProber{Type: agent.HealthProberTypeLease},
		SupportedConfigGVRs: []schema.GroupVersionResource{utils.AddOnDeploymentConfigGVR},
		AgentInstallNamespace: utils.AgentInstallNamespaceFromDeploymentConfigFunc(
			utils.NewAddOnDeploymentConfigGetter(addonClient)),
	}}
}

// Manifests is empty: the agent half is not deployed, it runs in-process.
func (builtinAgent) Manifests(context.Context, *clusterv1.ManagedCluster, *addonv1beta1.ManagedClusterAddOn) ([]runtime.Object, error) {
	return nil, nil
}

// GetAgentAddonOptions says how the addon registers and is probed.
func (b builtinAgent) GetAgentAddonOptions() agent.AgentAddonOptions {
	return b.options
}
