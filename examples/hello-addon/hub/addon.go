package hub

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"strings"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"open-cluster-management.io/addon-framework/pkg/addonfactory"
	"open-cluster-management.io/addon-framework/pkg/addonmanager"
	"open-cluster-management.io/addon-framework/pkg/agent"
	"open-cluster-management.io/addon-framework/pkg/utils"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	addonclient "open-cluster-management.io/api/client/addon/clientset/versioned"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/examples/hello-addon/common"
)

//go:embed manifests/templates
var manifests embed.FS

// HubRoleName is the Role (and RoleBinding) that gives the agent its
// rights in its cluster namespace on the hub.
const HubRoleName = "open-cluster-management:hello:agent"

// Options configure the hub half.
type Options struct {
	// Image is the agent's container image, run by the Deployment sent to
	// every cluster.
	Image string
}

// Validate says what is wrong with o.
func (o Options) Validate() error {
	if strings.TrimSpace(o.Image) == "" {
		return errors.New("--agent-image is empty: give the agent's container image, e.g. --agent-image registry.example.com/hello-addon:v1")
	}
	return nil
}

// IntervalVariable is the AddOnDeploymentConfig customizedVariable that
// sets how often the agent reports (its --interval), e.g. "1m".
const IntervalVariable = "Interval"

// NewAgentAddon is the hello addon as the addon framework sees it: its
// manifests, configs, registration, hub RBAC and health prober. kube
// reaches the hub (to write the Role and RoleBinding in cluster
// namespaces); configs reads the AddOnDeploymentConfig an addon is given.
func NewAgentAddon(kube kubernetes.Interface, configs utils.AddOnDeploymentConfigGetter, opts Options) (agent.AgentAddon, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	return addonfactory.NewAgentAddonFactory(common.AddonName, manifests, "manifests/templates").
		WithConfigGVRs(utils.AddOnDeploymentConfigGVR).
		WithGetValuesFuncs(func(*clusterv1.ManagedCluster, *addonv1beta1.ManagedClusterAddOn) (addonfactory.Values, error) {
			return addonfactory.Values{"Image": opts.Image, IntervalVariable: ""}, nil
		}, addonfactory.GetAddOnDeploymentConfigValues(configs, intervalValues)).
		WithAgentRegistrationOption(&agent.RegistrationOption{
			// One client certificate from the kube-apiserver-client signer:
			// user system:open-cluster-management:cluster:<c>:addon:hello:agent:hello-agent,
			// groups system:open-cluster-management:cluster:<c>:addon:hello and
			// system:open-cluster-management:addon:hello.
			Configurations:   agent.KubeClientSignerConfigurations(common.AddonName, common.AgentName),
			CSRApproveCheck:  utils.UnionCSRApprover(utils.DefaultCSRApprover(common.AgentName), RequestedByCluster),
			PermissionConfig: permissionConfig(kube),
		}).
		WithAgentHealthProber(&agent.HealthProber{Type: agent.HealthProberTypeLease}).
		BuildTemplateAgentAddon()
}

// intervalValues are the template values an AddOnDeploymentConfig gives:
// the agent's report interval, when it names one.
func intervalValues(config addonv1beta1.AddOnDeploymentConfig) (addonfactory.Values, error) {
	values := addonfactory.Values{}
	for _, v := range config.Spec.CustomizedVariables {
		if v.Name != IntervalVariable {
			continue
		}
		if d, err := time.ParseDuration(v.Value); err != nil || d <= 0 {
			return nil, fmt.Errorf("AddOnDeploymentConfig %s/%s: customizedVariable %s is %q: give a positive duration, e.g. 1m", config.Namespace, config.Name, IntervalVariable, v.Value)
		}
		values[IntervalVariable] = v.Value
	}
	return values, nil
}

// RequestedByCluster approves only a CSR requested by the cluster's own
// registration identity, system:open-cluster-management:<cluster>:<agent>.
// DefaultCSRApprover checks the prefix without the colon, which would also
// let cluster10's identity ask for cluster1's addon certificate.
func RequestedByCluster(_ context.Context, cluster *clusterv1.ManagedCluster, _ *addonv1beta1.ManagedClusterAddOn, csr *certificatesv1.CertificateSigningRequest) bool {
	return strings.HasPrefix(csr.Spec.Username, "system:open-cluster-management:"+cluster.Name+":")
}

// permissionConfig gives the agent of one cluster the hub Role of
// hubRole in that cluster's namespace, bound to the group only that
// cluster's hello agent is in. (The framework's BindKubeClientRole binds
// every group of the subject, and system:open-cluster-management:addon:hello
// holds the hello agents of all clusters: each could then write every
// other cluster's namespace.) The Role and RoleBinding are owned by the
// ManagedClusterAddOn, so disabling the addon removes them.
func permissionConfig(kube kubernetes.Interface) agent.PermissionConfigFunc {
	return func(ctx context.Context, cluster *clusterv1.ManagedCluster, addon *addonv1beta1.ManagedClusterAddOn) error {
		group := agent.DefaultGroups(cluster.Name, addon.Name)[0]
		// A new builder per call: the builder sets the namespace on the
		// Role it is given, and clusters are configured concurrently.
		err := utils.NewRBACPermissionConfigBuilder(kube).BindRoleToGroup(hubRole(), group).Build()(ctx, cluster, addon)
		if err != nil {
			return fmt.Errorf("giving the hello agent of cluster %s its hub Role: %w", cluster.Name, err)
		}
		klog.FromContext(ctx).V(4).Info("Applied the hello agent's hub Role", "cluster", cluster.Name, "group", group)
		return nil
	}
}

// hubRole is what the agent may do in its cluster namespace on the hub:
// create a ConfigMap (RBAC cannot limit create by name) and read and
// update the ConfigMap hello.
func hubRole() *rbacv1.Role {
	return &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: HubRoleName},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"create"}},
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{common.ConfigMapName}, Verbs: []string{"get", "update", "patch"}},
		},
	}
}

// Run runs the hub half against the hub cfg reaches until ctx ends.
func Run(ctx context.Context, cfg *rest.Config, opts Options) error {
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("building the hub client: %w", err)
	}
	addons, err := addonclient.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("building the hub's addon client: %w", err)
	}
	addon, err := NewAgentAddon(kube, utils.NewAddOnDeploymentConfigGetter(addons), opts)
	if err != nil {
		return err
	}
	mgr, err := addonmanager.New(cfg)
	if err != nil {
		return fmt.Errorf("building the addon manager: %w", err)
	}
	if err := mgr.AddAgent(addon); err != nil {
		return fmt.Errorf("adding the hello addon to the addon manager: %w", err)
	}
	klog.FromContext(ctx).Info("Starting the hello addon's hub half", "hub", cfg.Host, "agentImage", opts.Image)
	if err := mgr.Start(ctx); err != nil {
		return fmt.Errorf("starting the addon manager: %w", err)
	}
	<-ctx.Done()
	return nil
}
