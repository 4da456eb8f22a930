package validation

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	clienttesting "k8s.io/client-go/testing"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/corral-dev/corral/internal/testing/builder"
)

// allowing is a client whose SubjectAccessReviews allow exactly the
// execute-as names given, recording what was asked.
func allowing(asked *[]authorizationv1.ResourceAttributes, names ...string) *fake.Clientset {
	kube := fake.NewClientset()
	kube.PrependReactor("create", "subjectaccessreviews", func(a clienttesting.Action) (bool, runtime.Object, error) {
		sar := a.(clienttesting.CreateAction).GetObject().(*authorizationv1.SubjectAccessReview)
		*asked = append(*asked, *sar.Spec.ResourceAttributes)
		for _, n := range names {
			if sar.Spec.ResourceAttributes.Name == n {
				sar.Status.Allowed = true
			}
		}
		return true, sar, nil
	})
	return kube
}

func request(t *testing.T, op admissionv1.Operation, obj, old any) admission.Request {
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
		Operation: op, Namespace: "cluster1", Name: "app", Object: enc(obj), OldObject: enc(old),
		Kind:     metav1.GroupVersionKind{Group: workv1.GroupName, Version: "v1", Kind: "ManifestWork"},
		UserInfo: authenticationv1.UserInfo{Username: "alice", Groups: []string{"devs"}},
	}}
}

func TestWorkValidator(t *testing.T) {
	noManifests := builder.Work("cluster1", "app").Obj()
	cases := map[string]struct {
		op        admissionv1.Operation
		obj, old  *workv1.ManifestWork
		allowed   bool
		code      int32
		message   string
		sarAsked  bool
		allowedSA string
	}{
		"valid, no executor":       {op: admissionv1.Create, obj: builder.Work("cluster1", "app").Manifests(raw(cm)).Obj(), allowed: true},
		"malformed manifest":       {op: admissionv1.Create, obj: builder.Work("cluster1", "app").Manifests(raw(`{"kind":"ConfigMap","metadata":{"name":"a"}}`)).Obj(), code: http.StatusBadRequest, message: "ManifestWork cluster1/app: manifest 0: it has no apiVersion"},
		"no manifests":             {op: admissionv1.Create, obj: noManifests, code: http.StatusBadRequest, message: "the work has no manifests"},
		"executor allowed":         {op: admissionv1.Create, obj: builder.Work("cluster1", "app").Executor("apps", "deployer").Manifests(raw(cm)).Obj(), allowed: true, sarAsked: true, allowedSA: "system:serviceaccount:apps:deployer"},
		"executor not allowed":     {op: admissionv1.Create, obj: builder.Work("cluster1", "app").Executor("apps", "admin").Manifests(raw(cm)).Obj(), sarAsked: true, allowedSA: "system:serviceaccount:apps:deployer", code: http.StatusForbidden, message: `user "alice" may not set executor apps/admin: that needs verb execute-as on manifestworks named system:serviceaccount:apps:admin`},
		"unchanged spec on update": {op: admissionv1.Update, obj: builder.Work("cluster1", "app").Executor("apps", "admin").Manifests(raw(`{}`)).Obj(), old: builder.Work("cluster1", "app").Executor("apps", "admin").Manifests(raw(`{}`)).Obj(), allowed: true},
		"unchanged executor":       {op: admissionv1.Update, obj: builder.Work("cluster1", "app").Executor("apps", "admin").Manifests(raw(cm), raw(strings.Replace(cm, `"a"`, `"b"`, 1))).Obj(), old: builder.Work("cluster1", "app").Executor("apps", "admin").Manifests(raw(cm)).Obj(), allowed: true},
		"executor changed":         {op: admissionv1.Update, obj: builder.Work("cluster1", "app").Executor("apps", "admin").Manifests(raw(cm)).Obj(), old: builder.Work("cluster1", "app").Manifests(raw(cm)).Obj(), sarAsked: true, code: http.StatusForbidden, message: "may not set executor apps/admin"},
		"delete is not looked at":  {op: admissionv1.Delete, allowed: true},
		"executor with no account": {op: admissionv1.Create, obj: func() *workv1.ManifestWork {
			w := builder.Work("cluster1", "app").Executor("apps", "x").Manifests(raw(cm)).Obj()
			w.Spec.Executor.Subject.ServiceAccount = nil
			return w
		}(),
			code: http.StatusBadRequest, message: "spec.executor.subject must be type ServiceAccount"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var asked []authorizationv1.ResourceAttributes
			v := &workValidator{executors{allowing(&asked, tc.allowedSA)}}
			var obj, old any
			if tc.obj != nil {
				obj = tc.obj
			}
			if tc.old != nil {
				old = tc.old
			}
			resp := v.Handle(context.Background(), request(t, tc.op, obj, old))
			if resp.Allowed != tc.allowed {
				t.Fatalf("allowed %v (%v), want %v", resp.Allowed, resp.Result, tc.allowed)
			}
			if !tc.allowed {
				if resp.Result.Code != tc.code || !strings.Contains(resp.Result.Message, tc.message) {
					t.Errorf("refused %d %q, want %d with %q", resp.Result.Code, resp.Result.Message, tc.code, tc.message)
				}
			}
			if (len(asked) > 0) != tc.sarAsked {
				t.Errorf("asked the API server %v; want asked: %v", asked, tc.sarAsked)
			}
			for _, a := range asked {
				if a.Verb != ExecuteAsVerb || a.Resource != "manifestworks" || a.Group != workv1.GroupName || a.Namespace != "cluster1" {
					t.Errorf("asked %+v: want execute-as on manifestworks in cluster1", a)
				}
			}
		})
	}
}

