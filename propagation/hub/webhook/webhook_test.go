package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// hubMapper serves Secrets, ConfigMaps and Deployments (apps/v1) in
// namespaces, and Namespaces and ClusterRoles cluster-wide.
func hubMapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper([]schema.GroupVersion{{Version: "v1"}, {Group: "apps", Version: "v1"}, {Group: "rbac.authorization.k8s.io", Version: "v1"}})
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "Secret"}, meta.RESTScopeNamespace)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, meta.RESTScopeNamespace)
	m.Add(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, meta.RESTScopeNamespace)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, meta.RESTScopeRoot)
	m.Add(schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"}, meta.RESTScopeRoot)
	return m
}

// permission is a SubjectAccessReview's question, short: verb group/resource
// name in namespace.
func permission(a authorizationv1.ResourceAttributes) string {
	return strings.TrimSpace(fmt.Sprintf("%s %s/%s %s in %q", a.Verb, a.Group, a.Resource, a.Name, a.Namespace))
}

// reviewing is a client whose SubjectAccessReviews allow exactly the
// permissions granted, for user bob of group devs, recording what was
// asked; fail makes them fail.
func reviewing(t *testing.T, asked *[]string, granted []string, fail bool) *fake.Clientset {
	kube := fake.NewClientset()
	kube.PrependReactor("create", "subjectaccessreviews", func(a clienttesting.Action) (bool, runtime.Object, error) {
		sar := a.(clienttesting.CreateAction).GetObject().(*authorizationv1.SubjectAccessReview)
		if sar.Spec.User != "bob" || !cmp.Equal(sar.Spec.Groups, []string{"devs"}) || sar.Spec.UID != "uid-1" || !cmp.Equal(sar.Spec.Extra["scopes"], authorizationv1.ExtraValue{"a"}) {
			t.Errorf("asked for %+v, want bob's user, uid, groups and extra", sar.Spec)
		}
		if fail {
			return true, nil, errors.New("the API server is away")
		}
		p := permission(*sar.Spec.ResourceAttributes)
		*asked = append(*asked, p)
		for _, g := range granted {
			if g == p {
				sar.Status.Allowed = true
			}
		}
		return true, sar, nil
	})
	return kube
}

func request(t *testing.T, op admissionv1.Operation, kind, namespace string, obj, old any) admission.Request {
	t.Helper()
	enc := func(o any) runtime.RawExtension {
		if o == nil {
			return runtime.RawExtension{}
		}
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		return runtime.RawExtension{Raw: b}
	}
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation: op, Namespace: namespace, Name: "web", Object: enc(obj), OldObject: enc(old),
		Kind:     metav1.GroupVersionKind{Group: v1alpha1.GroupName, Version: "v1alpha1", Kind: kind},
		UserInfo: authenticationv1.UserInfo{Username: "bob", UID: "uid-1", Groups: []string{"devs"}, Extra: map[string]authenticationv1.ExtraValue{"scopes": {"a"}}},
	}}
}

func prop(placements []string, sels ...v1alpha1.ResourceSelector) *v1alpha1.Propagation {
	p := &v1alpha1.Propagation{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}
	p.Spec.ResourceSelectors = sels
	for _, n := range placements {
		p.Spec.PlacementRefs = append(p.Spec.PlacementRefs, v1alpha1.LocalPlacementReference{Name: n})
	}
	return p
}

var (
	secretDB      = v1alpha1.ResourceSelector{Version: "v1", Kind: "Secret", Name: "db"}
	allSecrets    = v1alpha1.ResourceSelector{Version: "v1", Kind: "Secret"}
	webConfigMaps = v1alpha1.ResourceSelector{Version: "v1", Kind: "ConfigMap", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}
	namespaces    = v1alpha1.ResourceSelector{Version: "v1", Kind: "Namespace", Name: "shop"}
	deployments   = v1alpha1.ResourceSelector{Group: "apps", Version: "v1", Kind: "Deployment"}
	widgets       = v1alpha1.ResourceSelector{Group: "example.com", Version: "v1", Kind: "Widget"}
)

type validatorCase struct {
	op       admissionv1.Operation
	obj, old any
	granted  []string
	fail     bool
	// code is the refusal's; 0 admits.
	code    int32
	message string
	asked   []string
}

