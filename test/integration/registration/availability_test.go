package registration_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/registration/agent"
	"github.com/corral-dev/corral/registration/hub/clocksync"
)

// agentReportsAvailable does what a healthy agent does: renew the lease and
// report Available=True, through the cluster's own identity.
func agentReportsAvailable(ctx context.Context, asAgent client.Client, name string) {
	GinkgoHelper()
	agentReports(ctx, asAgent, name, metav1.ConditionTrue)
}

// agentReports renews the lease and reports Available as status, through
// the cluster's own identity: False is an agent whose managed API server
// is not live.
func agentReports(ctx context.Context, asAgent client.Client, name string, status metav1.ConditionStatus) {
	GinkgoHelper()
	renewAt(ctx, asAgent, name, time.Now())
	mc := &clusterv1.ManagedCluster{}
	Expect(asAgent.Get(ctx, client.ObjectKey{Name: name}, mc)).To(Succeed())
	patch := client.MergeFrom(mc.DeepCopy())
	reason := agent.ReasonAvailable
	if status != metav1.ConditionTrue {
		reason = agent.ReasonUnavailable
	}
	meta.SetStatusCondition(&mc.Status.Conditions, metav1.Condition{Type: clusterv1.ManagedClusterConditionAvailable, Status: status, Reason: reason})
	Expect(asAgent.Status().Patch(ctx, mc, patch)).To(Succeed())
}

// renewAt renews the cluster's lease through its own identity, stamped
// at: an agent whose clock reads at.
func renewAt(ctx context.Context, asAgent client.Client, name string, at time.Time) {
	GinkgoHelper()
	lease := &coordinationv1.Lease{}
	Expect(asAgent.Get(ctx, client.ObjectKey{Namespace: name, Name: "managed-cluster-lease"}, lease)).To(Succeed())
	lease.Spec.RenewTime = &metav1.MicroTime{Time: at}
	Expect(asAgent.Update(ctx, lease)).To(Succeed())
}

func taintKeys(ctx context.Context, name string) []string {
	var keys []string
	for _, t := range getCluster(ctx, name).Spec.Taints {
		keys = append(keys, t.Key)
	}
	return keys
}

func availableStatus(ctx context.Context, name string) metav1.ConditionStatus {
	cond := meta.FindStatusCondition(getCluster(ctx, name).Status.Conditions, clusterv1.ManagedClusterConditionAvailable)
	if cond == nil {
		return ""
	}
	return cond.Status
}

