package addonapi_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/addons/conversion"
	"github.com/corral-dev/corral/deploy/charts/corral-hub/crds"
	"github.com/corral-dev/corral/internal/testenv"
	"github.com/corral-dev/corral/registration/webhook"
)

const (
	addonUser    = "system:open-cluster-management:cluster:c1:addon:hello"
	customSigner = "example.com/hello-signer"
)

var adcConfig = addonv1alpha1.ConfigGroupResource{Group: "addon.open-cluster-management.io", Resource: "addondeploymentconfigs"}

var _ = Describe("ManagedClusterAddOn in both versions", func() {
	It("reads a v1alpha1 object as v1beta1 with the same meaning, and writing it back as v1beta1 loses nothing", func(ctx context.Context) {
		ns := newNamespace(ctx)
		alpha := &addonv1alpha1.ManagedClusterAddOn{
			ObjectMeta: metav1.ObjectMeta{Name: "hello", Namespace: ns},
			Spec: addonv1alpha1.ManagedClusterAddOnSpec{
				InstallNamespace: "hello-agent",
				Configs: []addonv1alpha1.AddOnConfig{{ConfigGroupResource: adcConfig,
					ConfigReferent: addonv1alpha1.ConfigReferent{Namespace: ns, Name: "hello-config"}}},
			},
		}
		Expect(admin.Create(ctx, alpha)).To(Succeed())
		alpha.Status = addonv1alpha1.ManagedClusterAddOnStatus{
			Namespace: "hello-agent",
			Registrations: []addonv1alpha1.RegistrationConfig{
				{SignerName: certificatesv1.KubeAPIServerClientSignerName,
					Subject: addonv1alpha1.Subject{User: addonUser, Groups: []string{"g1"}, OrganizationUnits: []string{"ou1"}}},
				{SignerName: customSigner, Subject: addonv1alpha1.Subject{User: "hello", OrganizationUnits: []string{"ou2"}}},
			},
			KubeClientDriver:   "csr",
			AddOnConfiguration: addonv1alpha1.ConfigCoordinates{CRDName: "hellos.example.com", CRName: "default"},
		}
		Expect(admin.Status().Update(ctx, alpha)).To(Succeed())
		stored := &addonv1alpha1.ManagedClusterAddOn{}
		Expect(admin.Get(ctx, client.ObjectKeyFromObject(alpha), stored)).To(Succeed())

		By("reading it as v1beta1")
		beta := &addonv1beta1.ManagedClusterAddOn{}
		Expect(admin.Get(ctx, client.ObjectKeyFromObject(alpha), beta)).To(Succeed())
		Expect(beta.Annotations).To(HaveKeyWithValue(addonv1beta1.InstallNamespaceAnnotation, "hello-agent"))
		Expect(beta.Spec.Configs).To(Equal([]addonv1beta1.AddOnConfig{{
			ConfigGroupResource: addonv1beta1.ConfigGroupResource{Group: adcConfig.Group, Resource: adcConfig.Resource},
			ConfigReferent:      addonv1beta1.ConfigReferent{Namespace: ns, Name: "hello-config"}}}))
		Expect(beta.Status.Registrations).To(Equal([]addonv1beta1.RegistrationConfig{
			{Type: addonv1beta1.KubeClient, KubeClient: &addonv1beta1.KubeClientConfig{
				Subject: addonv1beta1.KubeClientSubject{BaseSubject: addonv1beta1.BaseSubject{User: addonUser, Groups: []string{"g1"}}},
				Driver:  "csr"}},
			{Type: addonv1beta1.CustomSigner, CustomSigner: &addonv1beta1.CustomSignerConfig{SignerName: customSigner,
				Subject: addonv1beta1.Subject{BaseSubject: addonv1beta1.BaseSubject{User: "hello"}, OrganizationUnits: []string{"ou2"}}}},
		}))
		Expect(beta.Status.Namespace).To(Equal("hello-agent"))

		By("writing it back as v1beta1, spec and status")
		beta.Labels = map[string]string{"touched": "v1beta1"}
		Expect(admin.Update(ctx, beta)).To(Succeed())
		Expect(admin.Status().Update(ctx, beta)).To(Succeed())

		By("reading it as v1alpha1: nothing lost")
		back := &addonv1alpha1.ManagedClusterAddOn{}
		Expect(admin.Get(ctx, client.ObjectKeyFromObject(alpha), back)).To(Succeed())
		Expect(back.Labels).To(HaveKeyWithValue("touched", "v1beta1"))
		Expect(back.Annotations).NotTo(HaveKey(addonv1beta1.InstallNamespaceAnnotation))
		Expect(back.Annotations).NotTo(HaveKey(conversion.V1alpha1FieldsAnnotation))
		Expect(back.Spec).To(Equal(stored.Spec))
		Expect(back.Status).To(Equal(stored.Status))
	})

	It("reads a v1beta1 object as v1alpha1 with the same meaning, and back", func(ctx context.Context) {
		ns := newNamespace(ctx)
		beta := &addonv1beta1.ManagedClusterAddOn{
			ObjectMeta: metav1.ObjectMeta{Name: "hello", Namespace: ns,
				Annotations: map[string]string{addonv1beta1.InstallNamespaceAnnotation: "hello-agent"}},
			Spec: addonv1beta1.ManagedClusterAddOnSpec{Configs: []addonv1beta1.AddOnConfig{{
				ConfigGroupResource: addonv1beta1.ConfigGroupResource{Group: adcConfig.Group, Resource: adcConfig.Resource},
				ConfigReferent:      addonv1beta1.ConfigReferent{Namespace: ns, Name: "hello-config"}}}},
		}
		Expect(admin.Create(ctx, beta)).To(Succeed())
		beta.Status = addonv1beta1.ManagedClusterAddOnStatus{
			Namespace: "hello-agent",
			Registrations: []addonv1beta1.RegistrationConfig{
				{Type: addonv1beta1.KubeClient, KubeClient: &addonv1beta1.KubeClientConfig{
					Subject: addonv1beta1.KubeClientSubject{BaseSubject: addonv1beta1.BaseSubject{User: addonUser, Groups: []string{"g1"}}},
					Driver:  "csr"}},
				{Type: addonv1beta1.CustomSigner, CustomSigner: &addonv1beta1.CustomSignerConfig{SignerName: customSigner,
					Subject: addonv1beta1.Subject{BaseSubject: addonv1beta1.BaseSubject{User: "hello"}, OrganizationUnits: []string{"ou2"}}}},
			},
			ConfigReferences: []addonv1beta1.ConfigReference{{
				ConfigGroupResource: addonv1beta1.ConfigGroupResource{Group: adcConfig.Group, Resource: adcConfig.Resource},
				DesiredConfig: &addonv1beta1.ConfigSpecHash{
					ConfigReferent: addonv1beta1.ConfigReferent{Namespace: ns, Name: "hello-config"}, SpecHash: "h1"},
			}},
		}
		Expect(admin.Status().Update(ctx, beta)).To(Succeed())
		written := &addonv1beta1.ManagedClusterAddOn{}
		Expect(admin.Get(ctx, client.ObjectKeyFromObject(beta), written)).To(Succeed())

		By("reading it as v1alpha1")
		alpha := &addonv1alpha1.ManagedClusterAddOn{}
		Expect(admin.Get(ctx, client.ObjectKeyFromObject(beta), alpha)).To(Succeed())
		Expect(alpha.Spec.InstallNamespace).To(Equal("hello-agent")) //nolint:staticcheck // the deprecated v1alpha1 field is what conversion restores
		Expect(alpha.Annotations).NotTo(HaveKey(addonv1beta1.InstallNamespaceAnnotation))
		Expect(alpha.Spec.Configs).To(Equal([]addonv1alpha1.AddOnConfig{{ConfigGroupResource: adcConfig,
			ConfigReferent: addonv1alpha1.ConfigReferent{Namespace: ns, Name: "hello-config"}}}))
		Expect(alpha.Status.KubeClientDriver).To(Equal("csr"))
		Expect(alpha.Status.Registrations).To(Equal([]addonv1alpha1.RegistrationConfig{
			{SignerName: certificatesv1.KubeAPIServerClientSignerName, Subject: addonv1alpha1.Subject{User: addonUser, Groups: []string{"g1"}}},
			{SignerName: customSigner, Subject: addonv1alpha1.Subject{User: "hello", OrganizationUnits: []string{"ou2"}}},
		}))
		Expect(alpha.Status.ConfigReferences).To(HaveLen(1))
		Expect(alpha.Status.ConfigReferences[0].ConfigReferent).To(Equal(addonv1alpha1.ConfigReferent{Namespace: ns, Name: "hello-config"}))

		By("writing it back as v1alpha1 and reading v1beta1: nothing lost")
		alpha.Labels = map[string]string{"touched": "v1alpha1"}
		Expect(admin.Update(ctx, alpha)).To(Succeed())
		again := &addonv1beta1.ManagedClusterAddOn{}
		Expect(admin.Get(ctx, client.ObjectKeyFromObject(beta), again)).To(Succeed())
		Expect(again.Labels).To(HaveKeyWithValue("touched", "v1alpha1"))
		Expect(again.Annotations).To(Equal(written.Annotations))
		Expect(again.Spec).To(Equal(written.Spec))
		Expect(again.Status).To(Equal(written.Status))
	})
})