func run(t *testing.T, kind, namespace string, cases map[string]validatorCase) {
	t.Helper()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var asked []string
			v := &Validator{Mapper: hubMapper(), Kube: reviewing(t, &asked, tc.granted, tc.fail)}
			resp := v.Handle(context.Background(), request(t, tc.op, kind, namespace, tc.obj, tc.old))
			switch {
			case tc.code == 0 && !resp.Allowed:
				t.Errorf("refused %d %q, want admitted", resp.Result.Code, resp.Result.Message)
			case tc.code != 0 && (resp.Allowed || resp.Result.Code != tc.code || !strings.Contains(resp.Result.Message, tc.message)):
				t.Errorf("allowed %v, %d %q; want refused %d with %q", resp.Allowed, resp.Result.Code, resp.Result.Message, tc.code, tc.message)
			case tc.code != 0 && strings.Contains(resp.Result.Message, "\n"):
				t.Errorf("refusal %q is not one line", resp.Result.Message)
			}
			if diff := cmp.Diff(tc.asked, asked); diff != "" {
				t.Errorf("asked the API server (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPropagation(t *testing.T) {
	create := admissionv1.Create
	update := admissionv1.Update
	run(t, "Propagation", "shop", map[string]validatorCase{
		"a Secret by name, readable": {op: create, obj: prop([]string{"p"}, secretDB),
			granted: []string{`get /secrets db in "shop"`}, asked: []string{`get /secrets db in "shop"`}},
		"every Secret, not listable": {op: create, obj: prop([]string{"p"}, webConfigMaps, allSecrets),
			granted: []string{`get /configmaps  in "shop"`, `list /configmaps  in "shop"`, `get /secrets  in "shop"`},
			asked:   []string{`get /configmaps  in "shop"`, `list /configmaps  in "shop"`, `get /secrets  in "shop"`, `list /secrets  in "shop"`},
			code:    http.StatusForbidden,
			message: `Propagation shop/web: user "bob" may not deliver selector 2 (every Secret.v1): it needs list on secrets in namespace shop (a propagation delivers only what its writer may read)`},
		"labels in the message": {op: create, obj: prop([]string{"p"}, webConfigMaps),
			asked: []string{`get /configmaps  in "shop"`}, code: http.StatusForbidden,
			message: `may not deliver selector 1 (ConfigMap.v1 with labels app=web): it needs get on configmaps in namespace shop`},
		"a cluster-scoped kind": {op: create, obj: prop([]string{"p"}, secretDB, namespaces), code: http.StatusBadRequest,
			message: `Propagation shop/web: selector 2 (Namespace.v1 named "shop") selects a cluster-scoped kind, and a Propagation selects objects of its own namespace: select it in a ClusterPropagation`},
		"a kind the hub does not serve, checked under its guessed resource": {op: create, obj: prop([]string{"p"}, widgets),
			granted: []string{`get example.com/widgets  in "shop"`, `list example.com/widgets  in "shop"`},
			asked:   []string{`get example.com/widgets  in "shop"`, `list example.com/widgets  in "shop"`}},
		"a version the hub does not serve, of a kind it does: its scope": {op: create,
			obj: prop([]string{"p"}, v1alpha1.ResourceSelector{Version: "v2", Kind: "Namespace"}), code: http.StatusBadRequest, message: "selects a cluster-scoped kind"},
		"the API server failing": {op: create, obj: prop([]string{"p"}, secretDB), fail: true, code: http.StatusInternalServerError,
			message: `Propagation shop/web: asking the API server whether user "bob" may get on secrets named "db" in namespace shop: the API server is away`},
		"a spec unchanged (a finalizer, a label)": {op: update, obj: prop([]string{"p"}, allSecrets), old: prop([]string{"p"}, allSecrets)},
		"a pin, by someone who may not read what it delivers": {op: update, old: prop([]string{"p"}, allSecrets),
			obj: func() *v1alpha1.Propagation {
				p := prop([]string{"p"}, allSecrets)
				p.Spec.Revision = ptr.To[int64](2)
				return p
			}()},
		"a stored wrong scope, updated without touching it": {op: update, old: prop([]string{"p"}, namespaces),
			obj: func() *v1alpha1.Propagation {
				p := prop([]string{"p"}, namespaces)
				p.Spec.DeletionPolicy = v1alpha1.DeletionPolicy("Orphan")
				return p
			}()},
		"selectors reordered": {op: update, obj: prop([]string{"p"}, webConfigMaps, allSecrets), old: prop([]string{"p"}, allSecrets, webConfigMaps)},
		"a selector added: only it checked": {op: update, obj: prop([]string{"p"}, allSecrets, secretDB), old: prop([]string{"p"}, allSecrets),
			asked: []string{`get /secrets db in "shop"`}, code: http.StatusForbidden, message: `may not deliver selector 2 (Secret.v1 named "db")`},
		"a placement added: every selector checked": {op: update, obj: prop([]string{"p", "mine"}, secretDB, webConfigMaps), old: prop([]string{"p"}, secretDB, webConfigMaps),
			granted: []string{`get /secrets db in "shop"`},
			asked:   []string{`get /secrets db in "shop"`, `get /configmaps  in "shop"`}, code: http.StatusForbidden, message: "may not deliver selector 2"},
		"a placement removed": {op: update, obj: prop([]string{"p"}, allSecrets), old: prop([]string{"p", "q"}, allSecrets)},
		"weights whose CEL does not compile": {op: update, old: prop([]string{"p"}, allSecrets), obj: func() *v1alpha1.Propagation {
			p := prop([]string{"p"}, allSecrets)
			p.Spec.ReplicaScheduling = &v1alpha1.ReplicaScheduling{Type: v1alpha1.ReplicaSchedulingDivided, Weights: []v1alpha1.ClusterWeight{{Weight: 1,
				ClusterSelector: clusterv1beta1.ClusterSelector{CelSelector: clusterv1beta1.ClusterCelSelector{CelExpressions: []string{"managedCluster.metadata.name =="}}}}}}
			return p
		}(), code: http.StatusBadRequest, message: "Propagation shop/web: spec.replicaScheduling.weights[0].clusterSelector.celSelector"},
		"a delete": {op: admissionv1.Delete},
	})
}

func cprop(placements []string, sels ...v1alpha1.ClusterResourceSelector) *v1alpha1.ClusterPropagation {
	p := &v1alpha1.ClusterPropagation{ObjectMeta: metav1.ObjectMeta{Name: "web"}}
	p.Spec.ResourceSelectors = sels
	for _, n := range placements {
		ns, name, _ := strings.Cut(n, "/")
		p.Spec.PlacementRefs = append(p.Spec.PlacementRefs, v1alpha1.PlacementReference{Namespace: ns, LocalPlacementReference: v1alpha1.LocalPlacementReference{Name: name}})
	}
	return p
}

func TestClusterPropagation(t *testing.T) {
	create := admissionv1.Create
	shop := v1alpha1.ClusterResourceSelector{ResourceSelector: namespaces}
	shopOnly := v1alpha1.ClusterResourceSelector{ResourceSelector: namespaces, SelectionScope: v1alpha1.NamespaceOnly}
	teams := v1alpha1.ClusterResourceSelector{ResourceSelector: v1alpha1.ResourceSelector{Version: "v1", Kind: "Namespace",
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}}}
	run(t, "ClusterPropagation", "", map[string]validatorCase{
		"a Namespace with its contents": {op: create, obj: cprop([]string{"ops/all"}, shop),
			granted: []string{`get /namespaces shop in ""`, `get */*  in "shop"`, `list */*  in "shop"`, `get cluster.open-cluster-management.io/placements all in "ops"`},
			asked:   []string{`get /namespaces shop in ""`, `get */*  in "shop"`, `list */*  in "shop"`, `get cluster.open-cluster-management.io/placements all in "ops"`}},
		"a Namespace whose contents the writer may not read": {op: create, obj: cprop([]string{"ops/all"}, shop),
			granted: []string{`get /namespaces shop in ""`, `get */*  in "shop"`},
			asked:   []string{`get /namespaces shop in ""`, `get */*  in "shop"`, `list */*  in "shop"`}, code: http.StatusForbidden,
			message: `ClusterPropagation web: user "bob" may not deliver selector 1 (Namespace.v1 named "shop") with its contents: it needs list on every resource (API group *, resource *) in namespace shop`},
		"a Namespace alone": {op: create, obj: cprop([]string{"ops/all"}, shopOnly),
			granted: []string{`get /namespaces shop in ""`, `get cluster.open-cluster-management.io/placements all in "ops"`},
			asked:   []string{`get /namespaces shop in ""`, `get cluster.open-cluster-management.io/placements all in "ops"`}},
		"Namespaces by labels with their contents: everything everywhere": {op: create, obj: cprop([]string{"ops/all"}, teams),
			granted: []string{`get /namespaces  in ""`, `list /namespaces  in ""`},
			asked:   []string{`get /namespaces  in ""`, `list /namespaces  in ""`, `get */*  in ""`}, code: http.StatusForbidden,
			message: `it needs get on every resource (API group *, resource *) cluster-wide`},
		"a placement the writer may not get": {op: create, obj: cprop([]string{"ops/all"}, shopOnly),
			granted: []string{`get /namespaces shop in ""`},
			asked:   []string{`get /namespaces shop in ""`, `get cluster.open-cluster-management.io/placements all in "ops"`}, code: http.StatusForbidden,
			message: `ClusterPropagation web: user "bob" may not deliver to Placement ops/all: it needs get on placements (API group cluster.open-cluster-management.io) named "all" in namespace ops`},
		"a namespaced kind": {op: create, obj: cprop([]string{"ops/all"}, v1alpha1.ClusterResourceSelector{ResourceSelector: deployments}), code: http.StatusBadRequest,
			message: `ClusterPropagation web: selector 1 (every Deployment.v1.apps) selects a namespaced kind, and a ClusterPropagation selects cluster-scoped objects: select the Namespace with selectionScope NamespaceWithResources, or use a Propagation in that namespace`},
		"a ClusterRole": {op: create, obj: cprop([]string{"ops/all"}, v1alpha1.ClusterResourceSelector{ResourceSelector: v1alpha1.ResourceSelector{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole", Name: "view"}}),
			granted: []string{`get rbac.authorization.k8s.io/clusterroles view in ""`, `get cluster.open-cluster-management.io/placements all in "ops"`},
			asked:   []string{`get rbac.authorization.k8s.io/clusterroles view in ""`, `get cluster.open-cluster-management.io/placements all in "ops"`}},
		"a placement added": {op: admissionv1.Update, obj: cprop([]string{"ops/all", "ops/mine"}, shopOnly), old: cprop([]string{"ops/all"}, shopOnly),
			granted: []string{`get /namespaces shop in ""`, `get cluster.open-cluster-management.io/placements mine in "ops"`},
			asked:   []string{`get /namespaces shop in ""`, `get cluster.open-cluster-management.io/placements mine in "ops"`}},
		"the default scope spelled out is no change": {op: admissionv1.Update, obj: cprop([]string{"ops/all"},
			v1alpha1.ClusterResourceSelector{ResourceSelector: namespaces, SelectionScope: v1alpha1.NamespaceWithResources}), old: cprop([]string{"ops/all"}, shop)},
		"contents added to a Namespace": {op: admissionv1.Update, obj: cprop([]string{"ops/all"}, shop), old: cprop([]string{"ops/all"}, shopOnly),
			granted: []string{`get /namespaces shop in ""`}, asked: []string{`get /namespaces shop in ""`, `get */*  in "shop"`}, code: http.StatusForbidden,
			message: "with its contents"},
	})
}

func TestProbeIsRefused(t *testing.T) {
	var asked []string
	v := &Validator{Mapper: hubMapper(), Kube: reviewing(t, &asked, nil, false)}
	raw, err := json.Marshal(probe())
	if err != nil {
		t.Fatal(err)
	}
	req := request(t, admissionv1.Create, "Propagation", metav1.NamespaceDefault, nil, nil)
	req.Object.Raw = raw
	if resp := v.Handle(context.Background(), req); resp.Allowed || resp.Result.Code != http.StatusBadRequest {
		t.Errorf("the probe was answered %v %+v, want refused for its scope", resp.Allowed, resp.Result)
	}
}
