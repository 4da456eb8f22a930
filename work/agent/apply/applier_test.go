package apply

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"
	workv1 "open-cluster-management.io/api/work/v1"
)

func TestSecretAsStored(t *testing.T) {
	cases := map[string]struct {
		obj, want map[string]any
	}{
		"stringData folded into data, type defaulted": {
			obj: map[string]any{"apiVersion": "v1", "kind": "Secret",
				"data": map[string]any{"a": "YQ==", "b": "old"}, "stringData": map[string]any{"b": "b"}},
			want: map[string]any{"apiVersion": "v1", "kind": "Secret", "type": "Opaque", "data": map[string]any{"a": "YQ==", "b": "Yg=="}},
		},
		"a type set is kept": {
			obj:  map[string]any{"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/tls"},
			want: map[string]any{"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/tls"},
		},
		"not a Secret: left as it is": {
			obj:  map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "stringData": map[string]any{"b": "b"}},
			want: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "stringData": map[string]any{"b": "b"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			obj := &unstructured.Unstructured{Object: tc.obj}
			secretAsStored(obj)
			if diff := cmp.Diff(tc.want, obj.Object); diff != "" {
				t.Errorf("stored (-want +got):\n%s", diff)
			}
		})
	}
}

var thingsGVR = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "things"}

// fakeServer stores things as an API server does: it defaults
// spec.defaulted, bumps the resourceVersion of every write, and keeps it
// for an update that changes nothing.
type fakeServer struct {
	objs map[string]*unstructured.Unstructured
	rv   int
}

func (f *fakeServer) store(o *unstructured.Unstructured) *unstructured.Unstructured {
	_ = unstructured.SetNestedField(o.Object, "x", "spec", "defaulted")
	f.rv++
	o.SetResourceVersion(strconv.Itoa(f.rv))
	f.objs[o.GetName()] = o
	return o.DeepCopy()
}

func (f *fakeServer) react(action clienttesting.Action) (bool, runtime.Object, error) {
	gr := thingsGVR.GroupResource()
	switch action.GetVerb() {
	case "get":
		name := action.(clienttesting.GetAction).GetName()
		if o, ok := f.objs[name]; ok {
			return true, o.DeepCopy(), nil
		}
		return true, nil, apierrors.NewNotFound(gr, name)
	case "create":
		o := action.(clienttesting.CreateAction).GetObject().(*unstructured.Unstructured).DeepCopy()
		if _, ok := f.objs[o.GetName()]; ok {
			return true, nil, apierrors.NewAlreadyExists(gr, o.GetName())
		}
		return true, f.store(o), nil
	case "update":
		o := action.(clienttesting.UpdateAction).GetObject().(*unstructured.Unstructured).DeepCopy()
		old := f.objs[o.GetName()]
		if old.GetResourceVersion() != o.GetResourceVersion() {
			return true, nil, apierrors.NewConflict(gr, o.GetName(), errors.New("stale"))
		}
		_ = unstructured.SetNestedField(o.Object, "x", "spec", "defaulted")
		if reflect.DeepEqual(o.Object, old.Object) {
			return true, old.DeepCopy(), nil
		}
		return true, f.store(o), nil
	}
	return false, nil, nil
}

// change changes the stored thing as someone on the managed cluster would.
func (f *fakeServer) change(name string, path []string, v any) {
	o := f.objs[name].DeepCopy()
	_ = unstructured.SetNestedField(o.Object, v, path...)
	f.store(o)
}

