package localcluster_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

var _ = Describe("managed profile", func() {
	It("registers Ready fake nodes with the default capacity", func(ctx context.Context) {
		nodes, err := managedClient.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(nodes.Items).To(HaveLen(2))
		for _, n := range nodes.Items {
			Expect(n.Status.Conditions).To(ContainElement(And(
				HaveField("Type", corev1.NodeReady), HaveField("Status", corev1.ConditionTrue))), n.Name)
			Expect(n.Status.Allocatable.Cpu().Cmp(resource.MustParse("8"))).To(BeZero(), n.Name)
			Expect(n.Status.Allocatable.Pods().Value()).To(BeEquivalentTo(110), n.Name)
		}
	})

	It("runs a Deployment until it is Available with Running pods", func(ctx context.Context) {
		ns := newNamespace(ctx, managedClient)
		labels := map[string]string{"app": "web"}
		_, err := managedClient.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "web"},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr.To[int32](3),
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
				},
			},
		}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())

		Eventually(func(g Gomega) {
			d, err := managedClient.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(d.Status.Conditions).To(ContainElement(And(
				HaveField("Type", appsv1.DeploymentAvailable), HaveField("Status", corev1.ConditionTrue))))
			g.Expect(d.Status.AvailableReplicas).To(BeEquivalentTo(3))
		}).WithContext(ctx).Should(Succeed())

		pods, err := managedClient.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		Expect(err).NotTo(HaveOccurred())
		Expect(pods.Items).To(HaveLen(3))
		for _, p := range pods.Items {
			Expect(p.Status.Phase).To(Equal(corev1.PodRunning), p.Name)
			Expect(p.Spec.NodeName).NotTo(BeEmpty(), p.Name)
		}
	})
})
