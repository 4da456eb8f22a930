package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/corral-dev/corral/dev/fleet"
	"github.com/corral-dev/corral/dev/localcluster"
)

// The health addon's names, as a user reads them in the docs.
const (
	healthCondition = "health.corral.io/Healthy"
	healthTaint     = "health.corral.io/unhealthy"
	// healthNS is the hub namespace the health specs keep their configs and
	// placements in.
	healthNS = "e2e-health"
	// healthTimeout bounds each wait for the health addon to see a change:
	// many times the 2s probes and 20s staleness the specs configure.
	healthTimeout = 2 * time.Minute
	// propertiesTimeout bounds a wait for the properties addon, which
	// collects every 30s.
	propertiesTimeout = 3 * time.Minute
)

// healthState is the part of a ManagedCluster the health specs read.
type healthState struct {
	Status, Reason, Message string
	Tainted                 bool
}

// itRunsTheHealthAddon adds, to the Ordered container of a running fleet
// of a hub and cluster1 and cluster2 (both in the default set, the health
// and properties addons enabled, a real node and 3 kwok nodes of 8 CPUs
// each per cluster), the specs of the health and properties addons as a user
// meets them: a bad config refused, fast probes configured through the
// CLI, a placement moving away from a cluster whose kube-apiserver is
// frozen and the cluster selectable again once it runs, a NotReady node
// reported, and a placement on reported properties; and it puts the
// default settings back at the end. *dir is the fleet's directory.
func itRunsTheHealthAddon(dir *string) {
	hub := func() string { return filepath.Join(*dir, "hub", "kubeconfig") }
	managed := func(cluster string) string { return filepath.Join(*dir, cluster, "kubeconfig") }
	clusters := []string{"cluster1", "cluster2"}
	const configPrefix = "addon.open-cluster-management.io/addondeploymentconfigs/" + healthNS + "/"

	It("refuses a bad health config up front, in one line saying what is wrong, and enables nothing", func() {
		r := kubectl(hub(), "create", "namespace", healthNS)
		Expect(r.code).To(Equal(0), "%s", r)
		applyYAML(hub(), `apiVersion: addon.open-cluster-management.io/v1alpha1
kind: AddOnDeploymentConfig
metadata: {name: health-bad, namespace: `+healthNS+`}
spec:
  customizedVariables:
  - {name: probeInterval, value: "-5s"}
  - {name: workloads, value: StatefulSet/db/postgres}
`)
		r = corral(cliTimeout, "addon", "enable", "health", "--clusters", "cluster1", "--config", configPrefix+"health-bad", "--kubeconfig", hub())
		expectOneLineError(r, "health-bad", `probeInterval "-5s" is not a positive duration`,
			`"StatefulSet/db/postgres" has kind "StatefulSet", which is not supported: use Deployment or DaemonSet`, "nothing was enabled")
		r = kubectl(hub(), "-n", "cluster1", "get", "managedclusteraddon", "health", "-o", "jsonpath={.spec.configs}")
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(r.out).NotTo(ContainSubstring("health-bad"))
	})

	It("configures the health addon through the CLI to probe every 2s, count a cluster stale after 20s and want 80% of its nodes Ready", func() {
		applyYAML(hub(), `apiVersion: addon.open-cluster-management.io/v1alpha1
kind: AddOnDeploymentConfig
metadata: {name: health-fast, namespace: `+healthNS+`}
spec:
  customizedVariables:
  - {name: probeInterval, value: 2s}
  - {name: staleAfter, value: 20s}
  - {name: minReadyNodeShare, value: "0.8"}
`)
		r := corral(cliTimeout, "addon", "enable", "health", "--clusters", strings.Join(clusters, ","),
			"--config", configPrefix+"health-fast", "--kubeconfig", hub())
		Expect(r.code).To(Equal(0), "%s", r)
		for _, cluster := range clusters {
			expectHealthSettings(hub(), cluster, "probing every 2s, stale after 20s, at least 80% of nodes Ready")
			expectHealth(hub(), cluster, "True", false, "4/4 nodes Ready")
		}
	})

	It("marks a cluster whose kube-apiserver is frozen unhealthy and taints it, a placement of 1 moves to the other cluster, and both come back when it runs again", func() {
		applyYAML(hub(), `apiVersion: cluster.open-cluster-management.io/v1beta2
kind: ManagedClusterSetBinding
metadata: {name: default, namespace: `+healthNS+`}
spec: {clusterSet: default}
---
apiVersion: cluster.open-cluster-management.io/v1beta1
kind: Placement
metadata: {name: one, namespace: `+healthNS+`}
spec: {numberOfClusters: 1}
---
apiVersion: cluster.open-cluster-management.io/v1beta1
kind: Placement
metadata: {name: all, namespace: `+healthNS+`}
spec: {}
`)
		expectDecisions(hub(), "all", "cluster1", "cluster2")
		var sick string
		Eventually(func(g Gomega) {
			decided := decisions(g, hub(), "one")
			g.Expect(decided).To(HaveLen(1))
			sick = decided[0]
		}).WithTimeout(healthTimeout).WithPolling(time.Second).Should(Succeed())
		other := clusters[0]
		if sick == other {
			other = clusters[1]
		}

		By("freezing " + sick + "'s kube-apiserver with SIGSTOP")
		pid := componentPID(*dir, sick, "kube-apiserver")
		Expect(syscall.Kill(pid, syscall.SIGSTOP)).To(Succeed())
		DeferCleanup(func() { Expect(syscall.Kill(pid, syscall.SIGCONT)).To(Succeed()) }) // never leave it frozen
		// Its health agent runs beside it and still reaches the hub: each
		// probe times out and the report says so (it does not go stale).
		h := expectHealth(hub(), sick, "False", true, "API server not live: GET /livez")
		Expect(h.Reason).To(Equal("APIServerNotLive"), "%+v", h)
		r := corral(cliTimeout, "get", "clusters", sick, "--kubeconfig", hub())
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(r.out).To(MatchRegexp(`(?m)^%s\s.*\sAPIServerNotLive\s.*%s:NoSelect`, sick, healthTaint), "%s", r)
		expectDecisions(hub(), "one", other)
		expectDecisions(hub(), "all", other)

		By("resuming " + sick + "'s kube-apiserver with SIGCONT")
		Expect(syscall.Kill(pid, syscall.SIGCONT)).To(Succeed())
		expectHealth(hub(), sick, "True", false, "API server live and ready", "4/4 nodes Ready")
		expectDecisions(hub(), "all", "cluster1", "cluster2")
		Eventually(func(g Gomega) { g.Expect(decisions(g, hub(), "one")).To(HaveLen(1)) }).
			WithTimeout(healthTimeout).WithPolling(time.Second).Should(Succeed())
	})

	It("reports the share of Ready nodes: one fake node NotReady of 4 nodes is below the 80% wanted", func() {
		const cluster, node = "cluster1", "cluster1-node-2"
		orig := getNode(managed(cluster), node)
		byKwok, notByKwok := nodeFile(orig, true), nodeFile(orig, false)
		DeferCleanup(func() {
			replaceNode(managed(cluster), node, byKwok)
			Eventually(func(g Gomega) {
				r := kubectl(managed(cluster), "get", "node", node, "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
				g.Expect(r.code).To(Equal(0), "%s", r)
				g.Expect(r.out).To(Equal("True"))
			}).WithTimeout(healthTimeout).WithPolling(time.Second).Should(Succeed(), "kwok makes %s Ready again", node)
			expectHealth(hub(), cluster, "True", false, "4/4 nodes Ready")
		})
		By("replacing " + node + " with one kwok does not run (kwok would make it Ready again), NotReady as if its kubelet died")
		replaceNode(managed(cluster), node, notByKwok)

		h := expectHealth(hub(), cluster, "False", true, "3/4 nodes Ready (75%), not Ready: "+node+", below the 80% required")
		Expect(h.Reason).To(Equal("NodesNotReady"))
		r := corral(cliTimeout, "get", "clusters", cluster, "--kubeconfig", hub())
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(r.out).To(MatchRegexp(`(?m)^%s\s+true\s+True\s+True\s+NodesNotReady\s.*%s:NoSelect`, cluster, healthTaint), "%s", r)
	})

	It("places on clusters with at least 8 CPUs allocatable in region eu-west, from the properties the addon reports", func() {
		const cluster = "cluster2"
		By("labelling " + cluster + "'s nodes with region eu-west, as a cloud would")
		r := kubectl(managed(cluster), "label", "nodes", "--all", "topology.kubernetes.io/region=eu-west")
		Expect(r.code).To(Equal(0), "%s", r)
		DeferCleanup(func() {
			r := kubectl(managed(cluster), "label", "nodes", "--all", "topology.kubernetes.io/region-")
			Expect(r.code).To(Equal(0), "%s", r)
		})
		Eventually(func(g Gomega) {
			r := kubectl(hub(), "get", "managedcluster", cluster, "-o",
				`jsonpath={.status.clusterClaims[?(@.name=="region.properties.corral.io")].value}`)
			g.Expect(r.code).To(Equal(0), "%s", r)
			g.Expect(r.out).To(Equal("eu-west"))
		}).WithTimeout(propertiesTimeout).WithPolling(2*time.Second).Should(Succeed(), "the region claim of %s on the hub", cluster)

		placement := func(name, cpus string) string {
			return fmt.Sprintf(`apiVersion: cluster.open-cluster-management.io/v1beta1
kind: Placement
metadata: {name: %s, namespace: %s}
spec:
  predicates:
  - requiredClusterSelector:
      claimSelector:
        matchExpressions:
        - {key: region.properties.corral.io, operator: In, values: [eu-west]}
      celSelector:
        celExpressions:
        - quantity(managedCluster.status.allocatable.cpu).compareTo(quantity("%s")) >= 0
`, name, healthNS, cpus)
		}
		applyYAML(hub(), placement("eu-west-8cpu", "8")+"---\n"+placement("eu-west-64cpu", "64"))
		expectDecisions(hub(), "eu-west-8cpu", cluster)
		Eventually(func(g Gomega) {
			r := kubectl(hub(), "-n", healthNS, "get", "placement", "eu-west-64cpu", "-o",
				`jsonpath={.status.conditions[?(@.type=="PlacementSatisfied")].status} {.status.numberOfSelectedClusters}`)
			g.Expect(r.code).To(Equal(0), "%s", r)
			g.Expect(r.out).To(Equal("False 0"), "no cluster has 64 CPUs allocatable")
		}).WithTimeout(healthTimeout).WithPolling(time.Second).Should(Succeed())
	})

	It("puts the health addon's default settings back", func() {
		r := corral(cliTimeout, "addon", "enable", "health", "--clusters", strings.Join(clusters, ","), "--config", "none", "--kubeconfig", hub())
		Expect(r.code).To(Equal(0), "%s", r)
		for _, cluster := range clusters {
			Expect(r.out).To(ContainSubstring("addon health updated on cluster "+cluster), "%s", r)
		}
		for _, cluster := range clusters {
			expectHealthSettings(hub(), cluster, "probing every 30s, stale after 1m30s, at least 50% of nodes Ready")
			expectHealth(hub(), cluster, "True", false, "4/4 nodes Ready")
		}
		r = kubectl(hub(), "delete", "namespace", healthNS, "--wait=false")
		Expect(r.code).To(Equal(0), "%s", r)
	})
}

// applyYAML applies manifests to the cluster of kubeconfig.
func applyYAML(kubeconfig, manifests string) {
	GinkgoHelper()
	file := filepath.Join(GinkgoT().TempDir(), "manifests.yaml")
	Expect(os.WriteFile(file, []byte(manifests), 0o644)).To(Succeed())
	r := kubectl(kubeconfig, "apply", "-f", file)
	Expect(r.code).To(Equal(0), "%s", r)
}

// expectHealthSettings waits until the health addon on cluster (of the
// hub of kubeconfig hub) runs with the settings its ConfigValid condition
// describes as want.
func expectHealthSettings(hub, cluster, want string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		r := kubectl(hub, "-n", cluster, "get", "managedclusteraddon", "health",
			"-o", `jsonpath={.status.conditions[?(@.type=="ConfigValid")].status} {.status.conditions[?(@.type=="ConfigValid")].message}`)
		g.Expect(r.code).To(Equal(0), "%s", r)
		g.Expect(r.out).To(HavePrefix("True "+want), "%s", r)
	}).WithTimeout(healthTimeout).WithPolling(time.Second).Should(Succeed(), "the health settings of %s", cluster)
}