func TestReplicaSetValidator(t *testing.T) {
	set := func(executor string, refs ...string) *workv1alpha1.ManifestWorkReplicaSet {
		s := &workv1alpha1.ManifestWorkReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "cluster1", Name: "app"}}
		w := builder.Work("cluster1", "app").Manifests(raw(cm))
		if executor != "" {
			w.Executor("apps", executor)
		}
		s.Spec.ManifestWorkTemplate = w.Obj().Spec
		for _, r := range refs {
			s.Spec.PlacementRefs = append(s.Spec.PlacementRefs, workv1alpha1.LocalPlacementReference{Name: r})
		}
		return s
	}
	cases := map[string]struct {
		obj     *workv1alpha1.ManifestWorkReplicaSet
		allowed bool
		message string
	}{
		"valid":                {obj: set("", "p"), allowed: true},
		"no placementRefs":     {obj: set(""), message: "ManifestWorkReplicaSet cluster1/app: spec.placementRefs is empty"},
		"executor not allowed": {obj: set("admin", "p"), message: "may not set executor apps/admin"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var asked []authorizationv1.ResourceAttributes
			v := &replicaSetValidator{executors{allowing(&asked)}}
			resp := v.Handle(context.Background(), request(t, admissionv1.Create, tc.obj, nil))
			if resp.Allowed != tc.allowed {
				t.Fatalf("allowed %v (%v), want %v", resp.Allowed, resp.Result, tc.allowed)
			}
			if !tc.allowed && !strings.Contains(resp.Result.Message, tc.message) {
				t.Errorf("refused %q, want %q", resp.Result.Message, tc.message)
			}
		})
	}
}

// TestWebhooksRefuseTheirProbes checks each webhook refuses its own probe,
// which WaitServing creates in dry run to see the API server calls it.
func TestWebhooksRefuseTheirProbes(t *testing.T) {
	whs, err := Webhooks(&rest.Config{Host: "https://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range whs {
		if w.Probe == nil {
			t.Errorf("webhook %s has no probe", w.Name)
			continue
		}
		u, ok := w.Probe.(*unstructured.Unstructured)
		if !ok || u.GetName() == "" || u.GetNamespace() == "" {
			t.Fatalf("webhook %s: probe %#v is not a named, namespaced object", w.Name, w.Probe)
		}
		resp := w.Handler.Handle(context.Background(), request(t, admissionv1.Create, u.Object, nil))
		if resp.Allowed || !strings.Contains(resp.Result.Message, "metadata.name") {
			t.Errorf("webhook %s: %v, %q; want its probe refused for the manifest's missing metadata.name", w.Name, resp.Allowed, resp.Result.Message)
		}
	}
}
