package webhook

import (
	"context"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/internal/admissionreview"
	"github.com/corral-dev/corral/internal/clusterselector"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/division"
)

// Name names the webhook and its ValidatingWebhookConfiguration; Path is
// where the hub's webhook server serves it.
const (
	Name = "propagationvalidators.admission.apps.corral.dev"
	Path = "/validate-apps-corral-dev-v1alpha1-propagation"
)

// Webhooks are the propagation addon's validating webhooks: one for
// Propagations and ClusterPropagations, resolving kinds through a
// RESTMapper of hub and asking hub's API server what the writer may read;
// one for OverridePolicies and ClusterOverridePolicies (PolicyValidator).
func Webhooks(hub *rest.Config) ([]addons.ValidatingWebhook, error) {
	kube, err := kubernetes.NewForConfig(hub)
	if err != nil {
		return nil, err
	}
	httpClient, err := rest.HTTPClientFor(hub)
	if err != nil {
		return nil, err
	}
	// The dynamic mapper discovers a group it has not seen on first use,
	// so a CRD installed after the hub started is resolved.
	mapper, err := apiutil.NewDynamicRESTMapper(hub, httpClient)
	if err != nil {
		return nil, err
	}
	return []addons.ValidatingWebhook{
		{Name: Name, Path: Path, Handler: &Validator{Mapper: mapper, Kube: kube}, Rules: Rules(), Probe: probe()},
		{Name: PolicyName, Path: PolicyPath, Handler: PolicyValidator{}, Rules: PolicyRules(), Probe: policyProbe()},
	}, nil
}

// Rules send the API server's creates and updates of (Cluster)Propagations
// to the webhook; not their status.
func Rules() []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule: admissionregistrationv1.Rule{
			APIGroups: []string{v1alpha1.GroupName}, APIVersions: []string{v1alpha1.GroupVersion.Version},
			Resources: []string{"propagations", "clusterpropagations"},
		},
	}}
}

// probeName names the Propagation the probe would create.
const probeName = "corral-webhook-probe"

// probe is a Propagation in namespace default selecting a Namespace: the
// schema admits it, the webhook refuses it for its scope, whoever writes it.
func probe() client.Object {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind("Propagation"))
	u.SetNamespace(metav1.NamespaceDefault)
	u.SetName(probeName)
	_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{"version": "v1", "kind": "Namespace", "name": metav1.NamespaceDefault}},
		"spec", "resourceSelectors") // a fresh map: cannot fail
	_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{"name": probeName}}, "spec", "placementRefs")
	return u
}

// Validator admits a (Cluster)Propagation whose selectors are of its
// scope and select only what its writer may read.
type Validator struct {
	// Mapper resolves the selectors' kinds.
	Mapper meta.RESTMapper
	// Kube asks the API server with SubjectAccessReviews.
	Kube kubernetes.Interface
}

var _ admission.Handler = &Validator{}

// Handle admits or refuses a (Cluster)Propagation being created or
// updated.
func (v *Validator) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return admission.Allowed("")
	}
	w, resp, done := writeOf(req)
	if done {
		return resp
	}
	log := ctrl.LoggerFrom(ctx).WithValues("propagation", w.what, "user", req.UserInfo.Username, "operation", req.Operation)
	if len(w.selectors) == 0 && len(w.placements) == 0 {
		log.V(4).Info("Admitted: nothing that delivers changed")
		return admission.Allowed("")
	}
	mappings := make([]mapping, len(w.selectors))
	for i, s := range w.selectors {
		m, err := v.resolve(s)
		if err != nil {
			return admission.Errored(http.StatusInternalServerError, fmt.Errorf("%s: resolving %s: %w", w.what, s.describe(), err))
		}
		if problem := w.scopeProblem(s, m); problem != "" {
			log.V(1).Info("Refusing a selector of the wrong scope", "selector", s.index)
			return admissionreview.Invalid("%s: %s", w.what, problem)
		}
		mappings[i] = m
	}
	return v.checkReads(ctx, w, mappings)
}

// write is what a create or update asks to deliver that must be checked.
type write struct {
	// what names the object in messages: Propagation ns/name, or
	// ClusterPropagation name.
	what string
	// namespace is a Propagation's; empty for a ClusterPropagation.
	namespace string
	// user wrote it.
	user authenticationv1.UserInfo
	// selectors are those to check: all on create; on update, the new or
	// changed ones, or all when a placement ref is new.
	selectors []selector
	// placements are a ClusterPropagation's placement refs to check.
	placements []v1alpha1.PlacementReference
}

// selector is a selector of either kind, with its place in the spec.
type selector struct {
	// index counts from 1, as the messages do.
	index int
	v1alpha1.ResourceSelector
	// scope is a ClusterPropagation Namespace selector's; empty otherwise.
	scope v1alpha1.SelectionScope
}

