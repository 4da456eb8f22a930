package webhook

import (
	"context"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/corral-dev/corral/internal/admissionreview"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/override"
)

// PolicyName names the override policies' webhook and its
// ValidatingWebhookConfiguration; PolicyPath is where the hub's webhook
// server serves it.
const (
	PolicyName = "overridepolicyvalidators.admission.apps.corral.dev"
	PolicyPath = "/validate-apps-corral-dev-v1alpha1-overridepolicy"
)

// PolicyRules send the API server's creates and updates of
// (Cluster)OverridePolicies to the policy webhook.
func PolicyRules() []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule: admissionregistrationv1.Rule{
			APIGroups: []string{v1alpha1.GroupName}, APIVersions: []string{v1alpha1.GroupVersion.Version},
			Resources: []string{"overridepolicies", "clusteroverridepolicies"},
		},
	}}
}

// policyProbe is an OverridePolicy in namespace default whose JSON patch
// add has no value: the schema admits it (the value is schemaless), the
// policy webhook refuses it.
func policyProbe() client.Object {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind("OverridePolicy"))
	u.SetNamespace(metav1.NamespaceDefault)
	u.SetName(probeName)
	_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{"version": "v1", "kind": "ConfigMap"}}, "spec", "resourceSelectors")
	_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{"jsonPatch": []any{map[string]any{"op": "add", "path": "/data"}}}}, "spec", "rules")
	return u
}

// PolicyValidator admits an OverridePolicy or ClusterOverridePolicy that
// is right on every cluster as far as it can be known before rendering
// (override.Validate): what the CRD's schema cannot check. An update is
// checked whole: a policy is small, and there is no right to check.
type PolicyValidator struct{}

var _ admission.Handler = PolicyValidator{}

// Handle admits or refuses a policy being created or updated, with the
// first problem in one line.
func (PolicyValidator) Handle(ctx context.Context, req admission.Request) admission.Response {
	var err error
	switch req.Kind.Kind {
	case "OverridePolicy":
		p := &v1alpha1.OverridePolicy{}
		if resp, done := admissionreview.DecodeRequest(req, p, nil); done {
			return resp
		}
		err = override.Validate(false, req.Namespace+"/"+req.Name, p.Spec.ResourceSelectors, p.Spec.Overrides)
	case "ClusterOverridePolicy":
		p := &v1alpha1.ClusterOverridePolicy{}
		if resp, done := admissionreview.DecodeRequest(req, p, nil); done {
			return resp
		}
		sels := make([]v1alpha1.ResourceSelector, len(p.Spec.ResourceSelectors))
		for i, s := range p.Spec.ResourceSelectors {
			sels[i] = s.ResourceSelector
		}
		err = override.Validate(true, req.Name, sels, p.Spec.Overrides)
	default:
		return admission.Allowed("")
	}
	if err != nil {
		ctrl.LoggerFrom(ctx).V(1).Info("Refusing an override policy", "kind", req.Kind.Kind, "name", req.Name, "namespace", req.Namespace, "reason", err)
		return admissionreview.Invalid("%v", err)
	}
	return admission.Allowed("")
}