// expectHealth waits until cluster's Healthy condition (on the hub of
// kubeconfig hub) has status, its
// message every one of message, and the unhealthy taint is there exactly
// when tainted; it returns what it saw last.
func expectHealth(hub, cluster, status string, tainted bool, message ...string) healthState {
	GinkgoHelper()
	var h healthState
	Eventually(func(g Gomega) {
		r := kubectl(hub, "get", "managedcluster", cluster, "-o", "json")
		g.Expect(r.code).To(Equal(0), "%s", r)
		var mc struct {
			Spec struct {
				Taints []struct{ Key, Effect string } `json:"taints"`
			} `json:"spec"`
			Status struct {
				Conditions []struct{ Type, Status, Reason, Message string } `json:"conditions"`
			} `json:"status"`
		}
		g.Expect(json.Unmarshal([]byte(r.out), &mc)).To(Succeed())
		h = healthState{}
		for _, c := range mc.Status.Conditions {
			if c.Type == healthCondition {
				h.Status, h.Reason, h.Message = c.Status, c.Reason, c.Message
			}
		}
		for _, t := range mc.Spec.Taints {
			h.Tainted = h.Tainted || (t.Key == healthTaint && t.Effect == "NoSelect")
		}
		g.Expect(h.Status).To(Equal(status), "%+v", h)
		g.Expect(h.Tainted).To(Equal(tainted), "%+v", h)
		for _, m := range message {
			g.Expect(h.Message).To(ContainSubstring(m), "%+v", h)
		}
	}).WithTimeout(healthTimeout).WithPolling(time.Second).Should(Succeed(), "the health of %s", cluster)
	return h
}

