package addons_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/rest"
	"open-cluster-management.io/addon-framework/pkg/agent"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/testing/builder"
)

// newCluster creates a ManagedCluster with a fresh name, deleted after the
// spec. An accepted one is returned once its namespace exists and its
// identity has its RBAC.
func newCluster(ctx context.Context, accepted bool) string {
	GinkgoHelper()
	name := "c-" + utilrand.String(6)
	mc := builder.Cluster(name).LeaseDurationSeconds(60)
	if accepted {
		mc.Accepted()
	}
	Expect(admin.Create(ctx, mc.Obj())).To(Succeed())
	DeferCleanup(func(ctx context.Context) {
		_ = admin.Delete(ctx, &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: name}})
	})
	if accepted {
		Eventually(func() error {
			return admin.Get(ctx, client.ObjectKey{Name: name}, &corev1.Namespace{})
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		Eventually(func() error {
			return asCluster(name).Get(ctx, client.ObjectKey{Name: name}, &clusterv1.ManagedCluster{})
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	}
	return name
}

// asUser is a client authenticated as user in groups.
func asUser(user string, groups ...string) client.Client {
	GinkgoHelper()
	cfg := rest.CopyConfig(hubCluster.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: append(groups, "system:authenticated")}
	c, err := client.New(cfg, client.Options{Scheme: admin.Scheme()})
	Expect(err).NotTo(HaveOccurred())
	return c
}

// asCluster is a client with cluster's registration identity, as its
// agent has once joined.
func asCluster(cluster string) client.Client {
	return asUser("system:open-cluster-management:"+cluster+":agent1",
		"system:open-cluster-management:"+cluster, "system:open-cluster-management:managed-clusters")
}

// asAddonAgent is a client with the identity addon's certificate on
// cluster gives its agent.
func asAddonAgent(cluster, addon string) client.Client {
	return asUser(agent.DefaultUser(cluster, addon, addon), agent.DefaultGroups(cluster, addon)...)
}

// enable creates addon's ManagedClusterAddOn on cluster, as `corral addon
// enable` does, and returns it.
func enable(ctx context.Context, cluster, addon string) *addonv1alpha1.ManagedClusterAddOn {
	GinkgoHelper()
	mca := builder.AddOn(cluster, addon).Obj()
	Expect(admin.Create(ctx, mca)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { _ = admin.Delete(ctx, mca) })
	return mca
}

// registered waits until the hub's addon framework has given the addon on
// cluster its registrations, as an addon's agent waits before it makes a
// CSR: the framework passes over, for good, a CSR made before it has seen
// the addon.
func registered(ctx context.Context, cluster, addon string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		mca := &addonv1alpha1.ManagedClusterAddOn{}
		g.Expect(admin.Get(ctx, client.ObjectKey{Namespace: cluster, Name: addon}, mca)).To(Succeed())
		g.Expect(mca.Status.Registrations).NotTo(BeEmpty())
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}

// addonCSR is an addon agent's certificate request, as the registration
// agent makes it: labelled with the cluster and addon, named addon-….
type addonCSR struct {
	labelCluster, addon string
	cn                  string
	orgs                []string
	usages              []certificatesv1.KeyUsage
}

// defaultCSR is the request for addon on cluster with the framework's
// default subject and client-auth usages.
func defaultCSR(cluster, addon string) addonCSR {
	return addonCSR{
		labelCluster: cluster, addon: addon,
		cn: agent.DefaultUser(cluster, addon, addon), orgs: agent.DefaultGroups(cluster, addon),
		usages: []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment, certificatesv1.UsageClientAuth},
	}
}

// submit creates the CSR as requester and returns its name.
func (r addonCSR) submit(ctx context.Context, requester client.Client) string {
	GinkgoHelper()
	csr := builder.CSR("").GenerateName("addon-"+r.labelCluster+"-"+r.addon+"-").
		Label(clusterv1.ClusterNameLabelKey, r.labelCluster).Label(addonv1alpha1.AddonLabelKey, r.addon).
		Subject(r.cn, r.orgs...).Usages(r.usages...).Obj()
	// RBAC granted a moment ago may not be in the authorizer's cache yet.
	Eventually(func() error { return requester.Create(ctx, csr) }).WithContext(ctx).WithTimeout(timeout).
		Should(Succeed())
	DeferCleanup(func(ctx context.Context) { _ = admin.Delete(ctx, csr) })
	return csr.Name
}

// approved says whether the CSR is approved (and denied is false).
func approved(ctx context.Context, name string) (bool, error) {
	csr := &certificatesv1.CertificateSigningRequest{}
	if err := admin.Get(ctx, client.ObjectKey{Name: name}, csr); err != nil {
		return false, err
	}
	for _, c := range csr.Status.Conditions {
		if c.Type == certificatesv1.CertificateApproved && c.Status == corev1.ConditionTrue {
			return true, nil
		}
	}
	return false, nil
}

// expectApproved waits until the CSR is approved.
func expectApproved(ctx context.Context, name string) {
	GinkgoHelper()
	Eventually(approved).WithContext(ctx).WithArguments(name).WithTimeout(timeout).Should(BeTrue(), "CSR %s should be approved", name)
}

// expectNeverApproved checks that the approver decided against the CSR:
// a valid request made after it (on a fresh cluster with the addon
// enabled) goes through the same approver's queue and is approved, and
// the CSR is still not approved then. The registration approver leaves it
// alone without a NotApproved event.
func expectNeverApproved(ctx context.Context, name string) {
	GinkgoHelper()
	witness := newCluster(ctx, true)
	enable(ctx, witness, helloAddon.Name)
	registered(ctx, witness, helloAddon.Name)
	expectApproved(ctx, defaultCSR(witness, helloAddon.Name).submit(ctx, asCluster(witness)))
	Expect(approved(ctx, name)).To(BeFalse(), "CSR %s should not be approved", name)
	events, err := kube.EventsV1().Events("").List(ctx, metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	for _, e := range events.Items {
		Expect(e.Regarding.Name == name && e.Reason == "NotApproved").To(BeFalse(), "the registration approver said of %s: %s", name, e.Note)
	}
}
