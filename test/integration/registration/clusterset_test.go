package registration_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/testenv"
	"github.com/corral-dev/corral/internal/testing/builder"
	registrationcli "github.com/corral-dev/corral/registration/cli"
	"github.com/corral-dev/corral/registration/hub/clusterset"
	"github.com/corral-dev/corral/registration/hub/clustersetbinding"
)

// newSet creates a ManagedClusterSet with a fresh name, deleted after the
// spec; a nil selector makes it an ExclusiveClusterSetLabel set.
func newSet(ctx context.Context, selector *metav1.LabelSelector) string {
	name := "set-" + rand.String(6)
	set := &clusterv1beta2.ManagedClusterSet{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if selector != nil {
		set.Spec.ClusterSelector = clusterv1beta2.ManagedClusterSelector{SelectorType: clusterv1beta2.LabelSelector, LabelSelector: selector}
	}
	Expect(admin.Create(ctx, set)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { _ = client.IgnoreNotFound(admin.Delete(ctx, set)) })
	return name
}

// newLabelledCluster creates a ManagedCluster with labels, deleted after
// the spec.
func newLabelledCluster(ctx context.Context, labels map[string]string) string {
	name := "c-" + rand.String(6)
	b := builder.Cluster(name).LeaseDurationSeconds(60)
	for k, v := range labels {
		b.Label(k, v)
	}
	mc := b.Obj()
	Expect(admin.Create(ctx, mc)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { _ = client.IgnoreNotFound(admin.Delete(ctx, mc)) })
	return name
}

// newNamespace creates a namespace with a fresh name, deleted after the
// spec.
func newNamespace(ctx context.Context) string {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns-" + rand.String(6)}}
	Expect(admin.Create(ctx, ns)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { _ = admin.Delete(ctx, ns) })
	return ns.Name
}

func setClusterLabels(ctx context.Context, name string, labels map[string]string) {
	GinkgoHelper()
	mc := getCluster(ctx, name)
	patch := client.MergeFrom(mc.DeepCopy())
	mc.Labels = labels
	Expect(admin.Patch(ctx, mc, patch)).To(Succeed())
}

func getSet(ctx context.Context, name string) *clusterv1beta2.ManagedClusterSet {
	GinkgoHelper()
	set := &clusterv1beta2.ManagedClusterSet{}
	Expect(admin.Get(ctx, types.NamespacedName{Name: name}, set)).To(Succeed())
	return set
}

// expectEmpty waits until set's ClusterSetEmpty condition has status, and
// the message when one is given.
func expectEmpty(ctx context.Context, set string, status metav1.ConditionStatus, message string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		s := &clusterv1beta2.ManagedClusterSet{}
		g.Expect(admin.Get(ctx, types.NamespacedName{Name: set}, s)).To(Succeed())
		cond := meta.FindStatusCondition(s.Status.Conditions, clusterv1beta2.ManagedClusterSetConditionEmpty)
		g.Expect(cond).NotTo(BeNil())
		g.Expect(cond.Status).To(Equal(status))
		if message != "" {
			g.Expect(cond.Message).To(Equal(message))
		}
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed(), "ManagedClusterSet %s ClusterSetEmpty=%s %s", set, status, message)
}

// expectBound waits until the binding of set in ns has Bound status and
// reason.
func expectBound(ctx context.Context, ns, set string, status metav1.ConditionStatus, reason string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		b := &clusterv1beta2.ManagedClusterSetBinding{}
		g.Expect(admin.Get(ctx, types.NamespacedName{Namespace: ns, Name: set}, b)).To(Succeed())
		cond := meta.FindStatusCondition(b.Status.Conditions, clusterv1beta2.ClusterSetBindingBoundType)
		g.Expect(cond).NotTo(BeNil())
		g.Expect(cond.Status).To(Equal(status))
		g.Expect(cond.Reason).To(Equal(reason))
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed(), "binding %s/%s Bound=%s", ns, set, status)
}

func inSet(set string) map[string]string {
	return map[string]string{clusterv1beta2.ClusterSetLabel: set}
}

