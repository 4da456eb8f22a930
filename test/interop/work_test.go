package interop_test

import (
	"context"
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	workclient "open-cluster-management.io/api/client/work/clientset/versioned"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/corral-dev/corral/internal/testing/builder"
)

// expectWorkDelivered creates a ManifestWork of one ConfigMap named name
// in cluster's namespace on hub, as a hub admin would, and waits for the
// work agent on managed to apply it and report it on the hub; then
// deletes it and waits for the agent to remove the ConfigMap and let the
// work go. Both sides speak only the api module's contract: the agent's
// finalizer, the work's and the manifest's conditions.
func expectWorkDelivered(ctx context.Context, hub, managed *rest.Config, cluster, name string) {
	GinkgoHelper()
	works := workclient.NewForConfigOrDie(hub).WorkV1().ManifestWorks(cluster)
	configMaps := kubernetes.NewForConfigOrDie(managed).CoreV1().ConfigMaps(metav1.NamespaceDefault)
	raw, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"namespace": metav1.NamespaceDefault, "name": name}, "data": map[string]any{"from": cluster}})
	Expect(err).NotTo(HaveOccurred())
	work := builder.Work(cluster, name).Manifests(workv1.Manifest{RawExtension: runtime.RawExtension{Raw: raw}}).Obj()
	_, err = works.Create(ctx, work, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())

	By("the agent applies the work and reports it Applied and Available on the hub")
	Eventually(func(g Gomega) {
		cm, err := configMaps.Get(ctx, name, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(cm.Data).To(HaveKeyWithValue("from", cluster))
		w, err := works.Get(ctx, name, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(w.Finalizers).To(ContainElement(workv1.ManifestWorkFinalizer))
		for _, t := range []string{workv1.WorkApplied, workv1.WorkAvailable} {
			g.Expect(meta.IsStatusConditionTrue(w.Status.Conditions, t)).To(BeTrue(), "%s is True; conditions: %v", t, w.Status.Conditions)
		}
		g.Expect(w.Status.ResourceStatus.Manifests).To(ConsistOf(And(
			HaveField("ResourceMeta.Kind", "ConfigMap"), HaveField("ResourceMeta.Name", name),
			HaveField("Conditions", ContainElement(And(HaveField("Type", workv1.ManifestApplied), HaveField("Status", metav1.ConditionTrue)))))))
		// The agent has recorded what it applied on the managed cluster.
		// OCM's agent (v1.2.0) lets a work deleted before its own cache
		// has that record go without releasing anything (the race corral's
		// agent had too): the record, written from that cache, shows it
		// has been seen.
		applied, err := workclient.NewForConfigOrDie(managed).WorkV1().AppliedManifestWorks().List(ctx, metav1.ListOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(applied.Items).To(ContainElement(And(HaveField("Spec.ManifestWorkName", name),
			HaveField("Status.AppliedResources", ContainElement(HaveField("ResourceIdentifier.Name", name))))))
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

	By("deleting the work on the hub: the agent removes what it applied, then lets the work go")
	Expect(works.Delete(ctx, name, metav1.DeleteOptions{})).To(Succeed())
	Eventually(func(g Gomega) {
		_, err := configMaps.Get(ctx, name, metav1.GetOptions{})
		g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the ConfigMap is gone: %v", err)
		_, err = works.Get(ctx, name, metav1.GetOptions{})
		g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the work is gone: %v", err)
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}