func TestApplyUpdate(t *testing.T) {
	srv := &fakeServer{objs: map[string]*unstructured.Unstructured{}}
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{thingsGVR: "ThingList"})
	client.PrependReactor("*", "things", srv.react)
	mapping := &meta.RESTMapping{Resource: thingsGVR, GroupVersionKind: thingsGVR.GroupVersion().WithKind("Thing"), Scope: meta.RESTScopeNamespace}
	owner := metav1.OwnerReference{APIVersion: "work.open-cluster-management.io/v1", Kind: "AppliedManifestWork", Name: "amw", UID: "amw-uid"}
	thing := func(spec map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Thing",
			"metadata": map[string]any{"namespace": "ns", "name": "t"}, "spec": spec}}
	}
	key := Key{GVR: thingsGVR, Namespace: "ns", Name: "t"}
	stored := func() string {
		if o, ok := srv.objs["t"]; ok {
			return o.GetResourceVersion()
		}
		return ""
	}
	applier := NewApplier(client)
	// Each step runs after the ones before it, on the same server and applier.
	steps := []struct {
		name       string
		before     func()
		spec       map[string]any
		needObject bool
		wantVerbs  []string
		wantWrote  bool
		wantDrift  float64
		wantSpec   map[string]any
	}{
		{name: "created when absent", spec: map[string]any{"a": "1", "b": "1"},
			wantVerbs: []string{"create"}, wantWrote: true, wantSpec: map[string]any{"a": "1", "b": "1", "defaulted": "x"}},
		{name: "unchanged and as last written: not even read", spec: map[string]any{"a": "1", "b": "1"}},
		{name: "its status changed: read for feedback, differs from the manifest only in defaults, nothing written",
			before: func() { srv.change("t", []string{"status", "phase"}, "Ready") },
			spec:   map[string]any{"a": "1", "b": "1"}, needObject: true, wantVerbs: []string{"get"}},
		{name: "a field dropped from the manifest is dropped", spec: map[string]any{"a": "1"},
			wantVerbs: []string{"get", "update"}, wantWrote: true, wantSpec: map[string]any{"a": "1", "defaulted": "x"}},
		{name: "changed on the managed cluster: put back and counted",
			before: func() { srv.change("t", []string{"spec", "a"}, "changed") },
			spec:   map[string]any{"a": "1"}, wantVerbs: []string{"get", "update"}, wantWrote: true, wantDrift: 1},
		{name: "deleted on the managed cluster: created again and counted",
			before: func() { delete(srv.objs, "t"); applier.Deleted(key) },
			spec:   map[string]any{"a": "1"}, wantVerbs: []string{"create"}, wantWrote: true, wantDrift: 1},
		{name: "an agent that remembers nothing: the server finds nothing to update",
			before: func() { applier = NewApplier(client) },
			spec:   map[string]any{"a": "1"}, wantVerbs: []string{"get", "update"}},
		{name: "and then it remembers", spec: map[string]any{"a": "1"}, needObject: true, wantVerbs: []string{"get"}},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			if step.before != nil {
				step.before()
			}
			client.ClearActions()
			drift := DriftCorrections()
			res := applier.Apply(context.Background(), Request{Object: thing(step.spec), Mapping: mapping, Owner: owner,
				CachedVersion: stored(), Absent: stored() == "", NeedObject: step.needObject})
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			var verbs []string
			for _, a := range client.Actions() {
				verbs = append(verbs, a.GetVerb())
			}
			if diff := cmp.Diff(step.wantVerbs, verbs); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
			if res.Wrote != step.wantWrote {
				t.Errorf("Wrote = %v, want %v", res.Wrote, step.wantWrote)
			}
			if got := DriftCorrections() - drift; got != step.wantDrift {
				t.Errorf("drift corrections counted: %v, want %v", got, step.wantDrift)
			}
			if step.wantSpec != nil {
				if diff := cmp.Diff(step.wantSpec, srv.objs["t"].Object["spec"]); diff != "" {
					t.Errorf("stored spec (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestApplyWritesThroughTheRequestsClient checks that a request's client
// (a work's executor's) does every read and write, and the applier's own
// none: the managed API server must see the executor, not the agent.
func TestApplyWritesThroughTheRequestsClient(t *testing.T) {
	mapping := &meta.RESTMapping{Resource: thingsGVR, GroupVersionKind: thingsGVR.GroupVersion().WithKind("Thing"), Scope: meta.RESTScopeNamespace}
	owner := metav1.OwnerReference{APIVersion: "work.open-cluster-management.io/v1", Kind: "AppliedManifestWork", Name: "amw", UID: "amw-uid"}
	newClient := func() *dynamicfake.FakeDynamicClient {
		srv := &fakeServer{objs: map[string]*unstructured.Unstructured{}}
		c := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{thingsGVR: "ThingList"})
		c.PrependReactor("*", "things", srv.react)
		return c
	}
	for _, strategy := range []workv1.UpdateStrategyType{workv1.UpdateStrategyTypeUpdate, workv1.UpdateStrategyTypeCreateOnly, workv1.UpdateStrategyTypeReadOnly} {
		t.Run(string(strategy), func(t *testing.T) {
			own, executor := newClient(), newClient()
			applier := NewApplier(own)
			for _, spec := range []string{"1", "2"} { // created, then updated
				thing := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Thing",
					"metadata": map[string]any{"namespace": "ns", "name": "t"}, "spec": map[string]any{"a": spec}}}
				res := applier.Apply(context.Background(), Request{Object: thing, Mapping: mapping, Owner: owner,
					Strategy: &workv1.UpdateStrategy{Type: strategy}, Client: executor})
				if res.Err != nil {
					t.Fatal(res.Err)
				}
			}
			if got := own.Actions(); len(got) > 0 {
				t.Errorf("the applier's own client was used: %v", got)
			}
			if len(executor.Actions()) == 0 {
				t.Error("the request's client was not used")
			}
		})
	}
}
