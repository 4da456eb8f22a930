package conversion

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	certificatesv1 "k8s.io/api/certificates/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
)

const customSigner = "example.com/signer"

// fullV1alpha1MCA sets every v1alpha1 field, those v1beta1 lacks included.
func fullV1alpha1MCA() *addonv1alpha1.ManagedClusterAddOn {
	return &addonv1alpha1.ManagedClusterAddOn{
		TypeMeta: metav1.TypeMeta{APIVersion: addonv1alpha1.GroupVersion.String(), Kind: "ManagedClusterAddOn"},
		ObjectMeta: metav1.ObjectMeta{Name: "hello", Namespace: "c1", Labels: map[string]string{"a": "b"},
			Annotations: map[string]string{"keep": "me"}},
		Spec: addonv1alpha1.ManagedClusterAddOnSpec{
			InstallNamespace: "hello-agent",
			Configs: []addonv1alpha1.AddOnConfig{{
				ConfigGroupResource: addonv1alpha1.ConfigGroupResource{Group: "addon.open-cluster-management.io", Resource: "addondeploymentconfigs"},
				ConfigReferent:      addonv1alpha1.ConfigReferent{Namespace: "c1", Name: "cfg"},
			}},
		},
		Status: addonv1alpha1.ManagedClusterAddOnStatus{
			Conditions:         []metav1.Condition{{Type: "Available", Status: metav1.ConditionTrue, Reason: "LeaseUpdated", Message: "ok", LastTransitionTime: metav1.Unix(1700000000, 0)}},
			RelatedObjects:     []addonv1alpha1.ObjectReference{{Group: "g", Resource: "r", Name: "n"}},
			AddOnMeta:          addonv1alpha1.AddOnMeta{DisplayName: "Hello", Description: "says hello"},
			AddOnConfiguration: addonv1alpha1.ConfigCoordinates{CRDName: "crd", CRName: "cr", LastObservedGeneration: 3},
			SupportedConfigs:   []addonv1alpha1.ConfigGroupResource{{Group: "g", Resource: "r"}},
			ConfigReferences: []addonv1alpha1.ConfigReference{{
				ConfigGroupResource:    addonv1alpha1.ConfigGroupResource{Group: "g", Resource: "r"},
				ConfigReferent:         addonv1alpha1.ConfigReferent{Namespace: "old", Name: "older"},
				LastObservedGeneration: 2,
				DesiredConfig:          &addonv1alpha1.ConfigSpecHash{ConfigReferent: addonv1alpha1.ConfigReferent{Namespace: "c1", Name: "cfg"}, SpecHash: "h1"},
				LastAppliedConfig:      &addonv1alpha1.ConfigSpecHash{ConfigReferent: addonv1alpha1.ConfigReferent{Namespace: "c1", Name: "cfg"}, SpecHash: "h0"},
			}},
			Namespace: "hello-agent",
			Registrations: []addonv1alpha1.RegistrationConfig{
				{SignerName: certificatesv1.KubeAPIServerClientSignerName, Subject: addonv1alpha1.Subject{
					User: "system:open-cluster-management:cluster:c1:addon:hello", Groups: []string{"g1"}, OrganizationUnits: []string{"ou"}}},
				{SignerName: customSigner, Subject: addonv1alpha1.Subject{User: "u", Groups: []string{"g2"}, OrganizationUnits: []string{"ou2"}}},
			},
			HealthCheck:      addonv1alpha1.HealthCheck{Mode: addonv1alpha1.HealthCheckModeLease},
			KubeClientDriver: "csr",
		},
	}
}

func TestManagedClusterAddOnToV1beta1Meaning(t *testing.T) {
	got, err := ManagedClusterAddOnToV1beta1(fullV1alpha1MCA())
	if err != nil {
		t.Fatal(err)
	}
	if got.APIVersion != addonv1beta1.GroupVersion.String() {
		t.Errorf("apiVersion %q", got.APIVersion)
	}
	if ns := got.Annotations[addonv1beta1.InstallNamespaceAnnotation]; ns != "hello-agent" {
		t.Errorf("install namespace annotation %q, want hello-agent", ns)
	}
	wantRegs := []addonv1beta1.RegistrationConfig{
		{Type: addonv1beta1.KubeClient, KubeClient: &addonv1beta1.KubeClientConfig{
			Subject: addonv1beta1.KubeClientSubject{BaseSubject: addonv1beta1.BaseSubject{User: "system:open-cluster-management:cluster:c1:addon:hello", Groups: []string{"g1"}}},
			Driver:  "csr"}},
		{Type: addonv1beta1.CustomSigner, CustomSigner: &addonv1beta1.CustomSignerConfig{SignerName: customSigner,
			Subject: addonv1beta1.Subject{BaseSubject: addonv1beta1.BaseSubject{User: "u", Groups: []string{"g2"}}, OrganizationUnits: []string{"ou2"}}}},
	}
	if d := cmp.Diff(wantRegs, got.Status.Registrations); d != "" {
		t.Errorf("registrations (-want +got):\n%s", d)
	}
	wantConfigs := []addonv1beta1.AddOnConfig{{
		ConfigGroupResource: addonv1beta1.ConfigGroupResource{Group: "addon.open-cluster-management.io", Resource: "addondeploymentconfigs"},
		ConfigReferent:      addonv1beta1.ConfigReferent{Namespace: "c1", Name: "cfg"},
	}}
	if d := cmp.Diff(wantConfigs, got.Spec.Configs); d != "" {
		t.Errorf("configs (-want +got):\n%s", d)
	}
	if got.Annotations["keep"] != "me" || got.Status.Namespace != "hello-agent" {
		t.Errorf("lost an annotation or the status namespace: %v %q", got.Annotations, got.Status.Namespace)
	}
}

