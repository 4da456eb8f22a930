package install_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/deploy/charts"
	"github.com/corral-dev/corral/internal/testenv"
	regagent "github.com/corral-dev/corral/registration/agent"
)

// hubRefusals: with corral-hub's token, the hub's API server refuses
// what the hub never does: writing Secrets, others' Leases, granting what
// it does not hold, signing. It reads every Secret (a propagation may
// select one), and writes none but the webhook's.
func hubRefusals(ctx context.Context) {
	hub := testenv.MustClient(hubSA)
	secret := createSecret(ctx, hubAdmin, "kube-system")

	By("Secrets: read everywhere (the propagation selector), written nowhere but the webhook's")
	Expect(hub.List(ctx, &corev1.SecretList{})).To(Succeed())
	Expect(hub.Get(ctx, client.ObjectKeyFromObject(secret), &corev1.Secret{})).To(Succeed())
	expectForbidden(hub.Update(ctx, secret.DeepCopy()))
	expectForbidden(hub.Delete(ctx, secret.DeepCopy()))
	expectForbidden(hub.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "lp-secret"}}))

	By("Leases: no update but its own two")
	for _, ns := range []string{"kube-system", charts.HubNamespace} {
		lease := createLease(ctx, hubAdmin, ns)
		expectForbidden(hub.Update(ctx, lease))
	}

	By("RBAC: no role granting what it does not hold, no binding to cluster-admin")
	expectForbidden(hub.Create(ctx, &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "lp-escalation"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"update"}}},
	}))
	expectForbidden(hub.Create(ctx, bindingTo("cluster-admin", charts.HubNamespace, charts.HubDeployment)))

	By("CSRs: approved for the kube-apiserver-client signer only, never signed")
	for _, rule := range []rbacv1.PolicyRule{
		{APIGroups: []string{"certificates.k8s.io"}, Resources: []string{"signers"}, ResourceNames: []string{"kubernetes.io/kube-apiserver-client"}, Verbs: []string{"sign"}},
		{APIGroups: []string{"certificates.k8s.io"}, Resources: []string{"signers"}, ResourceNames: []string{"kubernetes.io/kubelet-serving"}, Verbs: []string{"approve"}},
		{APIGroups: []string{"certificates.k8s.io"}, Resources: []string{"certificatesigningrequests/status"}, Verbs: []string{"update"}},
	} {
		Expect(testenv.Granted(ctx, hubAdmin, hubUser, "", rule)).To(BeFalse(), "%v", rule)
	}
}

// agentRefusals: with corral-agent's token (work execution narrowed to
// the suite's ConfigMap role), the managed API server refuses what the
// agent never does; it still reads its own bootstrap kubeconfig.
func agentRefusals(ctx context.Context) {
	agent := testenv.MustClient(agentSA)
	Expect(agent.Get(ctx, client.ObjectKey{Namespace: charts.AgentNamespace, Name: regagent.DefaultBootstrapSecretName}, &corev1.Secret{})).To(Succeed())

	By("Secrets: none in kube-system, none cluster-wide, none in its namespace but its own two")
	for _, ns := range []string{"kube-system", charts.AgentNamespace} {
		secret := createSecret(ctx, managedAdmin, ns)
		expectForbidden(agent.Get(ctx, client.ObjectKeyFromObject(secret), &corev1.Secret{}))
	}
	expectForbidden(agent.List(ctx, &corev1.SecretList{}))

	By("Leases: no update but its own")
	expectForbidden(agent.Update(ctx, createLease(ctx, managedAdmin, "kube-system")))

	By("RBAC, nodes and workloads: no binding, no node delete, no Deployment write")
	expectForbidden(agent.Create(ctx, bindingTo("cluster-admin", charts.AgentNamespace, charts.AgentDeployment)))
	expectForbidden(agent.Delete(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "lp-node"}}))
	expectForbidden(agent.Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "lp-refused"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "lp"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "lp"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "pause"}}},
			},
		},
	}))
}

// createSecret creates a Secret in namespace as an admin of c's cluster.
func createSecret(ctx context.Context, c client.Client, namespace string) *corev1.Secret {
	GinkgoHelper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, GenerateName: "lp-"}, StringData: map[string]string{"k": "v"}}
	Expect(c.Create(ctx, s)).To(Succeed())
	return s
}

// createLease creates a Lease in namespace as an admin of c's cluster.
func createLease(ctx context.Context, c client.Client, namespace string) *coordinationv1.Lease {
	GinkgoHelper()
	l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, GenerateName: "lp-"}}
	Expect(c.Create(ctx, l)).To(Succeed())
	l.Spec.HolderIdentity = ptr.To("lp")
	return l
}

// bindingTo binds the ClusterRole role to the ServiceAccount
// namespace/name.
func bindingTo(role, namespace, name string) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "lp-" + name + "-" + role},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: name}},
	}
}

// expectForbidden expects err to be the API server's refusal.
func expectForbidden(err error) {
	GinkgoHelper()
	Expect(apierrors.IsForbidden(err)).To(BeTrue(), "want Forbidden, got %v", err)
}
