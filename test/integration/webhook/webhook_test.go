package webhook_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/testenv"
	"github.com/corral-dev/corral/internal/testing/builder"
	"github.com/corral-dev/corral/registration/bootstrap"
	"github.com/corral-dev/corral/registration/common"
	"github.com/corral-dev/corral/registration/hub/clusterset"
	"github.com/corral-dev/corral/registration/webhook"
)

// deleteAfter deletes the cluster when the spec ends.
func deleteAfter(name string) {
	DeferCleanup(func(ctx context.Context) {
		Expect(client.IgnoreNotFound(admin.Delete(ctx, &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: name}}))).To(Succeed())
	})
}

// createByAdmin creates mc as the hub admin, who may do anything.
func createByAdmin(ctx context.Context, mc *clusterv1.ManagedCluster) {
	GinkgoHelper()
	Expect(admin.Create(ctx, mc)).To(Succeed())
	deleteAfter(mc.Name)
}

// expectRefused expects err to be a webhook's refusal with code, in one
// line containing every one of words.
func expectRefused(err error, code int32, words ...string) {
	GinkgoHelper()
	Expect(err).To(HaveOccurred())
	var status apierrors.APIStatus
	Expect(errors.As(err, &status)).To(BeTrue(), "not an API error: %v", err)
	Expect(status.Status().Code).To(Equal(code), "%v", err)
	Expect(err.Error()).To(ContainSubstring("admission webhook"))
	Expect(err.Error()).To(ContainSubstring("denied the request"))
	Expect(err.Error()).NotTo(ContainSubstring("\n"))
	for _, w := range words {
		Expect(err.Error()).To(ContainSubstring(w))
	}
}

// updateCluster changes cluster as c, retrying when the hub's controllers
// wrote it meanwhile.
func updateCluster(ctx context.Context, c client.Client, cluster string, change func(*clusterv1.ManagedCluster)) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		mc := &clusterv1.ManagedCluster{}
		if err := c.Get(ctx, client.ObjectKey{Name: cluster}, mc); err != nil {
			return err
		}
		change(mc)
		return c.Update(ctx, mc)
	})
}

// setLabel sets cluster's clusterset label as c.
func setLabel(ctx context.Context, c client.Client, cluster, set string) error {
	return updateCluster(ctx, c, cluster, func(mc *clusterv1.ManagedCluster) {
		mc.Labels[clusterv1beta2.ClusterSetLabel] = set
	})
}

func clusterSetOf(ctx context.Context, name string) string {
	GinkgoHelper()
	mc := &clusterv1.ManagedCluster{}
	Expect(admin.Get(ctx, client.ObjectKey{Name: name}, mc)).To(Succeed())
	return mc.Labels[clusterv1beta2.ClusterSetLabel]
}

var clusterWriter = rule(clusterGroup, "managedclusters", []string{"create", "get", "update"})