// writeOf decodes req into the write to check; done says the response
// is already decided.
func writeOf(req admission.Request) (write, admission.Response, bool) {
	w := write{user: req.UserInfo}
	switch req.Kind.Kind {
	case "Propagation":
		p, old := &v1alpha1.Propagation{}, &v1alpha1.Propagation{}
		if resp, done := admissionreview.DecodeRequest(req, p, old); done {
			return w, resp, true
		}
		w.what, w.namespace = fmt.Sprintf("Propagation %s/%s", req.Namespace, req.Name), req.Namespace
		if req.Operation == admissionv1.Update && equality.Semantic.DeepEqual(old.Spec, p.Spec) {
			return w, admission.Allowed("spec unchanged"), true
		}
		if resp, refused := checkReplicaScheduling(w.what, &p.Spec.PropagationPolicy, &old.Spec.PropagationPolicy); refused {
			return w, resp, true
		}
		refs := func(p *v1alpha1.Propagation) []v1alpha1.PlacementReference {
			out := make([]v1alpha1.PlacementReference, 0, len(p.Spec.PlacementRefs))
			for _, r := range p.Spec.PlacementRefs {
				out = append(out, v1alpha1.PlacementReference{Namespace: req.Namespace, LocalPlacementReference: r})
			}
			return out
		}
		w.selectors, w.placements = changed(selectorsOf(p.Spec.ResourceSelectors), selectorsOf(old.Spec.ResourceSelectors),
			refs(p), refs(old), req.Operation == admissionv1.Create)
		// A Propagation's placements are of its own namespace, which the
		// writer works in: only a ClusterPropagation's are checked.
		w.placements = nil
	case "ClusterPropagation":
		p, old := &v1alpha1.ClusterPropagation{}, &v1alpha1.ClusterPropagation{}
		if resp, done := admissionreview.DecodeRequest(req, p, old); done {
			return w, resp, true
		}
		w.what = "ClusterPropagation " + req.Name
		if req.Operation == admissionv1.Update && equality.Semantic.DeepEqual(old.Spec, p.Spec) {
			return w, admission.Allowed("spec unchanged"), true
		}
		if resp, refused := checkReplicaScheduling(w.what, &p.Spec.PropagationPolicy, &old.Spec.PropagationPolicy); refused {
			return w, resp, true
		}
		w.selectors, w.placements = changed(clusterSelectorsOf(p.Spec.ResourceSelectors), clusterSelectorsOf(old.Spec.ResourceSelectors),
			p.Spec.PlacementRefs, old.Spec.PlacementRefs, req.Operation == admissionv1.Create)
	default:
		return w, admission.Allowed(""), true
	}
	return w, admission.Response{}, false
}

// checkReplicaScheduling refuses a new or changed replicaScheduling whose
// weights' cluster selectors do not compile (CEL included), which the
// schema cannot see.
func checkReplicaScheduling(what string, p, old *v1alpha1.PropagationPolicy) (admission.Response, bool) {
	if p.ReplicaScheduling == nil || equality.Semantic.DeepEqual(p.ReplicaScheduling, old.ReplicaScheduling) {
		return admission.Response{}, false
	}
	if _, err := division.NewWeigher(p.ReplicaScheduling, clusterselector.NewCompiler(nil)); err != nil {
		return admissionreview.Invalid("%s: %v", what, err), true
	}
	return admission.Response{}, false
}

func selectorsOf(sels []v1alpha1.ResourceSelector) []selector {
	out := make([]selector, 0, len(sels))
	for i, s := range sels {
		out = append(out, selector{index: i + 1, ResourceSelector: s})
	}
	return out
}

func clusterSelectorsOf(sels []v1alpha1.ClusterResourceSelector) []selector {
	out := make([]selector, 0, len(sels))
	for i, s := range sels {
		sel := selector{index: i + 1, ResourceSelector: s.ResourceSelector, scope: s.SelectionScope}
		if sel.isNamespace() && sel.scope == "" {
			sel.scope = v1alpha1.NamespaceWithResources // the default
		}
		out = append(out, sel)
	}
	return out
}

// changed picks what to check of an update from old to sels and refs: the
// selectors not in old, and the refs not in old; every selector when a
// ref is new. A create (all) checks everything.
func changed(sels, old []selector, refs, oldRefs []v1alpha1.PlacementReference, all bool) ([]selector, []v1alpha1.PlacementReference) {
	if all {
		return sels, refs
	}
	var newRefs []v1alpha1.PlacementReference
	for _, r := range refs {
		if !containsRef(oldRefs, r) {
			newRefs = append(newRefs, r)
		}
	}
	if len(newRefs) > 0 {
		return sels, newRefs
	}
	var newSels []selector
	for _, s := range sels {
		if !containsSelector(old, s) {
			newSels = append(newSels, s)
		}
	}
	return newSels, nil
}

func containsRef(refs []v1alpha1.PlacementReference, r v1alpha1.PlacementReference) bool {
	for _, o := range refs {
		if o.Namespace == r.Namespace && o.Name == r.Name {
			return true
		}
	}
	return false
}

// containsSelector says whether s is in sels, wherever: a selector that
// only moved selects what it did.
func containsSelector(sels []selector, s selector) bool {
	for _, o := range sels {
		if o.scope == s.scope && equality.Semantic.DeepEqual(o.ResourceSelector, s.ResourceSelector) {
			return true
		}
	}
	return false
}
