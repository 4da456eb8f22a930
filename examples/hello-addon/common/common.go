// Package common holds what the hello addon's hub half and agent half
// agree on: the addon's name, its agent's name, and what the agent
// writes on the hub. Neither half imports the other; both import this.
package common

const (
	// AddonName is the addon's name: its ClusterManagementAddOn's, every
	// ManagedClusterAddOn's, its lease's on the managed cluster, and the
	// prefix of its hub credentials Secret (hello-hub-kubeconfig).
	AddonName = "hello"

	// AgentName is the agent part of the addon agent's hub user,
	// system:open-cluster-management:cluster:<cluster>:addon:hello:agent:hello-agent.
	AgentName = "hello-agent"

	// ConfigMapName is the ConfigMap the agent keeps in its cluster
	// namespace on the hub.
	ConfigMapName = "hello"

	// KeyKubernetesVersion is the ConfigMap key holding the managed
	// cluster's Kubernetes version (its API server's /version).
	KeyKubernetesVersion = "kubernetesVersion"

	// KeyGreeting is the ConfigMap key holding a line that names the
	// cluster, to show where the ConfigMap came from.
	KeyGreeting = "greeting"

	// DefaultInstallNamespace is where the agent runs on a managed cluster
	// unless the ManagedClusterAddOn says otherwise: OCM's default addon
	// namespace, which the cluster's agent creates.
	DefaultInstallNamespace = "open-cluster-management-agent-addon"
)