// expectBuiltinSets waits until the hub's own sets exist with their
// selectors (a spec may have deleted or changed them).
func expectBuiltinSets(ctx context.Context) {
	GinkgoHelper()
	for _, name := range []string{clusterset.DefaultSetName, clusterset.GlobalSetName} {
		want, _ := clusterset.BuiltinSelector(name)
		Eventually(func(g Gomega) {
			s := &clusterv1beta2.ManagedClusterSet{}
			g.Expect(admin.Get(ctx, types.NamespacedName{Name: name}, s)).To(Succeed())
			g.Expect(s.Spec.ClusterSelector).To(Equal(want))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed(), "the built-in set %s", name)
	}
}

// setsShown runs corral get clusters for the named clusters and returns the
// SETS column of each: the sets on the hub whose selectors take it in.
func setsShown(ctx context.Context, names ...string) map[string]string {
	GinkgoHelper()
	var out bytes.Buffer
	o := registrationcli.NewGetClustersOptions(&out)
	o.Names = names
	o.Hub.Kubeconfig = hubCluster.Kubeconfig
	Expect(o.Validate()).To(Succeed())
	Expect(o.Complete()).To(Succeed())
	Expect(o.Run(ctx)).To(Succeed())
	shown := make(map[string]string, len(names))
	for _, name := range names {
		shown[name] = tableCell(out.String(), name, "SETS")
	}
	return shown
}

var _ = Describe("built-in cluster sets", func() {
	DescribeTable("exist, with their selector, and come back when deleted",
		func(ctx context.Context, name string) {
			want, _ := clusterset.BuiltinSelector(name)
			var uid types.UID
			Eventually(func(g Gomega) {
				s := &clusterv1beta2.ManagedClusterSet{}
				g.Expect(admin.Get(ctx, types.NamespacedName{Name: name}, s)).To(Succeed())
				g.Expect(s.Spec.ClusterSelector).To(Equal(want))
				uid = s.UID
			}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())

			By("deleting it")
			Expect(admin.Delete(ctx, &clusterv1beta2.ManagedClusterSet{ObjectMeta: metav1.ObjectMeta{Name: name}})).To(Succeed())
			Eventually(func(g Gomega) {
				s := &clusterv1beta2.ManagedClusterSet{}
				g.Expect(admin.Get(ctx, types.NamespacedName{Name: name}, s)).To(Succeed())
				g.Expect(s.UID).NotTo(Equal(uid))
				g.Expect(s.Spec.ClusterSelector).To(Equal(want))
			}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		},
		Entry("default: the clusters labelled with it", clusterset.DefaultSetName),
		Entry("global: every cluster", clusterset.GlobalSetName),
	)

	It("get their selector back when someone changes it", func(ctx context.Context) {
		Eventually(func() error {
			return admin.Get(ctx, types.NamespacedName{Name: clusterset.DefaultSetName}, &clusterv1beta2.ManagedClusterSet{})
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		set := getSet(ctx, clusterset.DefaultSetName)
		patch := client.MergeFrom(set.DeepCopy())
		set.Spec.ClusterSelector = clusterv1beta2.ManagedClusterSelector{
			SelectorType: clusterv1beta2.LabelSelector, LabelSelector: &metav1.LabelSelector{},
		}
		Expect(admin.Patch(ctx, set, patch)).To(Succeed())
		Eventually(func() clusterv1beta2.SelectorType {
			return getSet(ctx, clusterset.DefaultSetName).Spec.ClusterSelector.SelectorType
		}).WithContext(ctx).WithTimeout(timeout).Should(Equal(clusterv1beta2.ExclusiveClusterSetLabel))
	})

	It("hold the clusters they should, as corral get clusters shows: default the ones labelled with it, global every one", func(ctx context.Context) {
		labelled := newLabelledCluster(ctx, inSet(clusterset.DefaultSetName))
		unlabelled := newLabelledCluster(ctx, nil)
		elsewhere := newLabelledCluster(ctx, inSet("other-"+rand.String(6)))
		expectBuiltinSets(ctx)
		Expect(setsShown(ctx, labelled, unlabelled, elsewhere)).To(Equal(map[string]string{
			labelled:   clusterset.DefaultSetName + "," + clusterset.GlobalSetName,
			unlabelled: clusterset.GlobalSetName,
			elsewhere:  clusterset.GlobalSetName,
		}))
	})
})

var _ = Describe("cluster set status", func() {
	It("turns not empty when a cluster joins the set, and empty when it leaves", func(ctx context.Context) {
		set := newSet(ctx, nil)
		expectEmpty(ctx, set, metav1.ConditionTrue, "No ManagedCluster selected")

		By("a labelled cluster appearing")
		c1 := newLabelledCluster(ctx, inSet(set))
		expectEmpty(ctx, set, metav1.ConditionFalse, "1 ManagedClusters selected")

		By("a second one being labelled")
		c2 := newLabelledCluster(ctx, nil)
		setClusterLabels(ctx, c2, inSet(set))
		expectEmpty(ctx, set, metav1.ConditionFalse, "2 ManagedClusters selected")

		By("one being deleted and the other unlabelled")
		Expect(admin.Delete(ctx, &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: c1}})).To(Succeed())
		expectEmpty(ctx, set, metav1.ConditionFalse, "1 ManagedClusters selected")
		setClusterLabels(ctx, c2, map[string]string{"unrelated": "yes"})
		expectEmpty(ctx, set, metav1.ConditionTrue, "No ManagedCluster selected")
	})

	It("updates both exclusive sets when a cluster's label moves it from one to the other", func(ctx context.Context) {
		from, to := newSet(ctx, nil), newSet(ctx, nil)
		name := newLabelledCluster(ctx, inSet(from))
		expectEmpty(ctx, from, metav1.ConditionFalse, "1 ManagedClusters selected")
		expectEmpty(ctx, to, metav1.ConditionTrue, "")

		setClusterLabels(ctx, name, inSet(to))
		expectEmpty(ctx, from, metav1.ConditionTrue, "No ManagedCluster selected")
		expectEmpty(ctx, to, metav1.ConditionFalse, "1 ManagedClusters selected")
	})

	It("counts the clusters a label selector set selects, whatever their exclusive set", func(ctx context.Context) {
		team := "team-" + rand.String(6)
		set := newSet(ctx, &metav1.LabelSelector{MatchLabels: map[string]string{"team": team}})
		expectEmpty(ctx, set, metav1.ConditionTrue, "")

		a := newLabelledCluster(ctx, map[string]string{"team": team, clusterv1beta2.ClusterSetLabel: "set-a"})
		newLabelledCluster(ctx, map[string]string{"team": team})
		newLabelledCluster(ctx, map[string]string{"team": "other"})
		expectEmpty(ctx, set, metav1.ConditionFalse, "2 ManagedClusters selected")

		setClusterLabels(ctx, a, map[string]string{"team": "other"})
		expectEmpty(ctx, set, metav1.ConditionFalse, "1 ManagedClusters selected")

		By("the set's selector changing")
		s := getSet(ctx, set)
		patch := client.MergeFrom(s.DeepCopy())
		s.Spec.ClusterSelector.LabelSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "nobody-" + team}}
		Expect(admin.Patch(ctx, s, patch)).To(Succeed())
		expectEmpty(ctx, set, metav1.ConditionTrue, "No ManagedCluster selected")
	})
})

