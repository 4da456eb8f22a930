package validation

import (
	"context"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/internal/admissionreview"
	"github.com/corral-dev/corral/registration/common"
)

// Names and paths of the webhooks: OCM's, so OCM's tools find them.
const (
	WorkValidatingName       = "manifestworkvalidators.admission.work.open-cluster-management.io"
	ReplicaSetValidatingName = "manifestworkreplicasetvalidators.admission.work.open-cluster-management.io"

	ValidateWorkPath       = "/validate-work-open-cluster-management-io-v1-manifestwork"
	ValidateReplicaSetPath = "/validate-work-open-cluster-management-io-v1alpha1-manifestworkreplicaset"
)

// ExecuteAsVerb is the verb on manifestworks, named
// system:serviceaccount:<namespace>:<name>, a writer needs in a work's
// namespace to give it that executor.
const ExecuteAsVerb = "execute-as"

// Webhooks are the work addon's validating webhooks, asking hub's API
// server about executors.
func Webhooks(hub *rest.Config) ([]addons.ValidatingWebhook, error) {
	kube, err := kubernetes.NewForConfig(hub)
	if err != nil {
		return nil, err
	}
	writes := []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}
	rule := func(version, resource string) []admissionregistrationv1.RuleWithOperations {
		return []admissionregistrationv1.RuleWithOperations{{Operations: writes, Rule: admissionregistrationv1.Rule{
			APIGroups: []string{workv1.GroupName}, APIVersions: []string{version}, Resources: []string{resource},
		}}}
	}
	return []addons.ValidatingWebhook{
		{Name: WorkValidatingName, Path: ValidateWorkPath, Handler: &workValidator{executors{kube}},
			Rules: rule(workv1.GroupVersion.Version, "manifestworks"), Probe: workProbe()},
		{Name: ReplicaSetValidatingName, Path: ValidateReplicaSetPath, Handler: &replicaSetValidator{executors{kube}},
			Rules: rule(workv1alpha1.GroupVersion.Version, "manifestworkreplicasets"), Probe: replicaSetProbe()},
	}, nil
}

// probeName names the objects the webhooks' probes would create.
const probeName = "corral-webhook-probe"

// workProbe is a ManifestWork in namespace default whose one manifest, a
// ConfigMap, has no name: the API server's schema admits it, the webhook
// refuses it.
func workProbe() client.Object {
	return probe(schema.GroupVersionKind{Group: workv1.GroupName, Version: workv1.GroupVersion.Version, Kind: "ManifestWork"},
		"spec", "workload", "manifests")
}

// replicaSetProbe is workProbe's ManifestWorkReplicaSet, with the
// placementRefs the schema requires.
func replicaSetProbe() client.Object {
	u := probe(schema.GroupVersionKind{Group: workv1alpha1.GroupName, Version: workv1alpha1.GroupVersion.Version, Kind: "ManifestWorkReplicaSet"},
		"spec", "manifestWorkTemplate", "workload", "manifests")
	_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{"name": probeName}}, "spec", "placementRefs") // a fresh map: cannot fail
	return u
}

// probe is an object of kind gvk, named probeName in namespace default,
// whose manifests, at path, are one ConfigMap without a name.
func probe(gvk schema.GroupVersionKind, path ...string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	u.SetNamespace(metav1.NamespaceDefault)
	u.SetName(probeName)
	nameless := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"namespace": metav1.NamespaceDefault}}
	_ = unstructured.SetNestedSlice(u.Object, []any{nameless}, path...) // a fresh map: cannot fail
	return u
}

// workValidator admits a ManifestWork whose spec is valid and whose
// executor the writer may give it.
type workValidator struct{ executors }

func (v *workValidator) Handle(ctx context.Context, req admission.Request) admission.Response {
	work, old := &workv1.ManifestWork{}, &workv1.ManifestWork{}
	if resp, done := admissionreview.DecodeRequest(req, work, old); done {
		return resp
	}
	if req.Operation == admissionv1.Update && equality.Semantic.DeepEqual(old.Spec, work.Spec) {
		return admission.Allowed("spec unchanged")
	}
	what := fmt.Sprintf("ManifestWork %s/%s", req.Namespace, req.Name)
	if err := Manifests(work.Spec.Workload.Manifests); err != nil {
		return admissionreview.Invalid("%s: %v", what, err)
	}
	if req.Operation == admissionv1.Update && equality.Semantic.DeepEqual(old.Spec.Executor, work.Spec.Executor) {
		return admission.Allowed("")
	}
	return v.checkExecutor(ctx, what, req.UserInfo, req.Namespace, work.Spec.Executor)
}

// replicaSetValidator admits a ManifestWorkReplicaSet that is valid and
// whose template's executor the writer may give works in the set's
// namespace.
type replicaSetValidator struct{ executors }

func (v *replicaSetValidator) Handle(ctx context.Context, req admission.Request) admission.Response {
	set, old := &workv1alpha1.ManifestWorkReplicaSet{}, &workv1alpha1.ManifestWorkReplicaSet{}
	if resp, done := admissionreview.DecodeRequest(req, set, old); done {
		return resp
	}
	if req.Operation == admissionv1.Update && equality.Semantic.DeepEqual(old.Spec, set.Spec) {
		return admission.Allowed("spec unchanged")
	}
	set.Namespace = req.Namespace
	what := fmt.Sprintf("ManifestWorkReplicaSet %s/%s", req.Namespace, req.Name)
	if err := ReplicaSet(set); err != nil {
		return admissionreview.Invalid("%s: %v", what, err)
	}
	executor := set.Spec.ManifestWorkTemplate.Executor
	if req.Operation == admissionv1.Update && equality.Semantic.DeepEqual(old.Spec.ManifestWorkTemplate.Executor, executor) {
		return admission.Allowed("")
	}
	return v.checkExecutor(ctx, what, req.UserInfo, req.Namespace, executor)
}

// executors decides who may give a work an executor.
type executors struct{ kube kubernetes.Interface }

// checkExecutor admits no executor, and a service account the user may
// execute as in namespace.
func (v executors) checkExecutor(ctx context.Context, what string, user authenticationv1.UserInfo, namespace string, e *workv1.ManifestWorkExecutor) admission.Response {
	if e == nil {
		return admission.Allowed("")
	}
	sa := e.Subject.ServiceAccount
	if e.Subject.Type != workv1.ExecutorSubjectTypeServiceAccount || sa == nil || sa.Namespace == "" || sa.Name == "" {
		return admissionreview.Invalid("%s: spec.executor.subject must be type ServiceAccount with serviceAccount.namespace and serviceAccount.name", what)
	}
	subject := fmt.Sprintf("system:serviceaccount:%s:%s", sa.Namespace, sa.Name)
	ok, err := common.Allowed(ctx, v.kube, user.Username, user.UID, user.Groups, user.Extra, authorizationv1.ResourceAttributes{
		Group: workv1.GroupName, Resource: "manifestworks", Verb: ExecuteAsVerb, Namespace: namespace, Name: subject,
	})
	if err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Asking whether a user may set a work's executor", "user", user.Username)
		return admission.Errored(http.StatusInternalServerError, fmt.Errorf("asking the API server whether %s may execute as %s: %w", user.Username, subject, err))
	}
	if !ok {
		return admission.Denied(fmt.Sprintf("%s: user %q may not set executor %s/%s: that needs verb %s on manifestworks named %s (API group %s) in namespace %s",
			what, user.Username, sa.Namespace, sa.Name, ExecuteAsVerb, subject, workv1.GroupName, namespace))
	}
	return admission.Allowed("")
}
