package registration_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

var _ = Describe("the bootstrap token corral init installs", func() {
	It("may create a ManagedCluster and a CSR, and may not accept a cluster or read secrets", func(ctx context.Context) {
		joiner := bootstrapClient(ctx)

		name := "c-" + rand.String(6)
		mc := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
		Expect(joiner.Create(ctx, mc)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { _ = admin.Delete(ctx, mc) })
		Expect(joiner.Create(ctx, &certificatesv1.CertificateSigningRequest{
			ObjectMeta: metav1.ObjectMeta{GenerateName: name + "-"},
			Spec: certificatesv1.CertificateSigningRequestSpec{
				Request:    csrPEM(name),
				SignerName: certificatesv1.KubeAPIServerClientSignerName,
				Usages:     []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth},
			},
		})).To(Succeed())

		By("being refused acceptance, deletion and secrets")
		Expect(joiner.Get(ctx, client.ObjectKeyFromObject(mc), mc)).To(Succeed())
		patch := client.MergeFrom(mc.DeepCopy())
		mc.Spec.HubAcceptsClient = true
		Expect(joiner.Patch(ctx, mc, patch)).To(MatchError(forbidden, "forbidden"))
		Expect(joiner.Delete(ctx, mc)).To(MatchError(forbidden, "forbidden"))
		Expect(joiner.List(ctx, &corev1.SecretList{}, client.InNamespace("open-cluster-management"))).To(MatchError(forbidden, "forbidden"))
		Expect(getCluster(ctx, name).Spec.HubAcceptsClient).To(BeFalse())
	})
})