func TestManagedClusterAddOnRoundTrips(t *testing.T) {
	cases := map[string]*addonv1alpha1.ManagedClusterAddOn{
		"every field": fullV1alpha1MCA(),
		"a driver with no kubeClient registration": func() *addonv1alpha1.ManagedClusterAddOn {
			a := fullV1alpha1MCA()
			a.Status.Registrations = a.Status.Registrations[1:]
			return a
		}(),
		"empty": {
			TypeMeta:   metav1.TypeMeta{APIVersion: addonv1alpha1.GroupVersion.String(), Kind: "ManagedClusterAddOn"},
			ObjectMeta: metav1.ObjectMeta{Name: "hello", Namespace: "c1"},
		},
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			orig := in.DeepCopy()
			beta, err := ManagedClusterAddOnToV1beta1(in)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(orig, in); d != "" {
				t.Fatalf("conversion changed its input:\n%s", d)
			}
			back, err := ManagedClusterAddOnToV1alpha1(beta)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(orig, back); d != "" {
				t.Errorf("v1alpha1 → v1beta1 → v1alpha1 (-want +got):\n%s", d)
			}
			again, err := ManagedClusterAddOnToV1beta1(back)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(beta, again); d != "" {
				t.Errorf("v1beta1 → v1alpha1 → v1beta1 (-want +got):\n%s", d)
			}
		})
	}
}

//nolint:staticcheck // the test checks the deprecated v1alpha1 fields
func TestManagedClusterAddOnV1beta1EditKeepsItsValues(t *testing.T) {
	beta, err := ManagedClusterAddOnToV1beta1(fullV1alpha1MCA())
	if err != nil {
		t.Fatal(err)
	}
	// A v1beta1 client changes the registration's user and the install
	// namespace: the carried organization unit belongs to the old user.
	beta.Status.Registrations[0].KubeClient.Subject.User = "someone-else"
	beta.Annotations[addonv1beta1.InstallNamespaceAnnotation] = "elsewhere"
	got, err := ManagedClusterAddOnToV1alpha1(beta)
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.InstallNamespace != "elsewhere" {
		t.Errorf("install namespace %q, want the v1beta1 client's elsewhere", got.Spec.InstallNamespace)
	}
	if ou := got.Status.Registrations[0].Subject.OrganizationUnits; len(ou) != 0 {
		t.Errorf("organization units %v restored onto another user", ou)
	}
	if _, ok := got.Annotations[V1alpha1FieldsAnnotation]; ok {
		t.Error("the carrier annotation reached v1alpha1")
	}
}

func fullV1alpha1CMA() *addonv1alpha1.ClusterManagementAddOn {
	return &addonv1alpha1.ClusterManagementAddOn{
		TypeMeta:   metav1.TypeMeta{APIVersion: addonv1alpha1.GroupVersion.String(), Kind: "ClusterManagementAddOn"},
		ObjectMeta: metav1.ObjectMeta{Name: "hello"},
		Spec: addonv1alpha1.ClusterManagementAddOnSpec{
			AddOnMeta:          addonv1alpha1.AddOnMeta{DisplayName: "Hello", Description: "says hello"},
			AddOnConfiguration: addonv1alpha1.ConfigCoordinates{CRDName: "crd", CRName: "cr"},
			SupportedConfigs: []addonv1alpha1.ConfigMeta{
				{ConfigGroupResource: addonv1alpha1.ConfigGroupResource{Group: "addon.open-cluster-management.io", Resource: "addondeploymentconfigs"},
					DefaultConfig: &addonv1alpha1.ConfigReferent{Namespace: "open-cluster-management", Name: "default"}},
				{ConfigGroupResource: addonv1alpha1.ConfigGroupResource{Group: "g", Resource: "nodefault"}},
			},
			InstallStrategy: addonv1alpha1.InstallStrategy{Type: addonv1alpha1.AddonInstallStrategyPlacements,
				Placements: []addonv1alpha1.PlacementStrategy{{
					PlacementRef:    addonv1alpha1.PlacementRef{Namespace: "ns", Name: "p"},
					RolloutStrategy: clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All},
				}}},
		},
		Status: addonv1alpha1.ClusterManagementAddOnStatus{
			DefaultConfigReferences: []addonv1alpha1.DefaultConfigReference{{
				ConfigGroupResource: addonv1alpha1.ConfigGroupResource{Group: "g", Resource: "r"},
				DesiredConfig:       &addonv1alpha1.ConfigSpecHash{ConfigReferent: addonv1alpha1.ConfigReferent{Name: "x"}, SpecHash: "h"},
			}},
		},
	}
}

