package interop_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/propagation/api/v1alpha1"
	"github.com/corral-dev/corral/propagation/hub/distribute"
	"github.com/corral-dev/corral/work/adoption"
)

// expectPropagatedThroughOCMAgent propagates a ConfigMap of the hub to
// cluster, decided by hand (no scheduler runs), and waits until OCM's
// work agent on managed applied it and the Propagation's status says that
// agent ignores the adoption policy (AdoptionFollowed False,
// AdoptionUnsupported): what a cluster running OCM's agent gets instead.
func expectPropagatedThroughOCMAgent(ctx context.Context, hub, managed *rest.Config, cluster string) {
	GinkgoHelper()
	scheme := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(v1alpha1.Install(scheme)).To(Succeed())
	Expect(clusterv1beta1.Install(scheme)).To(Succeed())
	c, err := client.New(hub, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())

	const ns, name = "interop-propagation", "web"
	Expect(c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	Expect(c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string]string{"from": "hub"}})).To(Succeed())
	Expect(c.Create(ctx, &clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "one"}})).To(Succeed())
	pd := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "one-decision-1",
		Labels: map[string]string{clusterv1beta1.PlacementLabel: "one", clusterv1beta1.DecisionGroupIndexLabel: "0"}}}
	Expect(c.Create(ctx, pd)).To(Succeed())
	pd.Status.Decisions = []clusterv1beta1.ClusterDecision{{ClusterName: cluster, Reason: "interop"}}
	Expect(c.Status().Update(ctx, pd)).To(Succeed())
	p := &v1alpha1.Propagation{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: v1alpha1.PropagationSpec{
		ResourceSelectors: []v1alpha1.ResourceSelector{{Version: "v1", Kind: "ConfigMap", Name: name}},
		PlacementRefs:     []v1alpha1.LocalPlacementReference{{Name: "one"}},
	}}
	Expect(c.Create(ctx, p)).To(Succeed())

	By("OCM's work agent applies the propagation's work")
	Eventually(func(g Gomega) {
		cm, err := kubernetes.NewForConfigOrDie(managed).CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(cm.Data).To(HaveKeyWithValue("from", "hub"))
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

	By("the cluster's status says its agent does not follow the adoption policy")
	Eventually(func(g Gomega) {
		g.Expect(c.Get(ctx, client.ObjectKeyFromObject(p), p)).To(Succeed())
		g.Expect(p.Status.Clusters).To(HaveLen(1))
		cond := meta.FindStatusCondition(p.Status.Clusters[0].Conditions, adoption.WorkConditionType)
		g.Expect(cond).NotTo(BeNil(), "conditions: %v", p.Status.Clusters[0].Conditions)
		g.Expect(cond.Status).To(Equal(metav1.ConditionFalse))
		g.Expect(cond.Reason).To(Equal(distribute.ReasonAdoptionUnsupported))
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

	By("deleting the propagation takes the ConfigMap away")
	Expect(c.Delete(ctx, p)).To(Succeed())
	Eventually(func() bool {
		_, err := kubernetes.NewForConfigOrDie(managed).CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
		return err != nil
	}).WithContext(ctx).WithTimeout(timeout).Should(BeTrue())
}
