package interop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonclient "open-cluster-management.io/api/client/addon/clientset/versioned"
	workclient "open-cluster-management.io/api/client/work/clientset/versioned"

	addoncli "github.com/corral-dev/corral/addons/cli"
	"github.com/corral-dev/corral/dev/localcluster"
)

// The addon framework's helloworld example (v1.2.0), as it is built: its
// name, its agent's Deployment and hub credentials Secret.
const (
	helloworld           = "helloworld"
	helloworldDeployment = "helloworld-agent"
	helloworldSecret     = "helloworld-hub-kubeconfig"
	// helloworldMirrored is the image its hub half renders
	// (quay.io/open-cluster-management/addon-examples:latest) once an
	// AddOnDeploymentConfig mirrors quay.io/open-cluster-management to
	// mirror.example.com/ocm.
	helloworldMirrored = "mirror.example.com/ocm/addon-examples:latest"
)

// expectHelloworldAddon takes the addon framework's helloworld example
// through its life on cluster, joined to hub with the other side's agents
// on managed (registration with its addon half, and work):
//   - its ClusterManagementAddOn is created as the example ships it (but
//     with the Manual install strategy) and its hub half started against
//     the hub;
//   - `corral addon enable` enables it with an AddOnDeploymentConfig that
//     mirrors its image: the framework renders the Deployment with the
//     mirror (so it read the configReferences the hub's addon lifecycle
//     wrote), the work agent applies it, the registration agent declares
//     its driver (csr) and gets it its own hub credentials, and the
//     framework reports it Available from the
//     Deployment's status, fed back through the ManifestWork, as `corral
//     addon status` then says;
//   - the example's agent, run with those credentials, copies a ConfigMap
//     from the cluster's namespace on the hub to the managed cluster, and
//     may read nothing outside that namespace;
//   - `corral addon disable` takes the Deployment and those permissions away.
func expectHelloworldAddon(ctx context.Context, hub, managed *localcluster.Cluster, cluster string) {
	GinkgoHelper()
	addons := addonclient.NewForConfigOrDie(hub.Config).AddonV1alpha1()
	hubKube := kubernetes.NewForConfigOrDie(hub.Config)
	managedKube := kubernetes.NewForConfigOrDie(managed.Config)

	By("creating the example's ClusterManagementAddOn and an AddOnDeploymentConfig mirroring its image")
	configs := addonv1alpha1.ConfigGroupResource{Group: addonv1alpha1.GroupName, Resource: "addondeploymentconfigs"}
	_, err := addons.ClusterManagementAddOns().Create(ctx, &addonv1alpha1.ClusterManagementAddOn{
		ObjectMeta: metav1.ObjectMeta{Name: helloworld},
		Spec: addonv1alpha1.ClusterManagementAddOnSpec{
			AddOnMeta:        addonv1alpha1.AddOnMeta{DisplayName: helloworld, Description: "helloworld is an example addon created by go template"},
			SupportedConfigs: []addonv1alpha1.ConfigMeta{{ConfigGroupResource: configs}},
			InstallStrategy:  addonv1alpha1.InstallStrategy{Type: addonv1alpha1.AddonInstallStrategyManual},
		},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	const mirrorConfig = "helloworld-mirror"
	_, err = addons.AddOnDeploymentConfigs(cluster).Create(ctx, &addonv1alpha1.AddOnDeploymentConfig{
		ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: mirrorConfig},
		Spec: addonv1alpha1.AddOnDeploymentConfigSpec{Registries: []addonv1alpha1.ImageMirror{
			{Source: "quay.io/open-cluster-management", Mirror: "mirror.example.com/ocm"},
		}},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())

	By("starting the example's hub half against the corral hub")
	controllerArgs := []string{"controller", "--kubeconfig=" + hub.Kubeconfig, "-v=4"}
	stopController := startHelloworld("helloworld-controller", controllerArgs...)

	By("corral addon enable helloworld, with that config")
	enable := addoncli.NewEnableOptions(GinkgoWriter)
	enable.Hub.Kubeconfig = hub.Kubeconfig
	enable.Addons, enable.Clusters = []string{helloworld}, []string{cluster}
	enable.ConfigFlags = []string{strings.Join([]string{configs.Group, configs.Resource, cluster, mirrorConfig}, "/")}
	Expect(runVerb(ctx, enable)).To(Succeed())

	By("the framework's ManifestWork, applied by OCM's work agent: the agent's Deployment, with the mirrored image")
	Eventually(func(g Gomega) {
		d, err := managedKube.AppsV1().Deployments(ocmAddonNamespace).Get(ctx, helloworldDeployment, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(d.Spec.Template.Spec.Containers).To(ConsistOf(HaveField("Image", helloworldMirrored)))
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

	By("OCM's registration agent gets the addon its own hub credentials, approved by the example's hub half")
	var secret *corev1.Secret
	Eventually(func(g Gomega) {
		secret, err = managedKube.CoreV1().Secrets(ocmAddonNamespace).Get(ctx, helloworldSecret, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(secret.Data).To(HaveKey("kubeconfig"))
		g.Expect(secret.Data).To(HaveKey(corev1.TLSCertKey))
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	cert := parseCert(secret.Data[corev1.TLSCertKey])
	addonGroup := "system:open-cluster-management:cluster:" + cluster + ":addon:" + helloworld
	Expect(cert.Subject.CommonName).To(HavePrefix(addonGroup+":agent:"), "the addon's own user")
	Expect(cert.Subject.Organization).To(ContainElement(addonGroup))

	By("the agent side declared that it gets the addon's credentials with a CSR")
	Eventually(func(g Gomega) {
		mca, err := addons.ManagedClusterAddOns(cluster).Get(ctx, helloworld, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(mca.Status.KubeClientDriver).To(Equal("csr"))
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

	By("the addon is Available: its Deployment runs on the cluster's node, and its status comes back through the work")
	Eventually(func(g Gomega) {
		mca, err := addons.ManagedClusterAddOns(cluster).Get(ctx, helloworld, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		for _, t := range []string{
			addonv1alpha1.ManagedClusterAddOnManifestApplied,
			addonv1alpha1.ManagedClusterAddOnRegistrationApplied,
			addonv1alpha1.ManagedClusterAddOnConditionAvailable,
		} {
			g.Expect(meta.IsStatusConditionTrue(mca.Status.Conditions, t)).To(BeTrue(), "%s is True; conditions: %v", t, mca.Status.Conditions)
		}
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

	By("corral addon status says so: Available, credentials ready")
	Eventually(func(g Gomega) {
		var out bytes.Buffer
		status := addoncli.NewStatusOptions(&out)
		status.Hub.Kubeconfig = hub.Kubeconfig
		status.Addon, status.Output = helloworld, "json"
		g.Expect(runVerb(ctx, status)).To(Succeed())
		var state addoncli.AddonState
		g.Expect(json.Unmarshal(out.Bytes(), &state)).To(Succeed(), "%s", out.String())
		g.Expect(state.Known).To(BeTrue())
		g.Expect(state.Clusters).To(ConsistOf(And(HaveField("Cluster", cluster),
			HaveField("Available", string(metav1.ConditionTrue)), HaveField("Credentials", "ready"))), "%s", out.String())
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

	By("the example's agent, with those credentials, copies a ConfigMap from the cluster's namespace on the hub")
	// Both halves always listen on :8443: one at a time.
	stopController()
	hubKubeconfig := writeSecretFiles(secret)
	stopAgent := startHelloworld("helloworld-agent", "agent",
		"--kubeconfig="+managed.Kubeconfig,
		"--hub-kubeconfig="+hubKubeconfig,
		"--cluster-name="+cluster,
		"--addon-namespace="+ocmAddonNamespace,
		"-v=4",
	)
	_, err = hubKube.CoreV1().ConfigMaps(cluster).Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: "hello-from-hub"},
		Data:       map[string]string{"greeting": "hello " + cluster},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	Eventually(func(g Gomega) {
		cm, err := managedKube.CoreV1().ConfigMaps(ocmAddonNamespace).Get(ctx, "hello-from-hub", metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(cm.Data).To(HaveKeyWithValue("greeting", "hello "+cluster))
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	stopAgent()

	asAddon := kubernetes.NewForConfigOrDie(storedKubeconfig(ctx, hubKubeconfig))
	_, err = asAddon.CoreV1().ConfigMaps(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{})
	Expect(apierrors.IsForbidden(err)).To(BeTrue(), "the addon reads no ConfigMaps outside its cluster's namespace, got %v", err)

	By("corral addon disable helloworld: the ManifestWork, the agent's Deployment and its hub permissions go")
	stopController = startHelloworld("helloworld-controller-again", controllerArgs...)
	disable := addoncli.NewDisableOptions(GinkgoWriter)
	disable.Hub.Kubeconfig = hub.Kubeconfig
	disable.Addons, disable.Clusters = []string{helloworld}, []string{cluster}
	disable.Confirm.Yes = true // off a terminal, removing its agent is refused without --yes
	Expect(runVerb(ctx, disable)).To(Succeed())
	Eventually(func(g Gomega) {
		works, err := workclient.NewForConfigOrDie(hub.Config).WorkV1().ManifestWorks(cluster).List(ctx, metav1.ListOptions{
			LabelSelector: addonv1alpha1.AddonLabelKey + "=" + helloworld,
		})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(works.Items).To(BeEmpty(), "the addon's ManifestWorks are gone")
		_, err = managedKube.AppsV1().Deployments(ocmAddonNamespace).Get(ctx, helloworldDeployment, metav1.GetOptions{})
		g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the agent's Deployment is gone: %v", err)
		_, err = asAddon.CoreV1().ConfigMaps(cluster).List(ctx, metav1.ListOptions{})
		g.Expect(apierrors.IsForbidden(err)).To(BeTrue(), "the addon may no longer read its cluster's namespace: %v", err)
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	stopController()
}

// startHelloworld starts the example with args, as startUpstream does,
// once its port is free: both halves always serve their health endpoint on
// :8443, on every address.
func startHelloworld(name string, args ...string) (stop func()) {
	GinkgoHelper()
	expectPortsFree("the helloworld example", ":8443")
	return startUpstream(ocmHelloworld, name, args...)
}

// writeSecretFiles writes each key of an addon's hub kubeconfig Secret
// to a file in a new directory, as a pod mounting it would see them (its
// kubeconfig names the certificate files relative to itself); it returns
// the kubeconfig's path.
func writeSecretFiles(secret *corev1.Secret) string {
	GinkgoHelper()
	dir := GinkgoT().TempDir()
	for key, value := range secret.Data {
		Expect(os.WriteFile(filepath.Join(dir, key), value, 0o600)).To(Succeed())
	}
	return filepath.Join(dir, "kubeconfig")
}
