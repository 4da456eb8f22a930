// Package envtest_test checks the envtest harness every API-level suite
// builds on: binaries from bin/ and the OCM CRDs served.
package envtest_test

import (
	"context"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/testenv"
)

func TestEnvtest(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "envtest harness")
}

var c client.Client

var _ = BeforeSuite(func() {
	env, cfg, err := testenv.Start()
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(env.Stop)
	scheme := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(clusterv1.Install(scheme)).To(Succeed())
	Expect(workv1.Install(scheme)).To(Succeed())
	Expect(addonv1alpha1.Install(scheme)).To(Succeed())
	c, err = client.New(cfg, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
})

var _ = Describe("the envtest harness", func() {
	It("serves the OCM API: a ManagedCluster is validated and stored", func(ctx context.Context) {
		mc := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "c1"}, Spec: clusterv1.ManagedClusterSpec{HubAcceptsClient: true}}
		Expect(c.Create(ctx, mc)).To(Succeed())
		got := &clusterv1.ManagedCluster{}
		Expect(c.Get(ctx, client.ObjectKey{Name: "c1"}, got)).To(Succeed())
		Expect(got.Spec.HubAcceptsClient).To(BeTrue())

		By("rejecting what the CRD schema forbids")
		bad := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "c2"}, Spec: clusterv1.ManagedClusterSpec{
			Taints: []clusterv1.Taint{{Key: "k", Effect: "NotAnEffect"}},
		}}
		Expect(c.Create(ctx, bad)).To(MatchError(ContainSubstring("effect")))
	})

	It("serves ManifestWorks and ManagedClusterAddOns in a cluster namespace", func(ctx context.Context) {
		Expect(c.List(ctx, &workv1.ManifestWorkList{}, client.InNamespace("default"))).To(Succeed())
		Expect(c.List(ctx, &addonv1alpha1.ManagedClusterAddOnList{}, client.InNamespace("default"))).To(Succeed())
	})
})