// decisions lists the clusters placement (in healthNS) decided on.
func decisions(g Gomega, hub, placement string) []string {
	r := kubectl(hub, "-n", healthNS, "get", "placementdecisions",
		"-l", "cluster.open-cluster-management.io/placement="+placement,
		"-o", "jsonpath={.items[*].status.decisions[*].clusterName}")
	g.Expect(r.code).To(Equal(0), "%s", r)
	decided := strings.Fields(r.out)
	slices.Sort(decided)
	return decided
}

// expectDecisions waits until placement decided on exactly want (sorted).
func expectDecisions(hub, placement string, want ...string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		g.Expect(decisions(g, hub, placement)).To(Equal(want))
	}).WithTimeout(healthTimeout).WithPolling(time.Second).Should(Succeed(), "the decisions of placement %s", placement)
}

// getNode reads node name of the cluster of kubeconfig as JSON.
func getNode(kubeconfig, name string) map[string]any {
	GinkgoHelper()
	r := kubectl(kubeconfig, "get", "node", name, "-o", "json")
	Expect(r.code).To(Equal(0), "%s", r)
	var node map[string]any
	Expect(json.Unmarshal([]byte(r.out), &node)).To(Succeed(), "%s", r)
	return node
}

// nodeFile writes a manifest of the node orig (as getNode read it), with
// the same name, labels and capacity: run by kwok, which makes it Ready,
// or not, NotReady. kwok forgets a node once it sees it deleted with its
// annotation, and never looks at one created without: patching a kwok
// node's status does not stick, kwok puts it back.
func nodeFile(orig map[string]any, byKwok bool) string {
	GinkgoHelper()
	meta := orig["metadata"].(map[string]any)
	status := orig["status"].(map[string]any)
	annotations := map[string]any{}
	for k, v := range meta["annotations"].(map[string]any) {
		if k != localcluster.KwokNodeAnnotation {
			annotations[k] = v
		}
	}
	newStatus := map[string]any{"capacity": status["capacity"], "allocatable": status["allocatable"]}
	if byKwok {
		annotations[localcluster.KwokNodeAnnotation] = localcluster.KwokNodeValue
	} else {
		newStatus["conditions"] = []any{map[string]any{"type": "Ready", "status": "False",
			"reason": "E2ENotReady", "message": "marked NotReady by the e2e test"}}
	}
	node := map[string]any{"apiVersion": "v1", "kind": "Node", "status": newStatus,
		"metadata": map[string]any{"name": meta["name"], "labels": meta["labels"], "annotations": annotations}}
	b, err := json.Marshal(node)
	Expect(err).NotTo(HaveOccurred())
	file := filepath.Join(GinkgoT().TempDir(), "node.json")
	Expect(os.WriteFile(file, b, 0o644)).To(Succeed())
	return file
}

// replaceNode deletes node name from the cluster of kubeconfig and
// creates it from file.
func replaceNode(kubeconfig, name, file string) {
	GinkgoHelper()
	r := kubectl(kubeconfig, "delete", "node", name, "--ignore-not-found")
	Expect(r.code).To(Equal(0), "%s", r)
	r = kubectl(kubeconfig, "create", "-f", file)
	Expect(r.code).To(Equal(0), "%s", r)
}

// componentPID is the pid of component (kube-apiserver, etcd…) of cluster
// in the fleet in dir, from its fleet.json.
func componentPID(dir, cluster, component string) int {
	GinkgoHelper()
	state, err := fleet.ReadState(dir)
	Expect(err).NotTo(HaveOccurred())
	for _, c := range state.Clusters {
		for _, comp := range c.Components {
			if c.Name == cluster && comp.Name == component {
				Expect(comp.PID).To(BeNumerically(">", 1), "fleet.json: %+v", state)
				return comp.PID
			}
		}
	}
	Fail(fmt.Sprintf("no %s of %s in fleet.json: %+v", component, cluster, state))
	return 0
}
