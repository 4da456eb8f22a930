package webhook

import (
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	admissionregistrationv1ac "k8s.io/client-go/applyconfigurations/admissionregistration/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"

	"github.com/corral-dev/corral/addons"
)

// Names of the webhook configurations and of the webhooks in them, and the
// paths they are served at: OCM's, so OCM's tools find them.
const (
	ClusterMutatingName   = "managedclustermutators.admission.cluster.open-cluster-management.io"
	ClusterValidatingName = "managedclustervalidators.admission.cluster.open-cluster-management.io"
	BindingValidatingName = "managedclustersetbindingvalidators.admission.cluster.open-cluster-management.io"

	MutateClusterPath   = "/mutate-cluster-open-cluster-management-io-v1-managedcluster"
	ValidateClusterPath = "/validate-cluster-open-cluster-management-io-v1-managedcluster"
	ValidateBindingPath = "/validate-cluster-open-cluster-management-io-v1beta2-managedclustersetbinding"
)

// FieldOwner is the field manager of the applied configurations.
const FieldOwner = "corral-hub-webhook"

// ManagedByLabel marks the configurations the hub keeps applied.
const (
	ManagedByLabel = "app.kubernetes.io/managed-by"
	ManagedByValue = "corral-hub"
)

// timeoutSeconds bounds each call of the API server: the webhooks make at
// most three small API calls of their own.
const timeoutSeconds = 10

// ServiceRef names the Service through which the API server reaches the
// webhook server.
type ServiceRef struct {
	Namespace, Name string
	Port            int32
}

// endpoint is where the API server reaches the webhook server: a base URL,
// or a Service.
type endpoint struct {
	url     string
	service *ServiceRef
}

func (e endpoint) clientConfig(path string, caBundle []byte) *admissionregistrationv1ac.WebhookClientConfigApplyConfiguration {
	cc := admissionregistrationv1ac.WebhookClientConfig().WithCABundle(caBundle...)
	if e.service != nil {
		return cc.WithService(admissionregistrationv1ac.ServiceReference().
			WithNamespace(e.service.Namespace).WithName(e.service.Name).WithPort(e.service.Port).WithPath(path))
	}
	return cc.WithURL(strings.TrimSuffix(e.url, "/") + path)
}

// rule matches CREATE and UPDATE of resource in version of the cluster API
// group; matchPolicy Equivalent extends it to the other versions served.
func rule(version, resource string) *admissionregistrationv1ac.RuleWithOperationsApplyConfiguration {
	return admissionregistrationv1ac.RuleWithOperations().
		WithOperations(admissionregistrationv1.Create, admissionregistrationv1.Update).
		WithAPIGroups(clusterv1.GroupName).WithAPIVersions(version).WithResources(resource)
}

// configurations are the webhook configurations that send the API server's
// admission requests to e, trusting caBundle: the registration ones and
// one for each of extra, the addons' webhooks.
func configurations(e endpoint, caBundle []byte, extra ...addons.ValidatingWebhook) (
	*admissionregistrationv1ac.MutatingWebhookConfigurationApplyConfiguration,
	[]*admissionregistrationv1ac.ValidatingWebhookConfigurationApplyConfiguration,
) {
	labels := map[string]string{ManagedByLabel: ManagedByValue}
	mutating := admissionregistrationv1ac.MutatingWebhookConfiguration(ClusterMutatingName).WithLabels(labels).
		WithWebhooks(admissionregistrationv1ac.MutatingWebhook().
			WithName(ClusterMutatingName).
			WithClientConfig(e.clientConfig(MutateClusterPath, caBundle)).
			WithRules(rule(clusterv1.GroupVersion.Version, "managedclusters")).
			WithFailurePolicy(admissionregistrationv1.Fail).
			WithMatchPolicy(admissionregistrationv1.Equivalent).
			WithSideEffects(admissionregistrationv1.SideEffectClassNone).
			WithTimeoutSeconds(timeoutSeconds).
			WithReinvocationPolicy(admissionregistrationv1.NeverReinvocationPolicy).
			WithAdmissionReviewVersions("v1"))
	validating := func(name, path string, r ...*admissionregistrationv1ac.RuleWithOperationsApplyConfiguration) *admissionregistrationv1ac.ValidatingWebhookConfigurationApplyConfiguration {
		return admissionregistrationv1ac.ValidatingWebhookConfiguration(name).WithLabels(labels).
			WithWebhooks(admissionregistrationv1ac.ValidatingWebhook().
				WithName(name).
				WithClientConfig(e.clientConfig(path, caBundle)).
				WithRules(r...).
				WithFailurePolicy(admissionregistrationv1.Fail).
				WithMatchPolicy(admissionregistrationv1.Equivalent).
				WithSideEffects(admissionregistrationv1.SideEffectClassNone).
				WithTimeoutSeconds(timeoutSeconds).
				WithAdmissionReviewVersions("v1"))
	}
	all := []*admissionregistrationv1ac.ValidatingWebhookConfigurationApplyConfiguration{
		validating(BindingValidatingName, ValidateBindingPath, rule(clusterv1beta2.GroupVersion.Version, "managedclustersetbindings")),
	}
	for _, w := range extra {
		all = append(all, validating(w.Name, w.Path, applyRules(w.Rules)...))
	}
	// The ManagedCluster one comes last: the API server learns of
	// validating configurations in the order they are written, so once
	// WaitServing sees it refuse, every other one is in force too.
	all = append(all, validating(ClusterValidatingName, ValidateClusterPath, rule(clusterv1.GroupVersion.Version, "managedclusters")))
	return mutating, all
}

// applyRules are rules as apply configurations.
func applyRules(rules []admissionregistrationv1.RuleWithOperations) []*admissionregistrationv1ac.RuleWithOperationsApplyConfiguration {
	out := make([]*admissionregistrationv1ac.RuleWithOperationsApplyConfiguration, 0, len(rules))
	for _, r := range rules {
		ac := admissionregistrationv1ac.RuleWithOperations().
			WithOperations(r.Operations...).WithAPIGroups(r.APIGroups...).WithAPIVersions(r.APIVersions...).WithResources(r.Resources...)
		if r.Scope != nil {
			ac.WithScope(*r.Scope)
		}
		out = append(out, ac)
	}
	return out
}
