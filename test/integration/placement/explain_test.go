package placement_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/testenv"
	placementcli "github.com/corral-dev/corral/placement/cli"
	"github.com/corral-dev/corral/placement/hub/scheduler"
)

var _ = Describe("corral placement explain", func() {
	// explain runs the verb as the binary does, against the hub.
	explain := func(ctx context.Context, args []string, flags map[string]string) (string, error) {
		args = append(args, "--kubeconfig", hubCluster.Kubeconfig)
		for k, v := range flags {
			args = append(args, "--"+k+"="+v)
		}
		return testenv.RunCommand(ctx, placementcli.NewCmdExplain, args...)
	}

	It("explains what the scheduler decided, and what an edited placement would gain and lose, writing nothing", func(ctx context.Context) {
		f := newFixture(ctx)
		clusters := f.clusters(ctx, f.set, 3, func(i int, c *clusterv1.ManagedCluster) {
			c.Labels["tier"] = []string{"gold", "gold", "silver"}[i]
		})
		f.bind(ctx, f.set)
		Expect(admin.Create(ctx, f.placement("gold", func(p *clusterv1beta1.Placement) {
			p.Spec.Predicates = []clusterv1beta1.ClusterPredicate{{RequiredClusterSelector: clusterv1beta1.ClusterSelector{
				LabelSelector: metav1LabelSelector("tier", "gold")}}}
		}))).To(Succeed())
		f.eventuallyDecided(ctx, "gold", clusters[:2])

		By("explaining the placement as it is")
		out, err := explain(ctx, []string{f.ns + "/gold"}, map[string]string{"output": "json"})
		Expect(err).NotTo(HaveOccurred(), out)
		var e placementcli.Explanation
		Expect(json.Unmarshal([]byte(out), &e)).To(Succeed(), out)
		Expect(e.Current).To(Equal(clusters[:2]))
		Expect(e.Gained).To(BeEmpty())
		Expect(e.Lost).To(BeEmpty())
		byName := map[string]scheduler.ClusterResult{}
		for _, c := range e.Result.Clusters {
			byName[c.Name] = c
		}
		Expect(byName[clusters[0]].Selected).To(BeTrue())
		Expect(byName[clusters[2]].DroppedBy).To(Equal(scheduler.FilterPredicate))
		Expect(byName[clusters[0]].Scores).To(HaveLen(2)) // Balance and Steady

		By("asking what an edited placement would choose")
		file := filepath.Join(GinkgoT().TempDir(), "gold.yaml")
		Expect(os.WriteFile(file, []byte("spec:\n  predicates:\n  - requiredClusterSelector:\n      labelSelector:\n        matchLabels:\n          tier: silver\n"), 0o600)).To(Succeed())
		out, err = explain(ctx, []string{f.ns + "/gold"}, map[string]string{"what-if": "true", "filename": file})
		Expect(err).NotTo(HaveOccurred(), out)
		Expect(out).To(ContainSubstring("(what if): 1 selected"))
		Expect(out).To(ContainSubstring("gained " + clusters[2] + "; lost " + clusters[0] + ", " + clusters[1]))

		By("the hub's placement and decisions are unchanged")
		p := &clusterv1beta1.Placement{}
		Expect(admin.Get(ctx, client.ObjectKey{Namespace: f.ns, Name: "gold"}, p)).To(Succeed())
		Expect(p.Spec.Predicates[0].RequiredClusterSelector.LabelSelector.MatchLabels).To(HaveKeyWithValue("tier", "gold"))
		Expect(f.decided(ctx, "gold")).To(Equal(clusters[:2]))
	})

	It("refuses a placement that does not exist, in one line", func(ctx context.Context) {
		f := newFixture(ctx)
		_, err := explain(ctx, []string{f.ns + "/nope"}, nil)
		Expect(err).To(MatchError(ContainSubstring("no Placement nope in namespace " + f.ns + " on the hub")))
	})
})
