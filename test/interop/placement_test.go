package interop_test

import (
	"context"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	clusterclient "open-cluster-management.io/api/client/cluster/clientset/versioned"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"

	"github.com/corral-dev/corral/deploy/charts/corral-hub/crds"
	"github.com/corral-dev/corral/dev/localcluster"
	"github.com/corral-dev/corral/internal/testenv"
	"github.com/corral-dev/corral/internal/testing/builder"
	placementhub "github.com/corral-dev/corral/placement/hub"
)

// fleetCluster is one ManagedCluster of the placement comparison.
type fleetCluster struct {
	name   string
	labels map[string]string
	region string // its region.open-cluster-management.io claim
	cpu    string // allocatable
	taint  *clusterv1.Taint
	// score is its AddOnPlacementScore "demo" (score "demo"), if any;
	// expired says its validUntil has passed.
	score   int32
	expired bool
}

// fleet: what each case below picks from. No cluster has an availability
// condition, and no registration controller runs, so nothing but these
// labels, claims, taints and resources tells them apart.
var fleet = []fleetCluster{
	{name: "c1", labels: map[string]string{"env": "prod", "tier": "gold"}, region: "eu", cpu: "18", score: 10},
	{name: "c2", labels: map[string]string{"env": "prod", "tier": "silver"}, region: "us", cpu: "16", score: 90},
	{name: "c3", labels: map[string]string{"env": "dev"}, region: "eu", cpu: "20", score: 100, expired: true},
	{name: "c4", labels: map[string]string{"env": "prod"}, region: "eu", cpu: "32",
		taint: &clusterv1.Taint{Key: "maintenance", Effect: clusterv1.TaintEffectNoSelect}},
	{name: "c5", labels: map[string]string{"env": "dev"}, region: "us", cpu: "2",
		taint: &clusterv1.Taint{Key: "gpu", Value: "true", Effect: clusterv1.TaintEffectNoSelect}},
	{name: "c6", labels: map[string]string{"env": "prod", "tier": "gold"}, region: "ap", cpu: "12", score: 70},
	{name: "c7", labels: map[string]string{"env": "staging"}, region: "ap", cpu: "1",
		taint: &clusterv1.Taint{Key: "draining", Effect: clusterv1.TaintEffectNoSelectIfNew}},
}

// placementCase is one Placement both schedulers are given, and what the
// api's documentation says it selects. spreadPolicy has no case: OCM's
// controller (v1.2.0) does not implement it, and picks as if it were not
// there, where corral spreads as the api documents.
type placementCase struct {
	name      string
	spec      clusterv1beta1.PlacementSpec
	want      []string
	satisfied metav1.ConditionStatus
}

func labelled(kv ...string) clusterv1beta1.ClusterPredicate {
	labels := map[string]string{}
	for i := 0; i < len(kv); i += 2 {
		labels[kv[i]] = kv[i+1]
	}
	return clusterv1beta1.ClusterPredicate{RequiredClusterSelector: clusterv1beta1.ClusterSelector{
		LabelSelector: metav1.LabelSelector{MatchLabels: labels}}}
}

