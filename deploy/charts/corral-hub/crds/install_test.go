package crds

import (
	"errors"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
)

// TestWriteRetriesALostRace: two replicas of a hub install the same CRD at
// once; the one whose create or update lost retries on what the other
// wrote, instead of failing its start.
func TestWriteRetriesALostRace(t *testing.T) {
	for name, verb := range map[string]string{"a create another made first": "create", "an update another made first": "update"} {
		t.Run(name, func(t *testing.T) {
			crd := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: "things.example.com"}}
			var existing []runtime.Object
			if verb == "update" {
				existing = append(existing, crd.DeepCopy())
			}
			client := fake.NewSimpleClientset(existing...) //nolint:staticcheck // NewClientset needs the apply schema this fake does not carry for CRDs
			lost := false
			client.PrependReactor(verb, "customresourcedefinitions", func(k8stesting.Action) (bool, runtime.Object, error) {
				if lost {
					return false, nil, nil
				}
				lost = true
				if verb == "create" {
					return true, nil, apierrors.NewAlreadyExists(apiextensionsv1.Resource("customresourcedefinitions"), crd.Name)
				}
				return true, nil, apierrors.NewConflict(apiextensionsv1.Resource("customresourcedefinitions"), crd.Name, errors.New("modified"))
			})
			if err := write(t.Context(), client.ApiextensionsV1().CustomResourceDefinitions(), []*apiextensionsv1.CustomResourceDefinition{crd}); err != nil {
				t.Fatalf("write after a lost race: %v, want it retried", err)
			}
			if !lost {
				t.Fatal("the race was never lost: the test tests nothing")
			}
		})
	}
}
