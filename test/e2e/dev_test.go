package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/corral-dev/corral/dev/fleet"
	"github.com/corral-dev/corral/dev/realnode"
)

// statusReport is the part of `corral dev status -o json` the specs read.
type statusReport struct {
	Phase      string `json:"phase"`
	Supervisor int    `json:"supervisorPID"`
	Running    bool   `json:"running"`
	Clusters   []struct {
		Name     string   `json:"name"`
		Health   string   `json:"health"`
		Problems []string `json:"problems"`
	} `json:"clusters"`
}

var _ = Describe("corral dev, on a fleet of a hub and 2 managed clusters", Ordered, func() {
	var dir, hubKubeconfig, cluster1Kubeconfig string
	var up result

	BeforeAll(func() {
		dir = newFleetDir()
		hubKubeconfig = filepath.Join(dir, "hub", "kubeconfig")
		cluster1Kubeconfig = filepath.Join(dir, "cluster1", "kubeconfig")
		up = startFleet(dir, "--clusters", "2")
	})

	It("dev up says the fleet is up, where the hub kubeconfig is, and writes HOWTO.txt", func() {
		Expect(up.out).To(ContainSubstring("The fleet is up"))
		Expect(up.out).To(ContainSubstring(hubKubeconfig))
		Expect(filepath.Join(dir, "HOWTO.txt")).To(BeAnExistingFile())
	})

	It("joins and accepts its managed clusters: the hub sees both joined and available", func() {
		r := corral(cliTimeout, "get", "clusters", "--kubeconfig", hubKubeconfig)
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(r.out).To(MatchRegexp(`(?m)^cluster1\s+true\s+True\s+True\s`))
		Expect(r.out).To(MatchRegexp(`(?m)^cluster2\s+true\s+True\s+True\s`))
		Expect(filepath.Join(dir, "cluster1", "hub-kubeconfig")).To(BeAnExistingFile(), "the agent's own hub kubeconfig")
	})

	It("runs the admission webhooks on its hub: clusters are in the default set, and moving one needs managedclustersets/join", func() {
		r := kubectl(hubKubeconfig, "get", "managedcluster", "cluster1", "-o", `jsonpath={.metadata.labels.cluster\.open-cluster-management\.io/clusterset}`)
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(r.out).To(Equal("default"))

		r = kubectl(hubKubeconfig, "create", "clusterrole", "e2e-cluster-editor", "--verb=get,update,patch",
			"--resource=managedclusters.cluster.open-cluster-management.io")
		Expect(r.code).To(Equal(0), "%s", r)
		r = kubectl(hubKubeconfig, "create", "clusterrolebinding", "e2e-cluster-editor", "--clusterrole=e2e-cluster-editor", "--user=e2e-editor")
		Expect(r.code).To(Equal(0), "%s", r)
		Eventually(func(g Gomega) { // until RBAC lets the user write clusters, the webhook then refuses
			r := kubectl(hubKubeconfig, "--as", "e2e-editor", "label", "managedcluster", "cluster1",
				"cluster.open-cluster-management.io/clusterset=e2e-set", "--overwrite")
			g.Expect(r.code).NotTo(Equal(0), "%s", r)
			g.Expect(r.errOut).To(ContainSubstring(`denied the request: user "e2e-editor" may not take managed cluster "cluster1" out of cluster set "default"`))
			g.Expect(r.errOut).To(ContainSubstring("managedclustersets/join"))
		}).WithTimeout(cliTimeout).WithPolling(time.Second).Should(Succeed())
	})

	It("enables the built-in work addon on both clusters: its agent runs with its own certificate and is Available", func() {
		for _, cluster := range []string{"cluster1", "cluster2"} {
			Eventually(func(g Gomega) {
				r := kubectl(hubKubeconfig, "-n", cluster, "get", "managedclusteraddon", "work",
					"-o", `jsonpath={.status.conditions[?(@.type=="Available")].status}`)
				g.Expect(r.code).To(Equal(0), "%s", r)
				g.Expect(r.out).To(Equal("True"))
			}).WithTimeout(3*time.Minute).WithPolling(2*time.Second).Should(Succeed(), "the work addon on %s", cluster)
		}
		r := kubectl(cluster1Kubeconfig, "-n", "open-cluster-management-agent-addon", "get", "secret", "work-hub-kubeconfig")
		Expect(r.code).To(Equal(0), "the work addon's own hub credentials: %s", r)
		r = corral(cliTimeout, "addon", "status", "work", "--kubeconfig", hubKubeconfig)
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(r.out).To(ContainSubstring("cluster1"))
	})

	It("runs the properties and health addons: get clusters shows each cluster Healthy with its version, nodes and capacity, and it has a ClusterProfile", func() {
		for _, cluster := range []string{"cluster1", "cluster2"} {
			Eventually(func(g Gomega) {
				r := corral(cliTimeout, "get", "clusters", cluster, "--kubeconfig", hubKubeconfig)
				g.Expect(r.code).To(Equal(0), "%s", r)
				// NAME ACCEPTED JOINED AVAILABLE HEALTH VERSION NODES CPU MEMORY …
				g.Expect(r.out).To(MatchRegexp(`(?m)^%s\s+true\s+True\s+True\s+Healthy\s+v1\.\d+\.\d+\S*\s+[1-9]\d*\s+\d+\S*\s+\d+\S*\s`, cluster))
			}).WithTimeout(3*time.Minute).WithPolling(2*time.Second).Should(Succeed(), "the health and properties of %s", cluster)
			r := kubectl(hubKubeconfig, "-n", "open-cluster-management", "get", "clusterprofiles.multicluster.x-k8s.io", cluster,
				"-o", `jsonpath={.status.conditions[?(@.type=="ControlPlaneHealthy")].status}`)
			Expect(r.code).To(Equal(0), "%s", r)
			Expect(r.out).To(Equal("True"))
		}
	})

	It("ends dev up with the sample app: a Placement and a ManifestWorkReplicaSet run a Deployment on both clusters, its readyReplicas fed back", func() {
		Expect(up.out).To(ContainSubstring("sample app: ready on 2 of 2 clusters"))
		Expect(up.out).To(MatchRegexp(`(?m)^cluster2\s+hello\s+Deployment default/hello\s+True\s+True\s+.*ReadyReplicas=2`))
		Expect(os.ReadFile(filepath.Join(dir, "HOWTO.txt"))).To(ContainSubstring("placement explain default/hello"))
		for _, cluster := range []string{"cluster1", "cluster2"} {
			r := kubectl(filepath.Join(dir, cluster, "kubeconfig"), "-n", "default", "get", "deployment", "hello",
				"-o", `jsonpath={.status.conditions[?(@.type=="Available")].status} {.status.readyReplicas}`)
			Expect(r.code).To(Equal(0), "%s", r)
			Expect(r.out).To(Equal("True 2"), "the sample Deployment on %s", cluster)
		}
		r := corral(cliTimeout, "work", "get", "hello", "--kubeconfig", hubKubeconfig)
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(r.out).To(MatchRegexp(`(?m)^cluster1\s+hello\s+Deployment default/hello\s+True\s+True\s+.*ReadyReplicas=2`))
		r = corral(cliTimeout, "placement", "explain", "default/hello", "--kubeconfig", hubKubeconfig)
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(r.out).To(ContainSubstring("cluster2"))
	})

	It("delivers a ManifestWork made on the hub to cluster1 through the work addon", func() {
		manifest := filepath.Join(GinkgoT().TempDir(), "work.yaml")
		Expect(os.WriteFile(manifest, []byte(`apiVersion: work.open-cluster-management.io/v1
kind: ManifestWork
metadata: {name: e2e-hello, namespace: cluster1}
spec:
  workload:
    manifests:
    - apiVersion: v1
      kind: ConfigMap
      metadata: {name: e2e-hello, namespace: default}
      data: {greeting: hello}
`), 0o644)).To(Succeed())
		r := kubectl(hubKubeconfig, "apply", "-f", manifest)
		Expect(r.code).To(Equal(0), "%s", r)
		Eventually(func(g Gomega) {
			r := kubectl(cluster1Kubeconfig, "-n", "default", "get", "configmap", "e2e-hello", "-o", "jsonpath={.data.greeting}")
			g.Expect(r.code).To(Equal(0), "%s", r)
			g.Expect(r.out).To(Equal("hello"))
		}).WithTimeout(2 * time.Minute).WithPolling(time.Second).Should(Succeed())
		Eventually(func(g Gomega) {
			r := kubectl(hubKubeconfig, "-n", "cluster1", "get", "manifestwork", "e2e-hello",
				"-o", `jsonpath={.status.conditions[?(@.type=="Applied")].status}`)
			g.Expect(r.code).To(Equal(0), "%s", r)
			g.Expect(r.out).To(Equal("True"))
		}).WithTimeout(2 * time.Minute).WithPolling(time.Second).Should(Succeed())
	})

	itRunsPodsOnRealNodes(&dir)       // the sample app answers; logs, exec, port-forward; kwok's taint
	itPropagatesHubObjects(&dir, &up) // a hub Deployment to both clusters: rollout status, image edit, rollback
	itRunsTheHelloAddon(&dir)         // examples/hello-addon, while work runs on both clusters
	itRunsTheHelloworldAddon(&dir)    // addon-framework's own example, as upstream ships it
	itRunsTheHealthAddon(&dir)        // health and properties: a frozen API server, a NotReady node, placement on properties

	It("disables the work addon on cluster2: its credentials go from the cluster", func() {
		r := corral(cliTimeout, "addon", "disable", "work", "--clusters", "cluster2", "--yes", "--kubeconfig", hubKubeconfig)
		Expect(r.code).To(Equal(0), "%s", r)
		cluster2Kubeconfig := filepath.Join(dir, "cluster2", "kubeconfig")
		Eventually(func(g Gomega) {
			r := kubectl(cluster2Kubeconfig, "-n", "open-cluster-management-agent-addon", "get", "secret", "work-hub-kubeconfig", "--ignore-not-found", "-o", "name")
			g.Expect(r.code).To(Equal(0), "%s", r)
			g.Expect(r.out).To(BeEmpty())
		}).WithTimeout(2 * time.Minute).WithPolling(time.Second).Should(Succeed())
	})

	It("serves the hub: kubectl get ns lists kube-system", func() {
		r := kubectl(hubKubeconfig, "get", "ns")
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(r.out).To(ContainSubstring("kube-system"))
	})

	It("runs a Deployment on cluster1 until it is Available with 3 Running pods", func() {
		// An image the fleet loaded: nothing is pulled here.
		r := kubectl(cluster1Kubeconfig, "create", "deployment", "web", "--image="+fleet.SampleImage, "--replicas=3")
		Expect(r.code).To(Equal(0), "%s", r)

		r = kubectl(cluster1Kubeconfig, "wait", "--for=condition=Available", "deployment/web", "--timeout=100s")
		Expect(r.code).To(Equal(0), "%s", r)

		Eventually(func(g Gomega) {
			r := kubectl(cluster1Kubeconfig, "get", "pods", "-l", "app=web", "-o", "jsonpath={.items[*].status.phase}")
			g.Expect(r.code).To(Equal(0), "%s", r)
			phases := strings.Fields(r.out)
			g.Expect(phases).To(HaveLen(3))
			g.Expect(phases).To(HaveEach("Running"))
		}).WithTimeout(2 * time.Minute).WithPolling(time.Second).Should(Succeed())
	})

	It("dev status reports the fleet running and every cluster Healthy, as JSON and as a table", func() {
		var report statusReport
		Eventually(func(g Gomega) {
			r := corral(cliTimeout, "dev", "status", "--dir", dir, "-o", "json")
			g.Expect(r.code).To(Equal(0), "%s", r)
			g.Expect(json.Unmarshal([]byte(r.out), &report)).To(Succeed(), "%s", r)
			// Health is one probe of each cluster: a busy moment may
			// report Unhealthy, and the next look Healthy.
			g.Expect(report.Running).To(BeTrue())
			g.Expect(report.Clusters).To(HaveLen(3))
			for _, c := range report.Clusters {
				g.Expect(c.Health).To(Equal("Healthy"), "cluster %s: %v", c.Name, c.Problems)
			}
		}).WithTimeout(2 * time.Minute).WithPolling(2 * time.Second).Should(Succeed())

		r := corral(cliTimeout, "dev", "status", "--dir", dir)
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(tableClusters(r.out)).To(Equal([]string{"hub", "cluster1", "cluster2"}), "%s", r)
	})

	It("refuses a second dev up on the running fleet, in one line naming dev down", func() {
		r := corral(upTimeout, "dev", "up", "--dir", dir)
		expectOneLineError(r, "already running", "dev down")
	})

	It("dev down --keep and dev up --reuse bring the hub back at its address: the agents heartbeat again and a work made after reaches cluster1", func() {
		server := func() string {
			GinkgoHelper()
			r := kubectl(hubKubeconfig, "config", "view", "-o", "jsonpath={.clusters[0].cluster.server}")
			Expect(r.code).To(Equal(0), "%s", r)
			return r.out
		}
		before := server()
		r := corral(downTimeout, "dev", "down", "--keep", "--dir", dir)
		Expect(r.code).To(Equal(0), "%s", r)
		expectNoProcessLeft(dir)
		r = corral(upTimeout, "dev", "up", "--reuse", "--clusters", "2", "--dir", dir)
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(r.out).To(ContainSubstring("reusing the data"))
		Expect(r.out).To(ContainSubstring("cluster1: joined the hub and available"))
		Expect(server()).To(Equal(before))

		manifest := filepath.Join(GinkgoT().TempDir(), "after.yaml")
		Expect(os.WriteFile(manifest, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: e2e-after-reuse, namespace: default}\n"), 0o644)).To(Succeed())
		r = corral(cliTimeout, "work", "create", "e2e-after-reuse", "-f", manifest, "--clusters", "cluster1", "--kubeconfig", hubKubeconfig)
		Expect(r.code).To(Equal(0), "%s", r)
		Eventually(func(g Gomega) {
			r := kubectl(cluster1Kubeconfig, "-n", "default", "get", "configmap", "e2e-after-reuse", "-o", "name")
			g.Expect(r.code).To(Equal(0), "%s", r)
		}).WithTimeout(2*time.Minute).WithPolling(time.Second).Should(Succeed(), "the work agent of the reused cluster1 applies a new work")
	})

	It("deletes cluster1 from the hub: what its works applied goes from it first, what a user made there stays, then its namespace goes", func() {
		r := kubectl(hubKubeconfig, "delete", "managedcluster", "cluster1", "--wait=false")
		Expect(r.code).To(Equal(0), "%s", r)
		gone := func(kubeconfig string, args ...string) {
			GinkgoHelper()
			Eventually(func(g Gomega) {
				r := kubectl(kubeconfig, append(args, "--ignore-not-found", "-o", "name")...)
				g.Expect(r.code).To(Equal(0), "%s", r)
				g.Expect(r.out).To(BeEmpty())
			}).WithTimeout(2*time.Minute).WithPolling(time.Second).Should(Succeed(), "%v", args)
		}
		gone(cluster1Kubeconfig, "-n", "default", "get", "configmap", "e2e-hello") // a ManifestWork's, made on the hub
		gone(cluster1Kubeconfig, "-n", "default", "get", "deployment", "hello")    // the sample app's
		gone(hubKubeconfig, "get", "namespace", "cluster1")
		r = kubectl(cluster1Kubeconfig, "-n", "default", "get", "deployment", "web", "-o", "name")
		Expect(r.code).To(Equal(0), "the Deployment made by hand on cluster1 stays: %s", r)
	})

	It("dev down stops every process of the fleet and removes its directory", func() {
		r := corral(downTimeout, "dev", "down", "--dir", dir)
		Expect(r.code).To(Equal(0), "%s", r)
		expectNoProcessLeft(dir)
		Expect(exists(dir)).To(BeFalse(), "%s is still there", dir)
	})
})

// tableClusters lists the first column of the rows under the CLUSTER header
// of `corral dev status`.
func tableClusters(out string) []string {
	var names []string
	inTable := false
	for _, line := range strings.Split(out, "\n") {
		fields := strings.Fields(line)
		switch {
		case len(fields) > 0 && fields[0] == "CLUSTER":
			inTable = true
		case inTable && len(fields) >= 6:
			names = append(names, fields[0])
		case inTable:
			return names
		}
	}
	return names
}

var _ = Describe("corral dev, given bad input,", func() {
	DescribeTable("dev up with a number it cannot use says which flag is wrong, and creates nothing",
		func(flag, value string) {
			dir := newFleetDir()
			r := corral(cliTimeout, "dev", "up", flag, value, "--dir", dir)
			expectOneLineError(r, flag+" is "+value)
			Expect(exists(dir)).To(BeFalse(), "dev up created %s though it could not start", dir)
		},
		Entry("no managed clusters", "--clusters", "-1"),
		Entry("no nodes", "--nodes", "0"),
		Entry("no time to get ready", "--timeout", "0s"),
	)

	It("dev up without the Kubernetes binaries says to run make tools", func() {
		dir := newFleetDir()
		r := command{bin: corralBin, args: []string{"dev", "up", "--dir", dir},
			env: []string{"CORRAL_BIN_DIR=" + GinkgoT().TempDir()}, timeout: cliTimeout}.run()
		expectOneLineError(r, "make tools")
		Expect(exists(dir)).To(BeFalse(), "dev up created %s though it could not start", dir)
	})

	It("dev status -o xml says --output is wrong", func() {
		r := corral(cliTimeout, "dev", "status", "-o", "xml", "--dir", GinkgoT().TempDir())
		expectOneLineError(r, "--output")
	})

	It("dev status on a directory without a fleet says to run dev up", func() {
		r := corral(cliTimeout, "dev", "status", "--dir", GinkgoT().TempDir())
		expectOneLineError(r, "dev up")
	})

	It("dev up refuses a directory holding a foreign file and names it", func() {
		dir := GinkgoT().TempDir()
		foreign := filepath.Join(dir, "thesis.tex")
		Expect(os.WriteFile(foreign, []byte("years of work\n"), 0o644)).To(Succeed())
		r := corral(cliTimeout, "dev", "up", "--dir", dir)
		expectOneLineError(r, "thesis.tex")
		Expect(foreign).To(BeAnExistingFile())
	})
})

var _ = Describe("corral dev, after kill -9 of its whole fleet,", Ordered, func() {
	var dir, id string
	var before machineState

	BeforeAll(func() {
		before = readMachineState()
		dir = newFleetDir()
		id = realnode.IDFor(dir)
		startFleet(dir, "--clusters", "1")
	})

	It("the real node's containers outlive the supervisor and every process that names the fleet", func() {
		record, err := fleet.ReadState(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(record.Supervisor).To(BeNumerically(">", 1), "fleet.json: %+v", record)
		// The control planes, the nodes' containerd, kubelet and
		// kube-proxy, and the shims, whose --address is in the fleet's
		// directory.
		procs := processesMentioning(dir)
		Expect(len(procs)).To(BeNumerically(">", 10), "%v", procs)
		Expect(syscall.Kill(record.Supervisor, syscall.SIGKILL)).To(Succeed())
		for _, p := range procs {
			pid, err := strconv.Atoi(strings.SplitN(p, ":", 2)[0])
			Expect(err).NotTo(HaveOccurred())
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		expectNoProcessLeft(dir)
		Expect(fleetCgroupProcesses(id)).NotTo(BeEmpty(), "the sample app's containers (and pause) are still running")
	})

	It("dev status exits non-zero", func() {
		r := corral(cliTimeout, "dev", "status", "--dir", dir)
		Expect(r.code).NotTo(Equal(0), "%s", r)
		Expect(r.errOut).To(ContainSubstring("not running"))
	})

	It("dev up removes what the killed fleet left, comes up clean and runs the sample app again", func() {
		r := corral(upTimeout, "dev", "up", "--clusters", "1", "--dir", dir)
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(r.out).To(ContainSubstring("did not shut down cleanly"))
		Expect(r.out).To(ContainSubstring("removing the data"))
		Expect(r.out).To(ContainSubstring("sample app: ready on 1 of 1 clusters"))
		Expect(portForwardGet(filepath.Join(dir, "cluster1", "kubeconfig"), "deployment/hello", "8080", "/")).To(Equal("hello from cluster1\n"))
	})

	It("dev down leaves nothing behind: no process, mount, cgroup, network namespace, link or nft/iptables rule it made", func() {
		r := corral(downTimeout, "dev", "down", "--dir", dir)
		Expect(r.code).To(Equal(0), "%s", r)
		expectNoProcessLeft(dir)
		Expect(fleetCgroupProcesses(id)).To(BeEmpty())
		Expect(exists(dir)).To(BeFalse(), "%s is still there", dir)
		after := readMachineState()
		Expect(after.Mounts).To(Equal(before.Mounts), "mounts")
		Expect(after.Cgroups).To(Equal(before.Cgroups), "cgroups")
		Expect(after.NetNS).To(Equal(before.NetNS), "network namespaces")
		Expect(after.Links).To(Equal(before.Links), "network links")
		Expect(after.NFT).To(Equal(before.NFT), "nftables rules")
		Expect(after.IPTables).To(Equal(before.IPTables), "iptables rules")
	})
})