var _ = Describe("Putting a cluster in a cluster set", func() {
	It("is refused without create on managedclustersets/join for the set, and allowed with it", func(ctx context.Context) {
		user, name, set := testenv.UniqueName("carol"), testenv.UniqueName("c"), testenv.UniqueName("set-a")
		grant(ctx, user, clusterWriter)
		carol := as(user)

		err := carol.Create(ctx, builder.Cluster(name).LeaseDurationSeconds(60).InSet(set).Obj())
		expectRefused(err, http.StatusForbidden,
			fmt.Sprintf("user %q may not add managed cluster %q to cluster set %q", user, name, set),
			fmt.Sprintf(`create on managedclustersets/join (API group cluster.open-cluster-management.io) for %q`, set))

		grant(ctx, user, rule(clusterGroup, "managedclustersets/join", []string{"create"}, set))
		deleteAfter(name)
		Eventually(func() error {
			return carol.Create(ctx, builder.Cluster(name).LeaseDurationSeconds(60).InSet(set).Obj())
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		Expect(clusterSetOf(ctx, name)).To(Equal(set))
	})

	It("by labelling an existing cluster is refused without join on the new set, and allowed with it", func(ctx context.Context) {
		user, name, set := testenv.UniqueName("carol"), testenv.UniqueName("c"), testenv.UniqueName("set-b")
		createByAdmin(ctx, builder.Cluster(name).LeaseDurationSeconds(60).Obj())
		Expect(clusterSetOf(ctx, name)).To(Equal(clusterset.DefaultSetName))
		grant(ctx, user, clusterWriter, rule(clusterGroup, "managedclustersets/join", []string{"create"}, clusterset.DefaultSetName))
		carol := as(user)
		Eventually(func() error { return carol.Get(ctx, client.ObjectKey{Name: name}, &clusterv1.ManagedCluster{}) }).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		expectRefused(setLabel(ctx, carol, name, set), http.StatusForbidden,
			fmt.Sprintf("may not add managed cluster %q to cluster set %q", name, set), "managedclustersets/join")
		Expect(clusterSetOf(ctx, name)).To(Equal(clusterset.DefaultSetName))

		grant(ctx, user, rule(clusterGroup, "managedclustersets/join", []string{"create"}, set))
		Eventually(func() error { return setLabel(ctx, carol, name, set) }).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		Expect(clusterSetOf(ctx, name)).To(Equal(set))
	})

	It("moving a cluster from set A to set B needs join on both", func(ctx context.Context) {
		name, setA, setB := testenv.UniqueName("c"), testenv.UniqueName("set-a"), testenv.UniqueName("set-b")
		createByAdmin(ctx, builder.Cluster(name).LeaseDurationSeconds(60).InSet(setA).Obj())
		onlyB, onlyA, both := testenv.UniqueName("dave"), testenv.UniqueName("erin"), testenv.UniqueName("frank")
		grant(ctx, onlyB, clusterWriter, rule(clusterGroup, "managedclustersets/join", []string{"create"}, setB))
		grant(ctx, onlyA, clusterWriter, rule(clusterGroup, "managedclustersets/join", []string{"create"}, setA))
		grant(ctx, both, clusterWriter, rule(clusterGroup, "managedclustersets/join", []string{"create"}, setA, setB))
		for _, user := range []string{onlyB, onlyA, both} {
			Eventually(func() error { return as(user).Get(ctx, client.ObjectKey{Name: name}, &clusterv1.ManagedCluster{}) }).
				WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		}

		expectRefused(setLabel(ctx, as(onlyB), name, setB), http.StatusForbidden,
			fmt.Sprintf("user %q may not take managed cluster %q out of cluster set %q", onlyB, name, setA))
		expectRefused(setLabel(ctx, as(onlyA), name, setB), http.StatusForbidden,
			fmt.Sprintf("user %q may not add managed cluster %q to cluster set %q", onlyA, name, setB))
		Expect(clusterSetOf(ctx, name)).To(Equal(setA))

		Eventually(func() error { return setLabel(ctx, as(both), name, setB) }).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		Expect(clusterSetOf(ctx, name)).To(Equal(setB))
	})

	It("happens by default: a new cluster without a set is put in the default set", func(ctx context.Context) {
		name := testenv.UniqueName("c")
		mc := builder.Cluster(name).LeaseDurationSeconds(60).Label("env", "test").Obj()
		createByAdmin(ctx, mc)
		got := &clusterv1.ManagedCluster{}
		Expect(admin.Get(ctx, client.ObjectKey{Name: name}, got)).To(Succeed())
		Expect(got.Labels).To(Equal(map[string]string{"env": "test", clusterv1beta2.ClusterSetLabel: "default"}))
	})
})

var _ = Describe("Binding a cluster set to a namespace", func() {
	binding := func(ns, name, set string) *clusterv1beta2.ManagedClusterSetBinding {
		return &clusterv1beta2.ManagedClusterSetBinding{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec:       clusterv1beta2.ManagedClusterSetBindingSpec{ClusterSet: set},
		}
	}

	It("is refused without create on managedclustersets/bind for the set, and allowed with it", func(ctx context.Context) {
		ns, user, set := newNamespace(ctx), testenv.UniqueName("grace"), testenv.UniqueName("set")
		grant(ctx, user, rule(clusterGroup, "managedclustersetbindings", []string{"create", "get"}),
			rule(clusterGroup, "managedclustersets/join", []string{"create"}, set))
		grace := as(user)

		err := grace.Create(ctx, binding(ns, set, set))
		expectRefused(err, http.StatusForbidden,
			fmt.Sprintf("user %q may not bind cluster set %q to namespace %q", user, set, ns),
			fmt.Sprintf(`create on managedclustersets/bind (API group cluster.open-cluster-management.io) for %q`, set))

		grant(ctx, user, rule(clusterGroup, "managedclustersets/bind", []string{"create"}, set))
		Eventually(func() error { return grace.Create(ctx, binding(ns, set, set)) }).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	})

	It("is refused when the binding is not named after its set", func(ctx context.Context) {
		ns, set := newNamespace(ctx), testenv.UniqueName("set")
		err := admin.Create(ctx, binding(ns, "my-binding", set))
		expectRefused(err, http.StatusBadRequest, fmt.Sprintf("binds cluster set %q: a binding must have the name of the set it binds (name it %q)", set, set))
	})
})

var _ = Describe("corral clusterset, run by a team's user", func() {
	It("binds the set the user may bind, refuses another in one line, and lists sets without the bindings the user may not read", func(ctx context.Context) {
		ns, user, mine, theirs := newNamespace(ctx), testenv.UniqueName("ivan"), testenv.UniqueName("set"), testenv.UniqueName("set")
		for _, set := range []string{mine, theirs} {
			Expect(admin.Create(ctx, &clusterv1beta2.ManagedClusterSet{ObjectMeta: metav1.ObjectMeta{Name: set}})).To(Succeed())
			DeferCleanup(func(ctx context.Context) {
				Expect(client.IgnoreNotFound(admin.Delete(ctx, &clusterv1beta2.ManagedClusterSet{ObjectMeta: metav1.ObjectMeta{Name: set}}))).To(Succeed())
			})
		}
		// Not get on namespaces, not list on bindings: what a team is given.
		grant(ctx, user, rule(clusterGroup, "managedclustersets", []string{"get", "list"}),
			rule(clusterGroup, "managedclusters", []string{"list"}),
			rule(clusterGroup, "managedclustersetbindings", []string{"create"}),
			rule(clusterGroup, "managedclustersets/bind", []string{"create"}, mine))
		ivan := kubeconfigAs(user)
		bound := func(set string) error {
			return admin.Get(ctx, client.ObjectKey{Namespace: ns, Name: set}, &clusterv1beta2.ManagedClusterSetBinding{})
		}

		Expect(corralClusterSet(ctx, ivan, "bind", mine, "--namespace", ns)).To(Equal("cluster set " + mine + " bound in namespace " + ns + "\n"))
		Expect(bound(mine)).To(Succeed())

		out, err := corralClusterSet(ctx, ivan, "bind", theirs, "--namespace", ns)
		Expect(err).To(MatchError(ContainSubstring(fmt.Sprintf("user %q may not bind cluster set %q to namespace %q", user, theirs, ns))), out)
		Expect(strings.Count(err.Error(), "\n")).To(BeZero())
		Expect(apierrors.IsNotFound(bound(theirs))).To(BeTrue(), "no binding of %s was created", theirs)

		_, err = corralClusterSet(ctx, ivan, "bind", mine, "--namespace", "no-such-namespace")
		Expect(err).To(MatchError("there is no namespace no-such-namespace on the hub: create it first (kubectl create namespace no-such-namespace)"))

		out, err = corralClusterSet(ctx, ivan, "get", mine)
		Expect(err).NotTo(HaveOccurred(), out)
		Expect(strings.Fields(strings.Split(out, "\n")[1])).To(HaveExactElements(mine, "ExclusiveClusterSetLabel", HaveSuffix("="+mine), "0", "?", Not(BeEmpty()), Not(BeEmpty())))
		Expect(out).To(ContainSubstring("you may not list ManagedClusterSetBindings in every namespace"))
	})
})

var _ = Describe("Accepting a cluster", func() {
	It("with hubAcceptsClient: true is refused without update on managedclusters/accept, and allowed with it", func(ctx context.Context) {
		user, name := testenv.UniqueName("heidi"), testenv.UniqueName("c")
		grant(ctx, user, clusterWriter, rule(clusterGroup, "managedclustersets/join", []string{"create"}, clusterset.DefaultSetName))
		heidi := as(user)
		acceptedCluster := builder.Cluster(name).LeaseDurationSeconds(60).Accepted().Obj()
		expectRefused(heidi.Create(ctx, acceptedCluster), http.StatusForbidden,
			fmt.Sprintf("user %q may not accept managed cluster %q (spec.hubAcceptsClient: true)", user, name),
			fmt.Sprintf(`update on managedclusters/accept (API group register.open-cluster-management.io) for %q`, name))

		By("creating it unaccepted, which needs no accept permission")
		deleteAfter(name)
		Eventually(func() error { return heidi.Create(ctx, builder.Cluster(name).LeaseDurationSeconds(60).Obj()) }).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		accept := func() error {
			return updateCluster(ctx, heidi, name, func(mc *clusterv1.ManagedCluster) { mc.Spec.HubAcceptsClient = true })
		}
		expectRefused(accept(), http.StatusForbidden, fmt.Sprintf("may not accept managed cluster %q", name), "managedclusters/accept")

		grant(ctx, user, rule(common.RegisterGroup, "managedclusters/accept", []string{"update"}, name))
		Eventually(accept).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	})
})

var _ = Describe("A malformed ManagedCluster", func() {
	It("with the same taint key and effect twice is refused", func(ctx context.Context) {
		mc := builder.Cluster(testenv.UniqueName("c")).LeaseDurationSeconds(60).
			Taint("example.com/maintenance", "", clusterv1.TaintEffectNoSelect, time.Time{}).
			Taint("example.com/maintenance", "again", clusterv1.TaintEffectNoSelect, time.Time{}).Obj()
		expectRefused(admin.Create(ctx, mc), http.StatusBadRequest,
			`spec.taints[1] repeats key "example.com/maintenance" with effect NoSelect of spec.taints[0]`)
	})

	It("with an http client config URL is refused", func(ctx context.Context) {
		name := testenv.UniqueName("c")
		mc := builder.Cluster(name).LeaseDurationSeconds(60).ClientConfig("http://cluster.example:6443").Obj()
		expectRefused(admin.Create(ctx, mc), http.StatusBadRequest,
			fmt.Sprintf(`managed cluster %q: spec.managedClusterClientConfigs[0].url "http://cluster.example:6443" is not an https URL`, name))

		mc.Spec.ManagedClusterClientConfigs[0].URL = "https://cluster.example:6443"
		createByAdmin(ctx, mc)
	})
})

var _ = Describe("A taint's timeAdded", func() {
	It("is the hub's time when the taint is added, and is kept while the taint stays", func(ctx context.Context) {
		name := testenv.UniqueName("c")
		past := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
		mc := builder.Cluster(name).LeaseDurationSeconds(60).Taint("example.com/maintenance", "", clusterv1.TaintEffectNoSelect, past).Obj()
		before := time.Now().Add(-2 * time.Second)
		createByAdmin(ctx, mc)
		after := time.Now().Add(2 * time.Second)

		stamped := func() metav1.Time {
			got := &clusterv1.ManagedCluster{}
			Expect(admin.Get(ctx, client.ObjectKey{Name: name}, got)).To(Succeed())
			for _, t := range got.Spec.Taints {
				if t.Key == "example.com/maintenance" {
					return t.TimeAdded
				}
			}
			Fail("the taint is gone")
			return metav1.Time{}
		}
		added := stamped()
		Expect(added.Time).To(BeTemporally(">=", before))
		Expect(added.Time).To(BeTemporally("<=", after))

		By("updating the cluster with the taint's time left out")
		Eventually(func() error {
			got := &clusterv1.ManagedCluster{}
			if err := admin.Get(ctx, client.ObjectKey{Name: name}, got); err != nil {
				return err
			}
			for i := range got.Spec.Taints {
				got.Spec.Taints[i].TimeAdded = metav1.Time{}
			}
			got.Spec.LeaseDurationSeconds = 30
			return admin.Update(ctx, got)
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		Expect(stamped().Time).To(BeTemporally("==", added.Time))
	})
})

var _ = Describe("A cluster's agent", func() {
	It("joins as OCM agents do: the bootstrap identity creates its cluster unaccepted, and the cluster's own identity writes its status and spec", func(ctx context.Context) {
		name := testenv.UniqueName("agent")
		deleteAfter(name)
		boot := as(bootstrap.User, "system:serviceaccounts", "system:serviceaccounts:"+bootstrap.Namespace)

		By("the bootstrap identity may not create its cluster accepted")
		acceptedCluster := builder.Cluster(name).LeaseDurationSeconds(60).Accepted().Obj()
		expectRefused(boot.Create(ctx, acceptedCluster), http.StatusForbidden, "managedclusters/accept")

		By("the bootstrap identity creates it unaccepted, and it lands in the default set")
		Expect(boot.Create(ctx, builder.Cluster(name).LeaseDurationSeconds(60).Obj())).To(Succeed())
		Expect(clusterSetOf(ctx, name)).To(Equal(clusterset.DefaultSetName))

		By("the hub admin accepts it")
		Eventually(func() error {
			mc := &clusterv1.ManagedCluster{}
			if err := admin.Get(ctx, client.ObjectKey{Name: name}, mc); err != nil {
				return err
			}
			mc.Spec.HubAcceptsClient = true
			return admin.Update(ctx, mc)
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		agent := as("system:open-cluster-management:"+name+":agent1",
			"system:open-cluster-management:"+name, "system:open-cluster-management:managed-clusters")
		By("its own identity reports its status")
		Eventually(func() error {
			mc := &clusterv1.ManagedCluster{}
			if err := agent.Get(ctx, client.ObjectKey{Name: name}, mc); err != nil {
				return err
			}
			meta.SetStatusCondition(&mc.Status.Conditions, metav1.Condition{
				Type: clusterv1.ManagedClusterConditionJoined, Status: metav1.ConditionTrue, Reason: "ManagedClusterJoined", Message: "joined",
			})
			return agent.Status().Update(ctx, mc)
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		By("its own identity updates its spec")
		Eventually(func() error {
			mc := &clusterv1.ManagedCluster{}
			if err := agent.Get(ctx, client.ObjectKey{Name: name}, mc); err != nil {
				return err
			}
			mc.Spec.ManagedClusterClientConfigs = []clusterv1.ClientConfig{{URL: "https://" + name + ".example:6443"}}
			return agent.Update(ctx, mc)
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

		By("but it may not move itself to another set")
		expectRefused(setLabel(ctx, agent, name, testenv.UniqueName("set")), http.StatusForbidden,
			fmt.Sprintf("may not take managed cluster %q out of cluster set %q", name, clusterset.DefaultSetName))
	})
})

var _ = Describe("The webhook configurations", func() {
	It("point the hub's API server at the serving hub, and come back when deleted", func(ctx context.Context) {
		current := func() *admissionregistrationv1.MutatingWebhookConfiguration {
			cfg := &admissionregistrationv1.MutatingWebhookConfiguration{}
			Expect(admin.Get(ctx, client.ObjectKey{Name: webhook.ClusterMutatingName}, cfg)).To(Succeed())
			return cfg
		}
		cfg := current()
		Expect(cfg.Webhooks).To(HaveLen(1))
		Expect(*cfg.Webhooks[0].ClientConfig.URL).To(HavePrefix("https://127.0.0.1:"))
		Expect(*cfg.Webhooks[0].ClientConfig.URL).To(HaveSuffix(webhook.MutateClusterPath))
		Expect(string(cfg.Webhooks[0].ClientConfig.CABundle)).To(ContainSubstring("BEGIN CERTIFICATE"))
		for _, name := range []string{webhook.ClusterValidatingName, webhook.BindingValidatingName} {
			Expect(admin.Get(ctx, client.ObjectKey{Name: name}, &admissionregistrationv1.ValidatingWebhookConfiguration{})).To(Succeed())
		}

		Expect(admin.Delete(ctx, cfg)).To(Succeed())
		Eventually(func(g Gomega) {
			back := &admissionregistrationv1.MutatingWebhookConfiguration{}
			g.Expect(admin.Get(ctx, client.ObjectKey{Name: webhook.ClusterMutatingName}, back)).To(Succeed())
			g.Expect(back.UID).NotTo(Equal(cfg.UID))
			g.Expect(back.Webhooks[0].ClientConfig).To(Equal(cfg.Webhooks[0].ClientConfig))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		Expect(webhook.WaitServing(ctx, admin, timeout)).To(Succeed())
	})
})

var _ = Describe("The webhook configurations, with several hub processes", func() {
	It("are kept by one at a time: when it stops, another points them at itself", func(ctx context.Context) {
		url := func() string {
			cfg := &admissionregistrationv1.MutatingWebhookConfiguration{}
			Expect(admin.Get(ctx, client.ObjectKey{Name: webhook.ClusterMutatingName}, cfg)).To(Succeed())
			return *cfg.Webhooks[0].ClientConfig.URL
		}
		first := url()

		By("a second hub process serves, but leaves them to the first, which holds the lease")
		port := freePort()
		stopSecond := startHub(false, port)
		DeferCleanup(func() { stopSecond() })
		Eventually(func() error {
			conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
			if err == nil {
				_ = conn.Close()
			}
			return err
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed(), "the second hub's webhook server listens")
		// It campaigns for the lease every 2 s from its start.
		Consistently(url).WithTimeout(6 * time.Second).WithPolling(500 * time.Millisecond).Should(Equal(first))

		By("the first stops: the second takes over, with its own URL and CA")
		stopHub()
		Eventually(url).WithTimeout(timeout).ShouldNot(Equal(first))
		second := url()
		Expect(webhook.WaitServing(ctx, admin, timeout)).To(Succeed())

		By("a new hub process starts and the second stops: the new one takes over")
		stopHub = startHub(true, 0)
		stopSecond()
		Eventually(url).WithTimeout(timeout).ShouldNot(Equal(second))
		Expect(webhook.WaitServing(ctx, admin, timeout)).To(Succeed())
	})
})
