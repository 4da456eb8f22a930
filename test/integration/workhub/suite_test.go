// Package workhub_test runs the work addon's hub half, as `corral hub
// --addons work` runs it but without the registration controllers, against
// a real hub control plane. PlacementDecisions are written by the specs, as the
// placement scheduler would, and ManifestWork statuses are set by the specs,
// as a work agent would, to drive rollouts; time-based rollout is driven by
// a fake clock. One spec runs a real work agent (work/agent) against a second
// API server, and the `corral work` verbs run against the hub.
package workhub_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clocktesting "k8s.io/utils/clock/testing"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/dev/localcluster"
	"github.com/corral-dev/corral/internal/testenv"
	"github.com/corral-dev/corral/work"
)

func TestWorkHub(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "work hub")
}

// timeout bounds every wait; generous for a busy 2-core machine.
const timeout = 60 * time.Second

var (
	hubCluster *localcluster.Cluster
	admin      client.Client
	// fakeClock is the clock the hub half measures rollouts by.
	fakeClock = clocktesting.NewFakeClock(time.Now())
)

var _ = BeforeSuite(func(ctx context.Context) {
	ctrl.SetLogger(GinkgoLogr)
	By("starting a hub control plane with what corral init installs")
	hubCluster = testenv.HubCluster(ctx)

	admin = testenv.MustClient(hubCluster.Config)

	By("running the work hub half and the hub's webhooks with the work addon's, as corral hub --addons work does, without the registration controllers")
	o := testenv.HubOptions(hubCluster.Config, work.Addon())
	o.Clock, o.RegistrationControllers = fakeClock, []string{}
	testenv.RunHub(o)
}, NodeTimeout(localcluster.DefaultStartTimeout+3*time.Minute))

// newNamespace creates a namespace (a cluster namespace, or the set's).
func newNamespace(ctx context.Context, prefix string) string {
	GinkgoHelper()
	ns := testenv.UniqueName(prefix)
	Expect(admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	return ns
}

// clusters creates n cluster namespaces, named in sorted order.
func clusters(ctx context.Context, n int) []string {
	GinkgoHelper()
	base := testenv.UniqueName("cluster")
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%c", base, 'a'+i)
		Expect(admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: out[i]}})).To(Succeed())
	}
	return out
}

// createPlacement creates an (empty) Placement: no scheduler runs here.
func createPlacement(ctx context.Context, ns, name string) {
	GinkgoHelper()
	Expect(admin.Create(ctx, &clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}})).To(Succeed())
}

// decide writes the placement's decision in group index (name group) to
// clusters, as the scheduler does: decision <placement>-decision-<index>.
func decide(ctx context.Context, ns, placement string, index int, group string, clusters ...string) {
	GinkgoHelper()
	name := fmt.Sprintf("%s-decision-%d", placement, index)
	pd := &clusterv1beta1.PlacementDecision{}
	err := admin.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pd)
	if err != nil {
		pd = &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{
			clusterv1beta1.PlacementLabel:          placement,
			clusterv1beta1.DecisionGroupIndexLabel: fmt.Sprint(index),
			clusterv1beta1.DecisionGroupNameLabel:  group,
		}}}
		Expect(admin.Create(ctx, pd)).To(Succeed())
	}
	pd.Status.Decisions = []clusterv1beta1.ClusterDecision{}
	for _, c := range clusters {
		pd.Status.Decisions = append(pd.Status.Decisions, clusterv1beta1.ClusterDecision{ClusterName: c})
	}
	Expect(admin.Status().Update(ctx, pd)).To(Succeed())
}

// configMap is a manifest.
func configMap(name string, data map[string]string) workv1.Manifest {
	GinkgoHelper()
	raw, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"namespace": "default", "name": name}, "data": data})
	Expect(err).NotTo(HaveOccurred())
	return workv1.Manifest{RawExtension: runtime.RawExtension{Raw: raw}}
}

// createSet creates a ManifestWorkReplicaSet of one ConfigMap on the
// placements with the strategy.
func createSet(ctx context.Context, ns, name string, refs ...workv1alpha1.LocalPlacementReference) *workv1alpha1.ManifestWorkReplicaSet {
	GinkgoHelper()
	set := &workv1alpha1.ManifestWorkReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: workv1alpha1.ManifestWorkReplicaSetSpec{
			ManifestWorkTemplate: workv1.ManifestWorkSpec{Workload: workv1.ManifestsTemplate{Manifests: []workv1.Manifest{configMap(name, map[string]string{"v": "1"})}}},
			PlacementRefs:        refs,
		},
	}
	Expect(admin.Create(ctx, set)).To(Succeed())
	return set
}

