package registration_test

import (
	"context"
	"os"
	"runtime"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	. "github.com/onsi/gomega/gstruct"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterclient "open-cluster-management.io/api/client/cluster/clientset/versioned"
	workclient "open-cluster-management.io/api/client/work/clientset/versioned"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/corral-dev/corral/dev/simulate"
)

var _ = Describe("corral dev simulate", func() {
	It("joins clusters that heartbeat without a false Unknown, reports it, and leaves nothing behind", func(ctx SpecContext) {
		// The hub's controllers run in this process: its figures are
		// this process's. Once the clusters heartbeat, a ManifestWork in
		// one's namespace is reported applied by its simulated agent,
		// one elsewhere by none.
		works := workclient.NewForConfigOrDie(hubCluster.Config).WorkV1()
		r, err := simulate.Run(ctx, hubCluster.Config, simulate.Options{
			Clusters: 4, Prefix: "sim-ok-", LeasePeriod: time.Second, Duration: 6 * time.Second, Accept: true, Parallel: 4,
			HubPIDs: []int{os.Getpid()},
			Then: func(ctx context.Context) {
				defer GinkgoRecover()
				for _, ns := range []string{"sim-ok-00002", "default"} {
					_, err := works.ManifestWorks(ns).Create(ctx, &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Name: "sim"}}, metav1.CreateOptions{})
					Expect(err).NotTo(HaveOccurred())
				}
				Eventually(func(g Gomega) {
					w, err := works.ManifestWorks("sim-ok-00002").Get(ctx, "sim", metav1.GetOptions{})
					g.Expect(err).NotTo(HaveOccurred())
					applied := meta.FindStatusCondition(w.Status.Conditions, workv1.WorkApplied)
					g.Expect(applied).NotTo(BeNil())
					g.Expect(applied.Status).To(Equal(metav1.ConditionTrue))
					g.Expect(applied.ObservedGeneration).To(Equal(w.Generation))
				}).WithContext(ctx).WithTimeout(time.Minute).Should(Succeed())
				for _, ns := range []string{"sim-ok-00002", "default"} {
					Expect(works.ManifestWorks(ns).Delete(ctx, "sim", metav1.DeleteOptions{})).To(Succeed())
				}
			},
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(r.WorksReported).To(Equal(int64(1)), "only the simulated cluster's work is its agent's to report")
		Expect(r.Joined).To(Equal(4))
		Expect(r.JoinSeconds).To(BeNumerically(">", 0))
		Expect(r.JoinsPerSecond).To(BeNumerically("~", 4/r.JoinSeconds, 0.01))
		Expect(r.FalseUnknown).To(BeZero(), "the hub took a heartbeating cluster for gone")
		Expect(r.RenewalsFailed).To(BeZero())
		// Four clusters renewing once a second for six seconds make about
		// 24 renewals; a busy machine delays some, none should be lost.
		Expect(r.Renewals).To(BeNumerically(">=", 12))
		Expect(r.Late.P50).To(BeNumerically("<=", r.Late.P99))
		Expect(r.Late.P99).To(BeNumerically("<=", r.Late.Max))
		Expect(r.Late.Max).To(BeNumerically("<", float64(leaseGraceMultiplier)), "a renewal later than the grace would make the cluster Unknown")
		Expect(r.Accepted).NotTo(BeNil())
		Expect(r.Ready).NotTo(BeNil())
		Expect(r.Accepted.P50).To(BeNumerically(">", 0))
		Expect(r.Accepted.Max).To(BeNumerically("<=", r.Ready.Max), "a cluster's first heartbeat went through before the hub accepted it")
		Expect(r.Ready.Max).To(BeNumerically("<=", r.JoinSeconds))
		// The heap grown per cluster is the hub's as well as the
		// simulator's here, both in this process: only the scale
		// benchmark, with the hub in a process of its own, tells the
		// simulator's.
		Expect(r.BytesPerCluster).To(BeNumerically(">", 0))
		Expect(r.Processes).To(HaveLen(1))
		p := r.Processes[0]
		Expect(p.PID).To(Equal(os.Getpid()))
		Expect(p.Name).NotTo(BeEmpty())
		Expect(p.JoinCPUSeconds).To(BeNumerically(">", 0))
		Expect(p.HeartbeatCPUPercent).To(And(BeNumerically(">", 0), BeNumerically("<=", 100*runtime.NumCPU())))
		Expect(p.StartRSSMB).To(BeNumerically(">", 0))
		Expect(p.PeakRSSMB).To(BeNumerically(">=", p.StartRSSMB))
		expectNoneSimulated(ctx)
	}, SpecTimeout(4*time.Minute))

	It("stops some clusters' agents until the hub marks them gone, then has them back", func(ctx SpecContext) {
		// A 1 s lease goes stale after 5 s here: the outage starts two
		// seconds in, and the clusters are back a moment after.
		r, err := simulate.Run(ctx, hubCluster.Config, simulate.Options{
			Clusters: 3, Prefix: "sim-out-", LeasePeriod: time.Second, Duration: 2 * time.Second, Accept: true, Parallel: 3, Unreachable: 2,
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Outage).To(PointTo(MatchFields(IgnoreExtras, Fields{"Clusters": Equal(2), "Gone": Equal(2), "Back": Equal(2)})))
		grace := float64(leaseGraceMultiplier)
		Expect(r.Outage.GoneAfter.P50).To(BeNumerically(">=", grace-1), "the hub marked a cluster gone before its lease went stale")
		Expect(r.Outage.GoneAfter.Max).To(BeNumerically("<", grace+10))
		Expect(r.Outage.BackAfter.Max).To(BeNumerically("<", 10))
		Expect(r.FalseUnknown).To(BeZero(), "the stopped clusters' Unknowns are not false, the others' would be")
		expectNoneSimulated(ctx)
	}, SpecTimeout(4*time.Minute))

	It("deletes what it made when nobody accepts its clusters and the run is stopped", func(ctx SpecContext) {
		run, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		r, err := simulate.Run(run, hubCluster.Config, simulate.Options{Clusters: 2, Prefix: "sim-stop-", LeasePeriod: time.Second, Parallel: 2})
		Expect(err).To(MatchError(context.DeadlineExceeded))
		Expect(r.Joined).To(BeZero())
		expectNoneSimulated(ctx)
	}, SpecTimeout(4*time.Minute))
})

// expectNoneSimulated: no simulated ManagedCluster or join request is
// left on the hub.
func expectNoneSimulated(ctx context.Context) {
	GinkgoHelper()
	simulated := metav1.ListOptions{LabelSelector: simulate.Label}
	clusters, err := clusterclient.NewForConfigOrDie(hubCluster.Config).ClusterV1().ManagedClusters().List(ctx, simulated)
	Expect(err).NotTo(HaveOccurred())
	Expect(clusters.Items).To(BeEmpty())
	csrs, err := kube.CertificatesV1().CertificateSigningRequests().List(ctx, simulated)
	Expect(err).NotTo(HaveOccurred())
	Expect(csrs.Items).To(BeEmpty())
}
