package hubclient

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// TestScheme: the one scheme knows every kind a verb reads or writes.
func TestScheme(t *testing.T) {
	s, err := Scheme()
	if err != nil {
		t.Fatal(err)
	}
	for _, obj := range []runtime.Object{
		&corev1.Namespace{}, &certificatesv1.CertificateSigningRequest{},
		&clusterv1.ManagedCluster{}, &clusterv1alpha1.AddOnPlacementScore{},
		&clusterv1beta1.Placement{}, &clusterv1beta1.PlacementDecision{},
		&clusterv1beta2.ManagedClusterSet{}, &clusterv1beta2.ManagedClusterSetBinding{},
		&addonv1alpha1.ClusterManagementAddOn{}, &addonv1alpha1.ManagedClusterAddOn{}, &addonv1alpha1.AddOnDeploymentConfig{},
		&workv1.ManifestWork{}, &workv1alpha1.ManifestWorkReplicaSet{},
	} {
		if _, _, err := s.ObjectKinds(obj); err != nil {
			t.Errorf("%T: %v", obj, err)
		}
	}
}

func TestComplete(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: hub, cluster: {server: "https://hub.example:6443"}}]
users: [{name: admin, user: {token: t}}]
contexts: [{name: hub, context: {cluster: hub, user: admin}}]
current-context: hub
`), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		kubeconfig string
		wantErr    string
	}{
		"a kubeconfig builds every client": {kubeconfig: kubeconfig},
		"none says what to pass":           {kubeconfig: filepath.Join(t.TempDir(), "none"), wantErr: "no usable kubeconfig for the hub"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			h := New()
			h.Kubeconfig = tc.kubeconfig
			err := h.Complete()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Complete() = %v, want an error saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if h.Config.Host != "https://hub.example:6443" || h.Kube == nil || h.Clusters == nil || h.Client == nil {
				t.Errorf("Complete() left %+v", h)
			}
		})
	}
}

// TestCompleteKeepsAGivenClient: a test's client is not replaced, and no
// kubeconfig is read for it.
func TestCompleteKeepsAGivenClient(t *testing.T) {
	c := fake.NewClientBuilder().Build()
	h := Hub{Client: c}
	if err := h.Complete(); err != nil || h.Client != c || h.Config != nil {
		t.Errorf("Complete() = %v, left %+v", err, h)
	}
}

// verb records which of its steps ran, and fails the one named.
type verb struct {
	fail string
	ran  []string
}

func (v *verb) step(name string) error {
	v.ran = append(v.ran, name)
	if name == v.fail {
		return errors.New(name + " failed")
	}
	return nil
}

func (v *verb) Validate() error             { return v.step("Validate") }
func (v *verb) Complete() error             { return v.step("Complete") }
func (v *verb) Run(_ context.Context) error { return v.step("Run") }

func TestRun(t *testing.T) {
	cases := map[string]struct {
		fail string
		want []string
	}{
		"all run, in order":             {want: []string{"Validate", "Complete", "Run"}},
		"invalid: nothing is completed": {fail: "Validate", want: []string{"Validate"}},
		"not completed: nothing runs":   {fail: "Complete", want: []string{"Validate", "Complete"}},
		"a failed run is its error":     {fail: "Run", want: []string{"Validate", "Complete", "Run"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			v := &verb{fail: tc.fail}
			err := Run(context.Background(), v)
			if (err != nil) != (tc.fail != "") || err != nil && err.Error() != tc.fail+" failed" {
				t.Errorf("Run() = %v, want %s's error", err, tc.fail)
			}
			if diff := cmp.Diff(tc.want, v.ran); diff != "" {
				t.Errorf("steps run (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNotAHubIsSaidPlainly: a verb run against a cluster that serves no
// OCM API says so, not "the server could not find the requested
// resource"; other errors are untouched.
func TestNotAHubIsSaidPlainly(t *testing.T) {
	gr := schema.GroupResource{Group: "cluster.open-cluster-management.io", Resource: "managedclusters"}
	unserved := apierrors.NewGenericServerResponse(404, "list", gr, "", "", 0, false)
	for name, tc := range map[string]struct {
		err  error
		want string
	}{
		"no such API":           {unserved, "this cluster does not serve the Open Cluster Management APIs"},
		"no kind in the mapper": {&meta.NoKindMatchError{GroupKind: schema.GroupKind{Group: gr.Group, Kind: "ManagedCluster"}}, "this cluster does not serve the Open Cluster Management APIs"},
		"no propagation API": {fmt.Errorf("listing propagations: %w", &meta.NoKindMatchError{GroupKind: schema.GroupKind{Group: "apps.corral.dev", Kind: "Propagation"}}),
			"this hub does not serve corral's propagation API (apps.corral.dev): the propagation addon is not installed on it yet"},
		"one missing cluster": {apierrors.NewNotFound(gr, "c1"), `managedclusters.cluster.open-cluster-management.io "c1" not found`},
		"another API":         {apierrors.NewGenericServerResponse(404, "list", schema.GroupResource{Resource: "pods"}, "", "", 0, false), "the server could not find the requested resource"},
	} {
		err := Run(t.Context(), failing{tc.err})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want it to say %q", name, err, tc.want)
		}
	}
}

// failing is a verb whose Run fails with err.
type failing struct{ err error }

func (failing) Validate() error             { return nil }
func (failing) Complete() error             { return nil }
func (f failing) Run(context.Context) error { return f.err }