//nolint:staticcheck // the test checks the deprecated v1alpha1 fields round-trip
func TestClusterManagementAddOnConversion(t *testing.T) {
	in := fullV1alpha1CMA()
	beta, err := ClusterManagementAddOnToV1beta1(in)
	if err != nil {
		t.Fatal(err)
	}
	wantDefaults := []addonv1beta1.AddOnConfig{
		{ConfigGroupResource: addonv1beta1.ConfigGroupResource{Group: "addon.open-cluster-management.io", Resource: "addondeploymentconfigs"},
			ConfigReferent: addonv1beta1.ConfigReferent{Namespace: "open-cluster-management", Name: "default"}},
		{ConfigGroupResource: addonv1beta1.ConfigGroupResource{Group: "g", Resource: "nodefault"},
			ConfigReferent: addonv1beta1.ConfigReferent{Name: addonv1beta1.ReservedNoDefaultConfigName}},
	}
	if d := cmp.Diff(wantDefaults, beta.Spec.DefaultConfigs); d != "" {
		t.Errorf("defaultConfigs (-want +got):\n%s", d)
	}
	back, err := ClusterManagementAddOnToV1alpha1(beta)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(in, back); d != "" {
		t.Errorf("v1alpha1 → v1beta1 → v1alpha1 (-want +got):\n%s", d)
	}
}

func TestHandler(t *testing.T) {
	alpha, err := json.Marshal(fullV1alpha1MCA())
	if err != nil {
		t.Fatal(err)
	}
	cma, err := json.Marshal(fullV1alpha1CMA())
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		objects     [][]byte
		desired     string
		wantStatus  string
		wantVersion string
	}{
		"addons to v1beta1": {objects: [][]byte{alpha, cma}, desired: addonv1beta1.GroupVersion.String(),
			wantStatus: metav1.StatusSuccess, wantVersion: addonv1beta1.GroupVersion.String()},
		"already at the desired version": {objects: [][]byte{alpha}, desired: addonv1alpha1.GroupVersion.String(),
			wantStatus: metav1.StatusSuccess, wantVersion: addonv1alpha1.GroupVersion.String()},
		"another kind fails the review": {objects: [][]byte{alpha, []byte(`{"apiVersion":"addon.open-cluster-management.io/v1alpha1","kind":"AddOnTemplate"}`)},
			desired: addonv1beta1.GroupVersion.String(), wantStatus: metav1.StatusFailure},
	}
	server := httptest.NewServer(Handler())
	defer server.Close()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			req := &apiextensionsv1.ConversionRequest{UID: "u1", DesiredAPIVersion: tc.desired}
			for _, o := range tc.objects {
				req.Objects = append(req.Objects, runtime.RawExtension{Raw: o})
			}
			body, _ := json.Marshal(apiextensionsv1.ConversionReview{
				TypeMeta: metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "ConversionReview"}, Request: req})
			resp, err := http.Post(server.URL, "application/json", bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var review apiextensionsv1.ConversionReview
			if err := json.NewDecoder(resp.Body).Decode(&review); err != nil {
				t.Fatal(err)
			}
			if review.Response == nil || review.Response.UID != "u1" || review.Response.Result.Status != tc.wantStatus {
				t.Fatalf("response %+v, want UID u1 and status %s", review.Response, tc.wantStatus)
			}
			if tc.wantStatus != metav1.StatusSuccess {
				if len(review.Response.ConvertedObjects) != 0 || review.Response.Result.Message == "" {
					t.Errorf("a failed review returned objects or no message: %+v", review.Response)
				}
				return
			}
			if len(review.Response.ConvertedObjects) != len(tc.objects) {
				t.Fatalf("%d objects back, want %d", len(review.Response.ConvertedObjects), len(tc.objects))
			}
			for _, o := range review.Response.ConvertedObjects {
				var tm metav1.TypeMeta
				if err := json.Unmarshal(o.Raw, &tm); err != nil || tm.APIVersion != tc.wantVersion {
					t.Errorf("converted object is %q (%v), want %s", tm.APIVersion, err, tc.wantVersion)
				}
			}
		})
	}
}
