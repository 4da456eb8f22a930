package compact

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/json"
	workv1 "open-cluster-management.io/api/work/v1"
)

// decodedWork is a ManifestWork as an informer holds it: decoded from
// JSON, every string its own copy, slices as the decoder grew them.
func decodedWork(t *testing.T) *workv1.ManifestWork {
	t.Helper()
	const raw = `{"metadata":{"name":"w","namespace":"cluster1","labels":{"app":"web","tier":"front"},
		"managedFields":[{"manager":"hub","operation":"Update"}]},
		"spec":{"workload":{"manifests":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}]}},
		"status":{"conditions":[
			{"type":"Applied","status":"True","reason":"AppliedManifestWorkComplete","message":"Apply manifest work complete","lastTransitionTime":"2026-01-01T00:00:00Z"},
			{"type":"Available","status":"True","reason":"ResourcesAvailable","message":"All resources are available","lastTransitionTime":"2026-01-01T00:00:00Z"},
			{"type":"Progressing","status":"False","reason":"Completed","message":"Completed","lastTransitionTime":"2026-01-01T00:00:00Z"}],
		"resourceStatus":{"manifests":[{"resourceMeta":{"kind":"ConfigMap","version":"v1","name":"c","namespace":"default"},
			"statusFeedback":{"values":[{"name":"replicas","fieldValue":{"type":"Integer","integer":2}}]}}]}}}`
	w := &workv1.ManifestWork{}
	if err := json.Unmarshal([]byte(raw), w); err != nil {
		t.Fatal(err)
	}
	return w
}

func sameData(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }

func TestObjectKeepsWhatItSays(t *testing.T) {
	w := decodedWork(t)
	want := w.DeepCopy()
	Object(w)
	if diff := cmp.Diff(want, w); diff != "" {
		t.Errorf("Object changed the work (-before +after):\n%s", diff)
	}
	if !reflect.DeepEqual(want, w) {
		t.Errorf("Object changed the work: not DeepEqual")
	}
}

func TestObjectSharesEqualStrings(t *testing.T) {
	a, b := decodedWork(t), decodedWork(t)
	if sameData(a.Status.Conditions[0].Reason, b.Status.Conditions[0].Reason) {
		t.Fatal("two decoded works share a string before Object: the test proves nothing")
	}
	Object(a)
	Object(b)
	for name, pair := range map[string][2]string{
		"condition reason":  {a.Status.Conditions[0].Reason, b.Status.Conditions[0].Reason},
		"condition message": {a.Status.Conditions[1].Message, b.Status.Conditions[1].Message},
		"namespace":         {a.Namespace, b.Namespace},
		"feedback name":     {a.Status.ResourceStatus.Manifests[0].StatusFeedbacks.Values[0].Name, b.Status.ResourceStatus.Manifests[0].StatusFeedbacks.Values[0].Name},
		"label value":       {a.Labels["app"], b.Labels["app"]},
	} {
		if !sameData(pair[0], pair[1]) {
			t.Errorf("%s %q: two copies after Object, want one", name, pair[0])
		}
	}
	var aKey, bKey string
	for k := range a.Labels {
		if k == "tier" {
			aKey = k
		}
	}
	for k := range b.Labels {
		if k == "tier" {
			bKey = k
		}
	}
	if !sameData(aKey, bKey) {
		t.Errorf("label key %q: two copies after Object, want one", aKey)
	}
}

func TestObjectCutsSlicesToTheirLength(t *testing.T) {
	w := decodedWork(t)
	if c := w.Status.Conditions; cap(c) == len(c) {
		t.Fatalf("decoded conditions have cap %d = len: the test proves nothing", cap(c))
	}
	Object(w)
	if c := w.Status.Conditions; cap(c) != len(c) {
		t.Errorf("conditions: cap %d after Object, want their length %d", cap(c), len(c))
	}
}

func TestObjectLeavesLongStringsAndNumbers(t *testing.T) {
	long := string(make([]byte, maxInterned+1))
	q := resource.MustParse("1500m")
	obj := &struct {
		Long     string
		Quantity resource.Quantity
		Count    int64
		Any      any
		Nil      *metav1.Time
	}{Long: long, Quantity: q, Count: 7, Any: int64(3)}
	Object(obj)
	if !sameData(obj.Long, long) {
		t.Error("a string longer than maxInterned was copied")
	}
	if obj.Quantity.Cmp(q) != 0 || obj.Count != 7 || obj.Any != int64(3) || obj.Nil != nil {
		t.Errorf("Object changed values it has nothing to compact: %+v", obj)
	}
}

func TestObjectCompactsUnstructured(t *testing.T) {
	decode := func() *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON([]byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"team"},
			"spec":{"replicas":2,"template":{"spec":{"containers":[{"name":"web","image":"registry.example/web:v1"}]}}}}`)); err != nil {
			t.Fatal(err)
		}
		return u
	}
	a, b := decode(), decode()
	want := a.DeepCopy()
	Object(a)
	Object(b)
	if diff := cmp.Diff(want.Object, a.Object); diff != "" {
		t.Errorf("Object changed the unstructured object (-before +after):\n%s", diff)
	}
	imageA, _, _ := unstructured.NestedSlice(a.Object, "spec", "template", "spec", "containers")
	imageB, _, _ := unstructured.NestedSlice(b.Object, "spec", "template", "spec", "containers")
	ia := imageA[0].(map[string]any)["image"].(string)
	ib := imageB[0].(map[string]any)["image"].(string)
	if !sameData(ia, ib) {
		t.Errorf("image %q in a slice of maps: two copies after Object, want one", ia)
	}
}

func TestTransformStripsManagedFields(t *testing.T) {
	w := decodedWork(t)
	out, err := Transform()(w)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.(*workv1.ManifestWork).ManagedFields; got != nil {
		t.Errorf("managedFields after Transform: %v, want none", got)
	}
	if _, err := Transform()("not an object"); err != nil {
		t.Errorf("Transform of a non-object: %v, want it passed through", err)
	}
}