var _ = Describe("cluster set bindings", func() {
	It("are bound only while their set exists", func(ctx context.Context) {
		ns := newNamespace(ctx)
		name := "set-" + rand.String(6)
		binding := &clusterv1beta2.ManagedClusterSetBinding{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec:       clusterv1beta2.ManagedClusterSetBindingSpec{ClusterSet: name},
		}
		Expect(admin.Create(ctx, binding)).To(Succeed())
		expectBound(ctx, ns, name, metav1.ConditionFalse, clustersetbinding.ReasonClusterSetNotFound)

		By("creating the set")
		set := &clusterv1beta2.ManagedClusterSet{ObjectMeta: metav1.ObjectMeta{Name: name}}
		Expect(admin.Create(ctx, set)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { _ = client.IgnoreNotFound(admin.Delete(ctx, set)) })
		expectBound(ctx, ns, name, metav1.ConditionTrue, clustersetbinding.ReasonBound)

		By("deleting the set")
		Expect(admin.Delete(ctx, set)).To(Succeed())
		expectBound(ctx, ns, name, metav1.ConditionFalse, clustersetbinding.ReasonClusterSetNotFound)
	})
})

// corral runs `corral clusterset ARGS…` against the suite's hub, as a user
// would, and returns what it printed.
func corralClusterSet(ctx context.Context, args ...string) (string, error) {
	return testenv.RunCommand(ctx, registrationcli.NewCmdClusterSet, append(args, "--kubeconfig", hubCluster.Kubeconfig)...)
}