var placementCases = []placementCase{
	{name: "by-label", spec: clusterv1beta1.PlacementSpec{Predicates: []clusterv1beta1.ClusterPredicate{labelled("env", "prod")}},
		want: []string{"c1", "c2", "c6"}, satisfied: metav1.ConditionTrue},
	{name: "by-claim", spec: clusterv1beta1.PlacementSpec{Predicates: []clusterv1beta1.ClusterPredicate{{RequiredClusterSelector: clusterv1beta1.ClusterSelector{
		ClaimSelector: clusterv1beta1.ClusterClaimSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
			Key: "region.open-cluster-management.io", Operator: metav1.LabelSelectorOpIn, Values: []string{"eu"}}}}}}}},
		want: []string{"c1", "c3"}, satisfied: metav1.ConditionTrue},
	{name: "tolerating-maintenance", spec: clusterv1beta1.PlacementSpec{Predicates: []clusterv1beta1.ClusterPredicate{labelled("env", "prod")},
		Tolerations: []clusterv1beta1.Toleration{{Key: "maintenance", Operator: clusterv1beta1.TolerationOpExists}}},
		want: []string{"c1", "c2", "c4", "c6"}, satisfied: metav1.ConditionTrue},
	{name: "most-cpu", spec: clusterv1beta1.PlacementSpec{NumberOfClusters: ptr.To[int32](2),
		PrioritizerPolicy: clusterv1beta1.PrioritizerPolicy{Mode: clusterv1beta1.PrioritizerPolicyModeExact,
			Configurations: []clusterv1beta1.PrioritizerConfig{{Weight: 1, ScoreCoordinate: &clusterv1beta1.ScoreCoordinate{
				Type: clusterv1beta1.ScoreCoordinateTypeBuiltIn, BuiltIn: "ResourceAllocatableCPU"}}}}},
		want: []string{"c1", "c3"}, satisfied: metav1.ConditionTrue},
	{name: "best-addon-score", spec: clusterv1beta1.PlacementSpec{NumberOfClusters: ptr.To[int32](2),
		PrioritizerPolicy: clusterv1beta1.PrioritizerPolicy{Mode: clusterv1beta1.PrioritizerPolicyModeExact,
			Configurations: []clusterv1beta1.PrioritizerConfig{{Weight: 1, ScoreCoordinate: &clusterv1beta1.ScoreCoordinate{
				Type: clusterv1beta1.ScoreCoordinateTypeAddOn, AddOn: &clusterv1beta1.AddOnScore{ResourceName: "demo", ScoreName: "demo"}}}}}},
		// c3's 100 has expired: it counts for nothing.
		want: []string{"c2", "c6"}, satisfied: metav1.ConditionTrue},
	{name: "by-cel", spec: clusterv1beta1.PlacementSpec{Predicates: []clusterv1beta1.ClusterPredicate{{RequiredClusterSelector: clusterv1beta1.ClusterSelector{
		CelSelector: clusterv1beta1.ClusterCelSelector{CelExpressions: []string{`managedCluster.metadata.labels["tier"] == "gold"`}}}}}},
		want: []string{"c1", "c6"}, satisfied: metav1.ConditionTrue},
	{name: "tolerating-gpu", spec: clusterv1beta1.PlacementSpec{Predicates: []clusterv1beta1.ClusterPredicate{labelled("env", "dev")},
		Tolerations: []clusterv1beta1.Toleration{{Key: "gpu", Operator: clusterv1beta1.TolerationOpEqual, Value: "true"}}},
		want: []string{"c3", "c5"}, satisfied: metav1.ConditionTrue},
	{name: "draining-not-new", spec: clusterv1beta1.PlacementSpec{Predicates: []clusterv1beta1.ClusterPredicate{labelled("env", "staging")}},
		want: nil, satisfied: metav1.ConditionFalse},
	{name: "more-wanted-than-match", spec: clusterv1beta1.PlacementSpec{NumberOfClusters: ptr.To[int32](3),
		Predicates: []clusterv1beta1.ClusterPredicate{labelled("tier", "gold")}},
		want: []string{"c1", "c6"}, satisfied: metav1.ConditionFalse},
	{name: "unbound-set", spec: clusterv1beta1.PlacementSpec{ClusterSets: []string{"not-bound-here"}},
		want: nil, satisfied: metav1.ConditionFalse},
}

var _ = Describe("corral's scheduler and OCM's placement controller, given the same Placements", Ordered, func() {
	const set = "interop"
	var (
		hub      *localcluster.Cluster
		clusters clusterclient.Interface
	)

	BeforeAll(func(ctx context.Context) {
		By("a hub of its own, with the api module's CRDs, six clusters in one set bound to two namespaces")
		var err error
		hub, err = localcluster.Start(ctx, clusterOptions("placement-hub"))
		if hub != nil {
			DeferCleanup(hub.Stop)
		}
		Expect(err).NotTo(HaveOccurred())
		Expect(crds.Install(ctx, hub.Config)).To(Succeed())
		clusters = clusterclient.NewForConfigOrDie(hub.Config)
		createFleet(ctx, hub, set)
		for _, ns := range []string{"ocm", "corral"} {
			bindSet(ctx, hub, set, ns)
		}

		By("OCM's placement controller scheduling the Placements in namespace ocm, then stopping")
		createPlacements(ctx, clusters, "ocm")
		stop := startUpstream(ocmPlacement, "ocm-placement-controller", "controller",
			"--kubeconfig="+hub.Kubeconfig, "--disable-leader-election", listenFlag(), "-v=4")
		for _, c := range placementCases {
			expectScheduled(ctx, clusters, "ocm", c)
		}
		stop()

		By("corral's scheduler scheduling the same Placements in namespace corral")
		createPlacements(ctx, clusters, "corral")
		scheduler, err := placementhub.New(hub.Config, placementhub.Options{})
		Expect(err).NotTo(HaveOccurred())
		stopCorral := testenv.Go(klog.NewContext(context.Background(), fileLogger("corral-scheduler")), scheduler.Start)
		DeferCleanup(func() { Expect(stopCorral(timeout)).To(Succeed()) })
	}, NodeTimeout(3*timeout))

	for _, c := range placementCases {
		It("chooses as OCM's controller does: "+c.name, func(ctx context.Context) {
			expectScheduled(ctx, clusters, "corral", c)
		}, NodeTimeout(2*timeout))
	}
})

