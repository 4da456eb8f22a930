package revision

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// envelope is the envelope ConfigMap shop/hooks of data.
func envelope(data map[string]string) *unstructured.Unstructured {
	e := named("v1", "ConfigMap", "shop", "hooks")
	e.SetLabels(map[string]string{v1alpha1.LabelEnvelope: "true"})
	d := map[string]any{}
	for k, v := range data {
		d[k] = v
	}
	e.Object["data"] = d
	return e
}

func TestIsEnvelope(t *testing.T) {
	labelled := func(u *unstructured.Unstructured, value string) *unstructured.Unstructured {
		u.SetLabels(map[string]string{v1alpha1.LabelEnvelope: value})
		return u
	}
	cases := map[string]struct {
		obj  *unstructured.Unstructured
		want bool
	}{
		"a ConfigMap labelled true":     {obj: envelope(nil), want: true},
		"a ConfigMap labelled false":    {obj: labelled(named("v1", "ConfigMap", "shop", "x"), "false")},
		"a ConfigMap without the label": {obj: named("v1", "ConfigMap", "shop", "x")},
		"a Secret labelled true":        {obj: labelled(named("v1", "Secret", "shop", "x"), "true")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := IsEnvelope(tc.obj); got != tc.want {
				t.Errorf("IsEnvelope %t, want %t", got, tc.want)
			}
		})
	}
}

func TestOpen(t *testing.T) {
	const (
		deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n"
		role       = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\n  annotations: {team: a}\nrules: []\n"
	)
	cases := map[string]struct {
		data    map[string]string
		want    []string // key: Kind name
		wantErr string
	}{
		"several documents per value, keys in order, empty documents skipped": {
			data: map[string]string{
				"b.yaml": "---\n" + deployment + "---\n# nothing\n---\n" + role,
				"a.json": `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}}`,
				"empty":  "",
			},
			want: []string{"a.json: ConfigMap settings", "b.yaml: Deployment web", "b.yaml: ClusterRole reader"},
		},
		"no data": {},
		"YAML that does not decode": {
			data:    map[string]string{"x": "kind: [Deployment\n"},
			wantErr: `envelope ConfigMap shop/hooks, key "x": document 1: yaml: line 1: did not find expected ',' or ']'`,
		},
		"a bad document separator": {
			data:    map[string]string{"x": deployment + "--- kind: x\n"},
			wantErr: `envelope ConfigMap shop/hooks, key "x": document 1: invalid Yaml document separator: kind: x`,
		},
		"no kind": {
			data:    map[string]string{"x": deployment + "---\napiVersion: v1\nmetadata: {name: a}\n"},
			wantErr: `envelope ConfigMap shop/hooks, key "x": document 2: the object has no kind`,
		},
		"no apiVersion": {
			data:    map[string]string{"x": "kind: ConfigMap\nmetadata: {name: a}\n"},
			wantErr: `envelope ConfigMap shop/hooks, key "x": document 1: the object has no apiVersion`,
		},
		"no name": {
			data:    map[string]string{"x": "apiVersion: v1\nkind: ConfigMap\nmetadata: {generateName: a-}\n"},
			wantErr: `envelope ConfigMap shop/hooks, key "x": document 1: the object has no metadata.name`,
		},
		"not an object": {
			data:    map[string]string{"x": "- a\n- b\n"},
			wantErr: `envelope ConfigMap shop/hooks, key "x": document 1: a []interface {} is not an object`,
		},
		"an apiVersion of three parts": {
			data:    map[string]string{"x": "apiVersion: a/b/c\nkind: X\nmetadata: {name: a}\n"},
			wantErr: `envelope ConfigMap shop/hooks, key "x": document 1: apiVersion "a/b/c" is not group/version`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			objs, err := Open(envelope(tc.data))
			if tc.wantErr != "" {
				if err == nil {
					t.Fatalf("no error, want %q", tc.wantErr)
				}
				if diff := cmp.Diff(tc.wantErr, err.Error()); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range objs {
				got = append(got, e.Key+": "+e.Object.GetKind()+" "+e.Object.GetName())
				if a := e.Object.GetAnnotations()[v1alpha1.AnnotationEnvelope]; a != "shop/hooks" {
					t.Errorf("%s: annotation %s is %q, want shop/hooks", e.Object.GetName(), v1alpha1.AnnotationEnvelope, a)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("objects (-want +got):\n%s", diff)
			}
		})
	}
}

// TestOpenKeepsTheObjectAsWritten: but for the envelope annotation, an
// object comes out as written, integers as int64 (as the API machinery
// has them, so Clean and Hash see what a listed object would be).
func TestOpenKeepsTheObjectAsWritten(t *testing.T) {
	objs, err := Open(envelope(map[string]string{"d": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: other\n  labels: {app: web}\n  annotations: {note: kept}\nspec:\n  replicas: 2\nstatus:\n  replicas: 1\n"}))
	if err != nil || len(objs) != 1 {
		t.Fatalf("Open: %d objects, %v", len(objs), err)
	}
	want := obj(t, `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, namespace: other, labels: {app: web},
		annotations: {note: kept, apps.corral.dev/envelope: shop/hooks}}, spec: {replicas: 2}, status: {replicas: 1}}`)
	want.Object["spec"].(map[string]any)["replicas"] = int64(2)
	want.Object["status"].(map[string]any)["replicas"] = int64(1)
	if diff := cmp.Diff(want.Object, objs[0].Object.Object); diff != "" {
		t.Errorf("object (-want +got):\n%s", diff)
	}
}