var _ = Describe("Listing ManagedClusterAddOns as v1beta1", func() {
	It("converts every item, as addon-framework's informers list them", func(ctx context.Context) {
		ns := newNamespace(ctx)
		for _, name := range []string{"one", "two"} {
			alpha := &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
				Spec: addonv1alpha1.ManagedClusterAddOnSpec{InstallNamespace: name + "-agent"}}
			Expect(admin.Create(ctx, alpha)).To(Succeed())
		}
		list := &addonv1beta1.ManagedClusterAddOnList{}
		Expect(admin.List(ctx, list, client.InNamespace(ns))).To(Succeed())
		got := map[string]string{}
		for _, a := range list.Items {
			got[a.Name] = a.Annotations[addonv1beta1.InstallNamespaceAnnotation]
		}
		Expect(got).To(Equal(map[string]string{"one": "one-agent", "two": "two-agent"}))
	})
})

var _ = Describe("ClusterManagementAddOn in both versions", func() {
	It("carries supportedConfigs as defaultConfigs and back, in both directions", func(ctx context.Context) {
		name := testenv.UniqueName("hello")
		alpha := &addonv1alpha1.ClusterManagementAddOn{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: addonv1alpha1.ClusterManagementAddOnSpec{
				AddOnMeta: addonv1alpha1.AddOnMeta{DisplayName: "Hello", Description: "says hello"},
				SupportedConfigs: []addonv1alpha1.ConfigMeta{
					{ConfigGroupResource: adcConfig, DefaultConfig: &addonv1alpha1.ConfigReferent{Namespace: "open-cluster-management", Name: "hello-default"}},
					{ConfigGroupResource: addonv1alpha1.ConfigGroupResource{Group: "example.com", Resource: "hellos"}},
				},
				InstallStrategy: addonv1alpha1.InstallStrategy{Type: addonv1alpha1.AddonInstallStrategyManual},
			},
		}
		Expect(admin.Create(ctx, alpha)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(client.IgnoreNotFound(admin.Delete(ctx, alpha))).To(Succeed()) })
		stored := &addonv1alpha1.ClusterManagementAddOn{}
		Expect(admin.Get(ctx, client.ObjectKey{Name: name}, stored)).To(Succeed())

		beta := &addonv1beta1.ClusterManagementAddOn{}
		Expect(admin.Get(ctx, client.ObjectKey{Name: name}, beta)).To(Succeed())
		Expect(beta.Spec.AddOnMeta.DisplayName).To(Equal("Hello"))
		Expect(beta.Spec.DefaultConfigs).To(Equal([]addonv1beta1.AddOnConfig{
			{ConfigGroupResource: addonv1beta1.ConfigGroupResource{Group: adcConfig.Group, Resource: adcConfig.Resource},
				ConfigReferent: addonv1beta1.ConfigReferent{Namespace: "open-cluster-management", Name: "hello-default"}},
			{ConfigGroupResource: addonv1beta1.ConfigGroupResource{Group: "example.com", Resource: "hellos"},
				ConfigReferent: addonv1beta1.ConfigReferent{Name: addonv1beta1.ReservedNoDefaultConfigName}},
		}))

		By("writing it back as v1beta1")
		// The hub's addon controllers may write the object meanwhile (its
		// status, its managed-by annotation): a conflict is theirs, read
		// it again.
		Eventually(func(g Gomega) {
			g.Expect(admin.Get(ctx, client.ObjectKey{Name: name}, beta)).To(Succeed())
			beta.Spec.AddOnMeta.Description = "says hello, from v1beta1"
			g.Expect(admin.Update(ctx, beta)).To(Succeed())
		}).WithContext(ctx).WithTimeout(time.Minute).Should(Succeed())
		back := &addonv1alpha1.ClusterManagementAddOn{}
		Expect(admin.Get(ctx, client.ObjectKey{Name: name}, back)).To(Succeed())
		want := stored.Spec.DeepCopy()
		want.AddOnMeta.Description = "says hello, from v1beta1"
		Expect(back.Spec).To(Equal(*want))
	})
})

var _ = Describe("The conversion webhook's registration", func() {
	It("points the addon CRDs at the hub again after corral init re-installs them", func(ctx context.Context) {
		By("re-installing the CRDs, which resets their conversion")
		Expect(crds.Install(ctx, hubConfig)).To(Succeed())
		for _, name := range webhook.ConvertedCRDs {
			expectConversionWebhook(ctx, name)
		}
		By("reading a v1alpha1 object as v1beta1")
		ns := newNamespace(ctx)
		alpha := &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Name: "hello", Namespace: ns},
			Spec: addonv1alpha1.ManagedClusterAddOnSpec{InstallNamespace: "after-reinstall"}}
		Expect(admin.Create(ctx, alpha)).To(Succeed())
		Eventually(func(g Gomega) {
			beta := &addonv1beta1.ManagedClusterAddOn{}
			g.Expect(admin.Get(ctx, client.ObjectKeyFromObject(alpha), beta)).To(Succeed())
			g.Expect(beta.Annotations).To(HaveKeyWithValue(addonv1beta1.InstallNamespaceAnnotation, "after-reinstall"))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	})
})