// mustClusterSet is corralClusterSet that must succeed.
func mustClusterSet(ctx context.Context, args ...string) string {
	GinkgoHelper()
	out, err := corralClusterSet(ctx, args...)
	Expect(err).NotTo(HaveOccurred(), "corral clusterset %s: %s", strings.Join(args, " "), out)
	return out
}

// tableCell returns the cell of column header in the table line that
// starts with name (every cell before it being one word).
func tableCell(table, name, header string) string {
	GinkgoHelper()
	col := slices.Index(strings.Fields(strings.SplitN(table, "\n", 2)[0]), header)
	Expect(col).NotTo(BeNumerically("<", 0), "no column %s in:\n%s", header, table)
	row := tableRow(table, name)
	Expect(len(row)).To(BeNumerically(">", col), "row %s has no %s cell in:\n%s", name, header, table)
	return row[col]
}

// tableRow returns the fields of the table line that starts with name.
func tableRow(table, name string) []string {
	GinkgoHelper()
	for _, line := range strings.Split(table, "\n") {
		if fields := strings.Fields(line); len(fields) > 0 && fields[0] == name {
			return fields
		}
	}
	Fail(fmt.Sprintf("no row %s in:\n%s", name, table))
	return nil
}

// deleteSetAfter deletes the set name once the spec is over.
func deleteSetAfter(name string) {
	DeferCleanup(func(ctx context.Context) {
		_ = client.IgnoreNotFound(admin.Delete(ctx, &clusterv1beta2.ManagedClusterSet{ObjectMeta: metav1.ObjectMeta{Name: name}}))
	})
}