// worksOf lists the set's works by its label, keyed by cluster.
func worksOf(ctx context.Context, g Gomega, set *workv1alpha1.ManifestWorkReplicaSet) map[string]*workv1.ManifestWork {
	list := &workv1.ManifestWorkList{}
	g.Expect(admin.List(ctx, list, client.MatchingLabels{workv1alpha1.ManifestWorkReplicaSetControllerNameLabelKey: set.Namespace + "." + set.Name})).To(Succeed())
	out := map[string]*workv1.ManifestWork{}
	for i := range list.Items {
		out[list.Items[i].Namespace] = &list.Items[i]
	}
	return out
}

// expectWorksOn waits until the set has works on exactly clusters.
func expectWorksOn(ctx context.Context, set *workv1alpha1.ManifestWorkReplicaSet, clusters ...string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		g.Expect(keys(worksOf(ctx, g, set))).To(ConsistOf(clusters))
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}

// consistentlyWorksOn checks for a few seconds that the set's works stay on
// exactly clusters: a rollout that must not go further.
func consistentlyWorksOn(ctx context.Context, set *workv1alpha1.ManifestWorkReplicaSet, clusters ...string) {
	GinkgoHelper()
	Consistently(func(g Gomega) {
		g.Expect(keys(worksOf(ctx, g, set))).To(ConsistOf(clusters))
	}).WithContext(ctx).WithTimeout(3 * time.Second).Should(Succeed())
}

func keys(m map[string]*workv1.ManifestWork) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// agentReports sets the work's status as an agent would: Applied at its
// generation, and then Available and not Progressing (done), Progressing
// (not yet), or Progressing and Degraded (failed), since now on the fake
// clock; or Applied False (unapplied: the agent cannot apply it); or, for
// a work done before, its conditions at its new generation with the times
// they had (still done: an agent keeps a condition's time while its
// status stays).
func agentReports(ctx context.Context, cluster, name string, state string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		w := &workv1.ManifestWork{}
		g.Expect(admin.Get(ctx, client.ObjectKey{Namespace: cluster, Name: name}, w)).To(Succeed())
		now := metav1.NewTime(fakeClock.Now())
		set := func(t string, s metav1.ConditionStatus) {
			meta.RemoveStatusCondition(&w.Status.Conditions, t)
			w.Status.Conditions = append(w.Status.Conditions, metav1.Condition{Type: t, Status: s, Reason: "Test", ObservedGeneration: w.Generation, LastTransitionTime: now})
		}
		if state == "still done" {
			g.Expect(w.Status.Conditions).NotTo(BeEmpty())
			for i := range w.Status.Conditions {
				w.Status.Conditions[i].ObservedGeneration = w.Generation
			}
			g.Expect(admin.Status().Update(ctx, w)).To(Succeed())
			return
		}
		set(workv1.WorkApplied, metav1.ConditionTrue)
		switch state {
		case "done":
			set(workv1.WorkAvailable, metav1.ConditionTrue)
			set(workv1.WorkProgressing, metav1.ConditionFalse)
			set(workv1.WorkDegraded, metav1.ConditionFalse)
		case "progressing":
			set(workv1.WorkAvailable, metav1.ConditionFalse)
			set(workv1.WorkProgressing, metav1.ConditionTrue)
			set(workv1.WorkDegraded, metav1.ConditionFalse)
		case "failed":
			set(workv1.WorkAvailable, metav1.ConditionFalse)
			set(workv1.WorkProgressing, metav1.ConditionTrue)
			set(workv1.WorkDegraded, metav1.ConditionTrue)
		case "unapplied":
			set(workv1.WorkApplied, metav1.ConditionFalse)
		default:
			Fail("unknown agent state " + state)
		}
		g.Expect(admin.Status().Update(ctx, w)).To(Succeed())
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}

// expectSet waits until the set's status passes check.
func expectSet(ctx context.Context, set *workv1alpha1.ManifestWorkReplicaSet, check func(g Gomega, s *workv1alpha1.ManifestWorkReplicaSet)) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		s := &workv1alpha1.ManifestWorkReplicaSet{}
		g.Expect(admin.Get(ctx, client.ObjectKeyFromObject(set), s)).To(Succeed())
		check(g, s)
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}

// condition is the set's condition of type t, or an empty one.
func condition(s *workv1alpha1.ManifestWorkReplicaSet, t string) metav1.Condition {
	if c := meta.FindStatusCondition(s.Status.Conditions, t); c != nil {
		return *c
	}
	return metav1.Condition{}
}
