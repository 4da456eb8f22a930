package manager

import (
	"context"
	"strings"
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"open-cluster-management.io/addon-framework/pkg/agent"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/internal/testing/builder"
)

func TestApprovalRefusal(t *testing.T) {
	clientUsages := []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment, certificatesv1.UsageClientAuth}
	good := func() *certificatesv1.CertificateSigningRequest {
		return builder.CSR("addon-c1-hello-abcde").
			Subject(agent.DefaultUser("c1", "hello", "hello"), agent.DefaultGroups("c1", "hello")...).Usages(clientUsages...).
			Requester("system:open-cluster-management:c1:agent1",
				"system:open-cluster-management:c1", "system:open-cluster-management:managed-clusters", "system:authenticated").Obj()
	}
	cases := map[string]struct {
		notAccepted bool
		deleting    bool
		mutate      func(csr *certificatesv1.CertificateSigningRequest)
		// wantWhy is in the refusal; "" means approved.
		wantWhy string
	}{
		"the cluster's own request for its enabled addon": {},
		"with system:authenticated among the organisations": {mutate: func(csr *certificatesv1.CertificateSigningRequest) {
			csr.Spec.Request = builder.CertificateRequest(agent.DefaultUser("c1", "hello", "hello"), append(agent.DefaultGroups("c1", "hello"), "system:authenticated")...)
		}},
		"a cluster not accepted":  {notAccepted: true, wantWhy: "not accepted"},
		"an addon being disabled": {deleting: true, wantWhy: "being disabled"},
		"another signer": {mutate: func(csr *certificatesv1.CertificateSigningRequest) {
			csr.Spec.SignerName = "example.com/signer"
		}, wantWhy: "signer"},
		"server auth": {mutate: func(csr *certificatesv1.CertificateSigningRequest) {
			csr.Spec.Usages = append(csr.Spec.Usages, certificatesv1.UsageServerAuth)
		}, wantWhy: "server auth"},
		"no client auth":            {mutate: func(csr *certificatesv1.CertificateSigningRequest) { csr.Spec.Usages = clientUsages[:2] }, wantWhy: "client authentication"},
		"not a certificate request": {mutate: func(csr *certificatesv1.CertificateSigningRequest) { csr.Spec.Request = []byte("junk") }, wantWhy: "not a PEM"},
		"another cluster's subject": {mutate: func(csr *certificatesv1.CertificateSigningRequest) {
			csr.Spec.Request = builder.CertificateRequest(agent.DefaultUser("c2", "hello", "hello"), agent.DefaultGroups("c2", "hello")...)
		}, wantWhy: "common name"},
		"another addon's subject": {mutate: func(csr *certificatesv1.CertificateSigningRequest) {
			csr.Spec.Request = builder.CertificateRequest(agent.DefaultUser("c1", "other", "other"), agent.DefaultGroups("c1", "other")...)
		}, wantWhy: "common name"},
		"an extra organisation": {mutate: func(csr *certificatesv1.CertificateSigningRequest) {
			csr.Spec.Request = builder.CertificateRequest(agent.DefaultUser("c1", "hello", "hello"), append(agent.DefaultGroups("c1", "hello"), "system:masters")...)
		}, wantWhy: "organisations"},
		"requested by another cluster": {mutate: func(csr *certificatesv1.CertificateSigningRequest) {
			csr.Spec.Username, csr.Spec.Groups = "system:open-cluster-management:c2:agent1", []string{"system:open-cluster-management:c2"}
		}, wantWhy: "not by cluster c1's identity"},
		"requested by a cluster whose name extends this one's": {mutate: func(csr *certificatesv1.CertificateSigningRequest) {
			csr.Spec.Username, csr.Spec.Groups = "system:open-cluster-management:c10:agent1", []string{"system:open-cluster-management:c10"}
		}, wantWhy: "not by cluster c1's identity"},
		"requested by the cluster's user name without its group": {mutate: func(csr *certificatesv1.CertificateSigningRequest) {
			csr.Spec.Groups = []string{"system:authenticated"}
		}, wantWhy: "not by cluster c1's identity"},
		"requested by the addon's own identity": {mutate: func(csr *certificatesv1.CertificateSigningRequest) {
			csr.Spec.Username, csr.Spec.Groups = agent.DefaultUser("c1", "hello", "hello"), agent.DefaultGroups("c1", "hello")
		}, wantWhy: "not by cluster c1's identity"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cluster := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "c1"}, Spec: clusterv1.ManagedClusterSpec{HubAcceptsClient: !tc.notAccepted}}
			addon := &addonv1beta1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Name: "hello", Namespace: "c1"}}
			if tc.deleting {
				addon.DeletionTimestamp = &metav1.Time{}
			}
			csr := good()
			if tc.mutate != nil {
				tc.mutate(csr)
			}
			why := approvalRefusal(cluster, addon, csr)
			if tc.wantWhy == "" && why != "" {
				t.Fatalf("refused: %s", why)
			}
			if tc.wantWhy != "" && !strings.Contains(why, tc.wantWhy) {
				t.Fatalf("refusal = %q, want it to say %q", why, tc.wantWhy)
			}
			if got := approveCSR(context.Background(), cluster, addon, csr); got != (tc.wantWhy == "") {
				t.Errorf("approveCSR = %t", got)
			}
		})
	}
}