var _ = Describe("corral clusterset", func() {
	It("says which placements choosing a cluster may no longer once it moves to another set", func(ctx context.Context) {
		from, to := "from-"+rand.String(6), "to-"+rand.String(6)
		deleteSetAfter(from)
		deleteSetAfter(to)
		mustClusterSet(ctx, "create", from)
		mustClusterSet(ctx, "create", to)
		moving, staying := newLabelledCluster(ctx, inSet(from)), newLabelledCluster(ctx, inSet(from))
		narrow, wide := newNamespace(ctx), newNamespace(ctx)
		mustClusterSet(ctx, "bind", from, "--namespace", narrow)
		mustClusterSet(ctx, "bind", from, "--namespace", wide)
		mustClusterSet(ctx, "bind", to, "--namespace", wide)
		expectBound(ctx, narrow, from, metav1.ConditionTrue, clustersetbinding.ReasonBound)
		expectBound(ctx, wide, to, metav1.ConditionTrue, clustersetbinding.ReasonBound)
		// What a scheduler decided: each placement chose both clusters.
		for _, ns := range []string{narrow, wide} {
			Expect(admin.Create(ctx, &clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app"}})).To(Succeed())
			d := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app-decision-1",
				Labels: map[string]string{clusterv1beta1.PlacementLabel: "app"}}}
			Expect(admin.Create(ctx, d)).To(Succeed())
			d.Status.Decisions = []clusterv1beta1.ClusterDecision{{ClusterName: moving}, {ClusterName: staying}}
			Expect(admin.Status().Update(ctx, d)).To(Succeed())
		}

		By("refusing off a terminal without --yes, changing nothing")
		out, err := corralClusterSet(ctx, "set", to, "--clusters", moving)
		Expect(err).To(MatchError(ContainSubstring("pass --yes")))
		Expect(out).To(ContainSubstring(moving + ": placement " + narrow + "/app drops it"))
		Expect(getCluster(ctx, moving).Labels).To(HaveKeyWithValue(clusterv1beta2.ClusterSetLabel, from))

		By("moving it with --yes")
		out = mustClusterSet(ctx, "set", to, "--clusters", moving, "--yes")
		Expect(out).To(ContainSubstring(moving + ": moved from cluster set " + from + " to " + to))
		Expect(out).To(ContainSubstring(moving + ": placement " + narrow + "/app drops it"))
		Expect(out).To(ContainSubstring("let the placement use set " + to + " (bind it in namespace " + narrow))
		Expect(out).NotTo(ContainSubstring(wide+"/app"), "a placement whose namespace is bound to the new set keeps it")
		Expect(getCluster(ctx, moving).Labels).To(HaveKeyWithValue(clusterv1beta2.ClusterSetLabel, to))
	})

	It("creates an exclusive set, puts clusters in it, binds it, shows it, and deletes it once unbound", func(ctx context.Context) {
		set := "set-" + rand.String(6)
		deleteSetAfter(set)
		Expect(mustClusterSet(ctx, "create", set)).To(ContainSubstring("cluster set " + set + " created"))
		Expect(getSet(ctx, set).Spec.ClusterSelector.SelectorType).To(Equal(clusterv1beta2.ExclusiveClusterSetLabel))
		expectEmpty(ctx, set, metav1.ConditionTrue, "")

		By("being safe to run again, and refusing another selector for the same name")
		Expect(mustClusterSet(ctx, "create", set)).To(ContainSubstring("already exists"))
		_, err := corralClusterSet(ctx, "create", set, "--label-selector", "env=prod")
		Expect(err).To(MatchError(ContainSubstring("cluster set " + set + " already exists and selects")))

		By("putting two clusters in it, one moved from another set")
		c1, c2 := newLabelledCluster(ctx, nil), newLabelledCluster(ctx, inSet("old-"+set))
		out := mustClusterSet(ctx, "set", set, "--clusters", c1+","+c2)
		Expect(out).To(ContainSubstring(c1 + ": put in cluster set " + set))
		Expect(out).To(ContainSubstring(c2 + ": moved from cluster set old-" + set + " to " + set))
		Expect(getCluster(ctx, c1).Labels).To(HaveKeyWithValue(clusterv1beta2.ClusterSetLabel, set))
		Expect(getCluster(ctx, c2).Labels).To(HaveKeyWithValue(clusterv1beta2.ClusterSetLabel, set))
		expectEmpty(ctx, set, metav1.ConditionFalse, "2 ManagedClusters selected")
		Expect(mustClusterSet(ctx, "set", set, "--clusters", c1)).To(ContainSubstring(c1 + ": already in cluster set " + set))

		By("binding it")
		ns := newNamespace(ctx)
		Expect(mustClusterSet(ctx, "bind", set, "--namespace", ns)).To(ContainSubstring("cluster set " + set + " bound in namespace " + ns))
		expectBound(ctx, ns, set, metav1.ConditionTrue, clustersetbinding.ReasonBound)
		Expect(mustClusterSet(ctx, "bind", set, "--namespace", ns)).To(ContainSubstring("already bound"))

		By("showing it")
		Expect(tableRow(mustClusterSet(ctx, "get"), set)[:6]).To(Equal([]string{
			set, "ExclusiveClusterSetLabel", clusterv1beta2.ClusterSetLabel + "=" + set, "2", ns, "False",
		}))
		shown := &clusterv1beta2.ManagedClusterSet{}
		Expect(json.Unmarshal([]byte(mustClusterSet(ctx, "get", set, "-o", "json")), shown)).To(Succeed())
		Expect(shown.Name).To(Equal(set), "one set asked for by name is printed itself, as kubectl does")
		Expect(shown.Kind).To(Equal("ManagedClusterSet"))
		Expect(shown.ManagedFields).To(BeEmpty())

		By("refusing to delete it while it is bound, off a terminal without --yes")
		out, err = corralClusterSet(ctx, "delete", set)
		Expect(err).To(MatchError(And(ContainSubstring("pass --yes"), ContainSubstring("nothing was changed"))))
		Expect(out).To(ContainSubstring("namespace " + ns + ": its binding " + set + " is left without the set"))
		getSet(ctx, set)

		By("deleting it once unbound")
		Expect(mustClusterSet(ctx, "unbind", set, "--namespace", ns)).To(ContainSubstring("unbound"))
		Expect(mustClusterSet(ctx, "unbind", set, "--namespace", ns)).To(ContainSubstring("is not bound"))
		out = mustClusterSet(ctx, "delete", set)
		Expect(out).To(ContainSubstring("cluster set " + set + " deleted"))
		first, second := c1, c2
		if second < first {
			first, second = second, first
		}
		Expect(out).To(ContainSubstring(first + ", " + second + ": in no exclusive cluster set now (still labelled " + clusterv1beta2.ClusterSetLabel + "=" + set + ")"))
		Eventually(func() bool {
			return apierrors.IsNotFound(admin.Get(ctx, types.NamespacedName{Name: set}, &clusterv1beta2.ManagedClusterSet{}))
		}).WithContext(ctx).WithTimeout(timeout).Should(BeTrue())
	})

	It("creates a label selector set that holds the clusters matching it", func(ctx context.Context) {
		set, team := "set-"+rand.String(6), "team-"+rand.String(6)
		deleteSetAfter(set)
		mustClusterSet(ctx, "create", set, "--label-selector", "team="+team)
		newLabelledCluster(ctx, map[string]string{"team": team})
		expectEmpty(ctx, set, metav1.ConditionFalse, "1 ManagedClusters selected")
		Expect(tableRow(mustClusterSet(ctx, "get", set), set)[1:5]).To(Equal([]string{"LabelSelector", "team=" + team, "1", "-"}))

		By("refusing to set clusters into it")
		c := newLabelledCluster(ctx, nil)
		_, err := corralClusterSet(ctx, "set", set, "--clusters", c)
		Expect(err).To(MatchError(And(ContainSubstring("holds the clusters matching team="+team), ContainSubstring("nothing was changed"))))
		Expect(getCluster(ctx, c).Labels).NotTo(HaveKey(clusterv1beta2.ClusterSetLabel))
	})

	It("changes no cluster when one of those named does not exist", func(ctx context.Context) {
		set := newSet(ctx, nil)
		c := newLabelledCluster(ctx, map[string]string{"keep": "me"})
		ghost := "ghost-" + rand.String(5)
		_, err := corralClusterSet(ctx, "set", set, "--clusters", c+","+ghost)
		Expect(err).To(MatchError("no such cluster on the hub: " + ghost + "; nothing was changed"))
		Expect(getCluster(ctx, c).Labels).To(Equal(map[string]string{"keep": "me"}))

		By("and none when the set does not exist")
		_, err = corralClusterSet(ctx, "set", "no-"+set, "--clusters", c)
		Expect(err).To(MatchError(ContainSubstring("there is no cluster set no-" + set + " on the hub")))
		Expect(getCluster(ctx, c).Labels).To(Equal(map[string]string{"keep": "me"}))
	})

	It("refuses in one line to bind in a namespace that does not exist, creating nothing", func(ctx context.Context) {
		set := newSet(ctx, nil)
		ns := "ns-" + rand.String(6)
		_, err := corralClusterSet(ctx, "bind", set, "--namespace", ns)
		Expect(err).To(MatchError("there is no namespace " + ns + " on the hub: create it first (kubectl create namespace " + ns + ")"))
		Expect(err.Error()).NotTo(ContainSubstring("\n"))
		bindings := &clusterv1beta2.ManagedClusterSetBindingList{}
		Expect(admin.List(ctx, bindings, client.InNamespace(ns))).To(Succeed())
		Expect(bindings.Items).To(BeEmpty())
	})

	It("refuses to delete the hub's own sets", func(ctx context.Context) {
		for _, name := range []string{clusterset.DefaultSetName, clusterset.GlobalSetName} {
			Eventually(func() error {
				return admin.Get(ctx, types.NamespacedName{Name: name}, &clusterv1beta2.ManagedClusterSet{})
			}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
			uid := getSet(ctx, name).UID
			_, err := corralClusterSet(ctx, "delete", name)
			Expect(err).To(MatchError(ContainSubstring("kept by the hub")))
			Expect(getSet(ctx, name).UID).To(Equal(uid))
		}
	})
})

var _ = Describe("corral get clusters", func() {
	It("shows the sets each cluster is in", func(ctx context.Context) {
		set := newSet(ctx, nil)
		c := newLabelledCluster(ctx, inSet(set))
		expectBuiltinSets(ctx)
		Expect(setsShown(ctx, c)).To(HaveKeyWithValue(c, clusterset.GlobalSetName+","+set))
	})
})