var _ = Describe("availability", func() {
	It("taints a cluster whose agent reports its API server not live unavailable, and lifts the taint when it is live again", func(ctx context.Context) {
		name := newCluster(ctx, true)
		expectAccepted(ctx, name)
		agent := asCluster(name)
		expectAccess(ctx, agent, name)

		agentReports(ctx, agent, name, metav1.ConditionFalse)
		Eventually(taintKeys).WithContext(ctx).WithArguments(name).WithTimeout(timeout).
			Should(And(ContainElement(clusterv1.ManagedClusterTaintUnavailable), Not(ContainElement(clusterv1.ManagedClusterTaintUnreachable))))

		agentReports(ctx, agent, name, metav1.ConditionTrue)
		Eventually(taintKeys).WithContext(ctx).WithArguments(name).WithTimeout(timeout).
			ShouldNot(ContainElement(clusterv1.ManagedClusterTaintUnavailable))
	})

	It("makes an accepted cluster's lease again, within its grace period, when it is deleted: its agent may only renew it", func(ctx context.Context) {
		// The hub watches no leases: it finds the lease gone when it
		// next looks, a grace period (5 s, for a 1 s lease) later at the
		// latest.
		name := newClusterWithLease(ctx, true, 1)
		expectAccepted(ctx, name)
		key := client.ObjectKey{Namespace: name, Name: "managed-cluster-lease"}
		lease := &coordinationv1.Lease{}
		Eventually(func() error { return admin.Get(ctx, key, lease) }).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		gone := lease.UID

		Expect(admin.Delete(ctx, lease)).To(Succeed())
		Eventually(func(g Gomega) {
			again := &coordinationv1.Lease{}
			g.Expect(admin.Get(ctx, key, again)).To(Succeed())
			g.Expect(again.UID).NotTo(Equal(gone))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
		agentReportsAvailable(ctx, asCluster(name), name)
	})

	It("says when a cluster's clock disagrees with the hub's by more than the lease's grace, and when it agrees again", func(ctx context.Context) {
		name := newClusterWithLease(ctx, true, 1) // a 5 s grace
		expectAccepted(ctx, name)
		agent := asCluster(name)
		expectAccess(ctx, agent, name)

		renewAt(ctx, agent, name, time.Now())
		expectCondition(ctx, name, clusterv1.ManagedClusterConditionClockSynced, metav1.ConditionTrue, clocksync.ReasonSynced)

		By("an agent whose clock runs an hour ahead")
		renewAt(ctx, agent, name, time.Now().Add(time.Hour))
		expectCondition(ctx, name, clusterv1.ManagedClusterConditionClockSynced, metav1.ConditionFalse, clocksync.ReasonOutOfSync)
		Eventually(func(g Gomega) {
			list := &eventsv1.EventList{}
			g.Expect(admin.List(ctx, list, client.InNamespace(metav1.NamespaceDefault))).To(Succeed())
			g.Expect(list.Items).To(ContainElement(And(
				HaveField("Regarding.Name", name), HaveField("Reason", clocksync.ReasonOutOfSync), HaveField("Type", corev1.EventTypeWarning))))
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed(), "a warning event says the clock is off")

		By("the clock put right")
		renewAt(ctx, agent, name, time.Now())
		expectCondition(ctx, name, clusterv1.ManagedClusterConditionClockSynced, metav1.ConditionTrue, clocksync.ReasonSynced)
	})

	It("marks a cluster whose agent never reported unreachable", func(ctx context.Context) {
		name := newCluster(ctx, true)
		Eventually(taintKeys).WithContext(ctx).WithArguments(name).WithTimeout(timeout).
			Should(ContainElement(clusterv1.ManagedClusterTaintUnreachable))
	})

	It("turns a stale lease into Available=Unknown and the unreachable taint, and lifts the taint when the agent is back", func(ctx context.Context) {
		name := newClusterWithLease(ctx, true, 1)
		expectAccepted(ctx, name)
		agent := asCluster(name)
		expectAccess(ctx, agent, name)

		By("the agent reporting once, then going quiet")
		agentReportsAvailable(ctx, agent, name)
		expectCondition(ctx, name, clusterv1.ManagedClusterConditionAvailable, metav1.ConditionUnknown, "ManagedClusterLeaseUpdateStopped")
		Eventually(taintKeys).WithContext(ctx).WithArguments(name).WithTimeout(timeout).
			Should(ContainElement(clusterv1.ManagedClusterTaintUnreachable))

		By("the agent coming back and renewing steadily")
		renewing, stop := context.WithCancel(ctx)
		defer stop()
		agentReportsAvailable(ctx, agent, name)
		go func() {
			defer GinkgoRecover()
			ticker := time.NewTicker(300 * time.Millisecond)
			defer ticker.Stop()
			for {
				select {
				case <-renewing.Done():
					return
				case <-ticker.C:
					lease := &coordinationv1.Lease{}
					if agent.Get(renewing, client.ObjectKey{Namespace: name, Name: "managed-cluster-lease"}, lease) == nil {
						lease.Spec.RenewTime = &metav1.MicroTime{Time: time.Now()}
						_ = agent.Update(renewing, lease)
					}
				}
			}
		}()
		Eventually(taintKeys).WithContext(ctx).WithArguments(name).WithTimeout(timeout).
			ShouldNot(ContainElement(clusterv1.ManagedClusterTaintUnreachable))
		// The agent wrote Available=True; the hub must not take it back
		// while the lease is renewed: watch for longer than the lease
		// period times the grace multiplier (1 s × 5), after which a lease
		// the hub did not see renewed would be stale.
		Consistently(availableStatus).WithContext(ctx).WithArguments(name).WithTimeout(7*time.Second).
			Should(Equal(metav1.ConditionTrue), "the hub marked a cluster whose lease is renewed as not available")
		Expect(taintKeys(ctx, name)).NotTo(ContainElement(clusterv1.ManagedClusterTaintUnreachable))
	})
})
