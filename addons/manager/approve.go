package manager

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"slices"
	"strings"

	certificatesv1 "k8s.io/api/certificates/v1"
	"open-cluster-management.io/addon-framework/pkg/agent"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	ctrl "sigs.k8s.io/controller-runtime"
)

// clusterIdentityPrefix starts the user name, and is the group, of a
// cluster's registration agent on the hub
// (system:open-cluster-management:<cluster>:<agent>). OCM's registration
// agent, and corral's, make the addon CSRs with that identity.
const clusterIdentityPrefix = "system:open-cluster-management:"

// authenticatedGroup may be among a request's organisations: older agents
// put it there, as the framework's default approver allows.
const authenticatedGroup = "system:authenticated"

// approveCSR is the CSR approve check of a built-in addon: it approves a
// CSR only when approvalRefusal finds nothing wrong, and says why not at
// V(1).
func approveCSR(ctx context.Context, cluster *clusterv1.ManagedCluster, addon *addonv1beta1.ManagedClusterAddOn, csr *certificatesv1.CertificateSigningRequest) bool {
	why := approvalRefusal(cluster, addon, csr)
	log := ctrl.LoggerFrom(ctx).WithValues("csr", csr.Name, "cluster", cluster.Name, "addon", addon.Name)
	if why != "" {
		log.V(1).Info("Not approving an addon's client certificate request", "why", why)
		return false
	}
	log.V(1).Info("Approving an addon's client certificate request")
	return true
}

// approvalRefusal says what keeps csr from being approved for addon on
// cluster; "" approves it. The request must be for an addon that is
// enabled (its ManagedClusterAddOn exists and is not being deleted) on an
// accepted cluster, carry exactly the framework's default subject for that
// cluster and addon, ask for client authentication only, and come from that
// cluster's own identity.
func approvalRefusal(cluster *clusterv1.ManagedCluster, addon *addonv1beta1.ManagedClusterAddOn, csr *certificatesv1.CertificateSigningRequest) string {
	switch {
	case !cluster.Spec.HubAcceptsClient:
		return fmt.Sprintf("cluster %s is not accepted", cluster.Name)
	case addon.DeletionTimestamp != nil:
		return fmt.Sprintf("addon %s is being disabled on cluster %s", addon.Name, cluster.Name)
	case addon.Namespace != cluster.Name:
		return fmt.Sprintf("addon %s is in namespace %s, not cluster %s's", addon.Name, addon.Namespace, cluster.Name)
	case csr.Spec.SignerName != certificatesv1.KubeAPIServerClientSignerName:
		return fmt.Sprintf("signer %s is not %s", csr.Spec.SignerName, certificatesv1.KubeAPIServerClientSignerName)
	}
	if why := usagesRefusal(csr.Spec.Usages); why != "" {
		return why
	}
	if why := subjectRefusal(cluster.Name, addon.Name, csr.Spec.Request); why != "" {
		return why
	}
	return requesterRefusal(cluster.Name, csr)
}

// usagesRefusal allows client authentication and the key usages a client
// certificate needs, and nothing else.
func usagesRefusal(usages []certificatesv1.KeyUsage) string {
	allowed := []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth, certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment}
	for _, u := range usages {
		if !slices.Contains(allowed, u) {
			return fmt.Sprintf("usage %q is not allowed: an addon's certificate is for client authentication only", u)
		}
	}
	if !slices.Contains(usages, certificatesv1.UsageClientAuth) {
		return "the request does not ask for client authentication"
	}
	return ""
}

// subjectRefusal checks the request's subject is the framework's default
// for that cluster and addon: CN DefaultUser, organisations DefaultGroups
// (and, tolerated, system:authenticated).
func subjectRefusal(cluster, addon string, request []byte) string {
	block, _ := pem.Decode(request)
	if block == nil || block.Type != "CERTIFICATE REQUEST" {
		return "the request is not a PEM certificate request"
	}
	req, err := x509.ParseCertificateRequest(block.Bytes)
	if err != nil {
		return fmt.Sprintf("the request does not parse: %v", err)
	}
	if want := agent.DefaultUser(cluster, addon, addon); req.Subject.CommonName != want {
		return fmt.Sprintf("common name %q is not %q", req.Subject.CommonName, want)
	}
	orgs := slices.DeleteFunc(slices.Clone(req.Subject.Organization), func(o string) bool { return o == authenticatedGroup })
	want := agent.DefaultGroups(cluster, addon)
	slices.Sort(orgs)
	slices.Sort(want)
	if !slices.Equal(orgs, want) {
		return fmt.Sprintf("organisations %v are not %v", req.Subject.Organization, agent.DefaultGroups(cluster, addon))
	}
	return ""
}

// requesterRefusal checks the CSR was made by cluster's registration
// identity: user system:open-cluster-management:<cluster>:<agent>, in the
// group system:open-cluster-management:<cluster>.
func requesterRefusal(cluster string, csr *certificatesv1.CertificateSigningRequest) string {
	group := clusterIdentityPrefix + cluster
	agentID, ok := strings.CutPrefix(csr.Spec.Username, group+":")
	if !ok || agentID == "" || strings.Contains(agentID, ":") || !slices.Contains(csr.Spec.Groups, group) {
		return fmt.Sprintf("requested by %s, not by cluster %s's identity", csr.Spec.Username, cluster)
	}
	return ""
}
