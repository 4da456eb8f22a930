// Package hubclienttest gives the verbs' tests a fake hub: a
// controller-runtime fake client over hubclient.Scheme, to give a verb as
// hubclient.Hub{Client: c}.
package hubclienttest

import (
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/corral-dev/corral/internal/hubclient"
)

// NewClientBuilder returns a fake client builder over hubclient.Scheme
// that holds objs.
func NewClientBuilder(t testing.TB, objs ...client.Object) *fake.ClientBuilder {
	t.Helper()
	scheme, err := hubclient.Scheme()
	if err != nil {
		t.Fatal(err)
	}
	return fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...)
}