// createFleet creates the fleet's ManagedClusters in set, with their
// labels, taints, region claims and allocatable CPU, as their agents
// would have reported them.
func createFleet(ctx context.Context, hub *localcluster.Cluster, set string) {
	GinkgoHelper()
	clusters := clusterclient.NewForConfigOrDie(hub.Config)
	_, err := clusters.ClusterV1beta2().ManagedClusterSets().Create(ctx, &clusterv1beta2.ManagedClusterSet{ObjectMeta: metav1.ObjectMeta{Name: set}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	for _, f := range fleet {
		b := builder.Cluster(f.name).InSet(set).Accepted()
		for k, v := range f.labels {
			b.Label(k, v)
		}
		if t := f.taint; t != nil {
			b.Taint(t.Key, t.Value, t.Effect, time.Now())
		}
		mc, err := clusters.ClusterV1().ManagedClusters().Create(ctx, b.Obj(), metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		cpu := resource.MustParse(f.cpu)
		mc.Status.Allocatable = clusterv1.ResourceList{clusterv1.ResourceCPU: cpu, clusterv1.ResourceMemory: resource.MustParse("64Gi")}
		mc.Status.Capacity = clusterv1.ResourceList{clusterv1.ResourceCPU: cpu, clusterv1.ResourceMemory: resource.MustParse("64Gi")}
		mc.Status.ClusterClaims = []clusterv1.ManagedClusterClaim{{Name: "region.open-cluster-management.io", Value: f.region}}
		_, err = clusters.ClusterV1().ManagedClusters().UpdateStatus(ctx, mc, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())
		if f.score != 0 {
			publishScore(ctx, hub, f)
		}
	}
}

// publishScore writes f's AddOnPlacementScore "demo" in its cluster
// namespace, as an addon's agent would.
func publishScore(ctx context.Context, hub *localcluster.Cluster, f fleetCluster) {
	GinkgoHelper()
	_, err := kubernetes.NewForConfigOrDie(hub.Config).CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: f.name}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	scores := clusterclient.NewForConfigOrDie(hub.Config).ClusterV1alpha1().AddOnPlacementScores(f.name)
	score, err := scores.Create(ctx, &clusterv1alpha1.AddOnPlacementScore{ObjectMeta: metav1.ObjectMeta{Namespace: f.name, Name: "demo"}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	score.Status.Scores = []clusterv1alpha1.AddOnPlacementScoreItem{{Name: "demo", Value: f.score}}
	if f.expired {
		score.Status.ValidUntil = &metav1.Time{Time: time.Now().Add(-time.Hour)}
	}
	_, err = scores.UpdateStatus(ctx, score, metav1.UpdateOptions{})
	Expect(err).NotTo(HaveOccurred())
}

// bindSet binds set to namespace ns, creating it, and marks the binding
// Bound as a registration hub would.
func bindSet(ctx context.Context, hub *localcluster.Cluster, set, ns string) {
	GinkgoHelper()
	_, err := kubernetes.NewForConfigOrDie(hub.Config).CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	bindings := clusterclient.NewForConfigOrDie(hub.Config).ClusterV1beta2().ManagedClusterSetBindings(ns)
	b, err := bindings.Create(ctx, &clusterv1beta2.ManagedClusterSetBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: set},
		Spec: clusterv1beta2.ManagedClusterSetBindingSpec{ClusterSet: set}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	meta.SetStatusCondition(&b.Status.Conditions, metav1.Condition{Type: clusterv1beta2.ClusterSetBindingBoundType,
		Status: metav1.ConditionTrue, Reason: "ClusterSetBound", Message: "bound by the test, as a registration hub would"})
	_, err = bindings.UpdateStatus(ctx, b, metav1.UpdateOptions{})
	Expect(err).NotTo(HaveOccurred())
}

// createPlacements creates every case's Placement in ns.
func createPlacements(ctx context.Context, clusters clusterclient.Interface, ns string) {
	GinkgoHelper()
	for _, c := range placementCases {
		p := &clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: c.name}, Spec: c.spec}
		_, err := clusters.ClusterV1beta1().Placements(ns).Create(ctx, p, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
	}
}

// expectScheduled waits until the Placement of case c in ns has decided
// exactly c.want, in its PlacementDecisions and its status, and says
// whether it is satisfied as c.satisfied.
func expectScheduled(ctx context.Context, clusters clusterclient.Interface, ns string, c placementCase) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		p, err := clusters.ClusterV1beta1().Placements(ns).Get(ctx, c.name, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		satisfied := meta.FindStatusCondition(p.Status.Conditions, clusterv1beta1.PlacementConditionSatisfied)
		g.Expect(satisfied).NotTo(BeNil(), "%s/%s has been scheduled", ns, c.name)
		g.Expect(satisfied.Status).To(Equal(c.satisfied), "%s/%s: %s", ns, c.name, satisfied.Message)
		g.Expect(p.Status.NumberOfSelectedClusters).To(BeEquivalentTo(len(c.want)))

		decisions, err := clusters.ClusterV1beta1().PlacementDecisions(ns).List(ctx, metav1.ListOptions{
			LabelSelector: clusterv1beta1.PlacementLabel + "=" + c.name})
		g.Expect(err).NotTo(HaveOccurred())
		var chosen []string
		for _, d := range decisions.Items {
			for _, cd := range d.Status.Decisions {
				chosen = append(chosen, cd.ClusterName)
			}
		}
		slices.Sort(chosen)
		if len(c.want) == 0 {
			g.Expect(chosen).To(BeEmpty(), "%s/%s's decisions", ns, c.name)
			return
		}
		g.Expect(chosen).To(Equal(c.want), "%s/%s's decisions", ns, c.name)
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}
