package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"

	"github.com/corral-dev/corral/dev/localcluster"
)

var _ = Describe("corral init and corral hub, on a fleet's hub", Ordered, func() {
	var hubKubeconfig string

	BeforeAll(func() {
		dir := newFleetDir()
		hubKubeconfig = filepath.Join(dir, "hub", "kubeconfig")
		startFleet(dir, "--clusters", "0")
	})

	It("corral init --deploy=false, on a hub dev up prepared, puts back the bootstrap identity it lost and prints the join line", func() {
		// dev up ran init --deploy=false in its own process (its hub runs
		// in the supervisor); what that installs is there already. Take
		// the bootstrap identity away so that this run has something to do.
		r := kubectl(hubKubeconfig, "-n", "open-cluster-management", "delete", "serviceaccount", "agent-registration-bootstrap")
		Expect(r.code).To(Equal(0), "%s", r)
		r = kubectl(hubKubeconfig, "delete", "clusterrole", "system:open-cluster-management:bootstrap")
		Expect(r.code).To(Equal(0), "%s", r)

		r = corral(cliTimeout, "init", "--deploy=false", "--kubeconfig", hubKubeconfig)
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(r.out).To(MatchRegexp(`corral join --hub-apiserver https://[0-9.]+:\d+ --hub-token \S{100,} --cluster-name <cluster-name>`))
		Expect(r.out).To(MatchRegexp(`the token is valid for 1h0m0s \(until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)`), "the lifetime the API server gave it")

		r = kubectl(hubKubeconfig, "-n", "open-cluster-management", "get", "serviceaccount", "agent-registration-bootstrap")
		Expect(r.code).To(Equal(0), "%s", r)
		r = kubectl(hubKubeconfig, "get", "clusterrole", "system:open-cluster-management:bootstrap")
		Expect(r.code).To(Equal(0), "%s", r)

		By("being safe to run again")
		r = corral(cliTimeout, "init", "--deploy=false", "--kubeconfig", hubKubeconfig)
		Expect(r.code).To(Equal(0), "%s", r)
	})

	It("corral hub runs beside the fleet's own hub: it takes the leader Lease corral-hub, and keeps running while a cluster is accepted", func() {
		// dev up runs the hub's controllers in its own process, without
		// leader election: the Lease corral-hub is corral hub's alone.
		r := kubectl(hubKubeconfig, "-n", "open-cluster-management", "get", "lease", "corral-hub")
		Expect(r.code).NotTo(Equal(0), "the Lease corral-hub exists before corral hub runs:\n%s", r)
		Expect(r.errOut).To(ContainSubstring("NotFound"))

		// A free webhook port: 9443, the default, may be another hub's.
		port, err := localcluster.FreePort()
		Expect(err).NotTo(HaveOccurred())
		cmd := exec.Command(corralBin, "hub", "--kubeconfig", hubKubeconfig, "--webhook-port", strconv.Itoa(port))
		cmd.Env = environ()
		session, err := gexec.Start(cmd, gexec.NewPrefixedWriter("[corral hub] ", GinkgoWriter), gexec.NewPrefixedWriter("[corral hub] ", GinkgoWriter))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() {
			session.Terminate()
			Eventually(session).WithTimeout(cliTimeout).Should(gexec.Exit())
		})
		Eventually(func(g Gomega) {
			r := kubectl(hubKubeconfig, "-n", "open-cluster-management", "get", "lease", "corral-hub", "-o", "jsonpath={.spec.holderIdentity}")
			g.Expect(r.code).To(Equal(0), "%s", r)
			g.Expect(strings.TrimSpace(r.out)).NotTo(BeEmpty())
		}).WithTimeout(2*time.Minute).WithPolling(time.Second).Should(Succeed(), "corral hub did not become the leader")

		manifest := filepath.Join(GinkgoT().TempDir(), "c1.yaml")
		Expect(os.WriteFile(manifest, []byte(`apiVersion: cluster.open-cluster-management.io/v1
kind: ManagedCluster
metadata: {name: e2e-c1}
spec: {hubAcceptsClient: true, leaseDurationSeconds: 60}
`), 0o644)).To(Succeed())
		r = kubectl(hubKubeconfig, "apply", "-f", manifest)
		Expect(r.code).To(Equal(0), "%s", r)

		// The fleet's controllers accept it too: this shows only that
		// corral hub, leading, keeps running while they do.
		Eventually(func(g Gomega) {
			r := kubectl(hubKubeconfig, "get", "managedcluster", "e2e-c1", "-o",
				`jsonpath={.status.conditions[?(@.type=="HubAcceptedManagedCluster")].status}`)
			g.Expect(r.code).To(Equal(0), "%s", r)
			g.Expect(strings.TrimSpace(r.out)).To(Equal("True"))
		}).WithTimeout(2 * time.Minute).WithPolling(time.Second).Should(Succeed())
		r = kubectl(hubKubeconfig, "get", "namespace", "e2e-c1")
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(session.ExitCode()).To(Equal(-1), "corral hub should still be running")
	})

	It("corral get clusters lists it, as a table and as JSON", func() {
		r := corral(cliTimeout, "get", "clusters", "--kubeconfig", hubKubeconfig)
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(r.out).To(MatchRegexp(`(?m)^NAME\s+ACCEPTED\s+JOINED\s+AVAILABLE\s+HEALTH\s+VERSION\s+NODES\s+CPU\s+MEMORY\s+AGE\s+SETS\s+TAINTS$`))
		Expect(r.out).To(MatchRegexp(`(?m)^e2e-c1\s+true\s`))

		r = corral(cliTimeout, "get", "clusters", "e2e-c1", "-o", "json", "--kubeconfig", hubKubeconfig)
		Expect(r.code).To(Equal(0), "%s", r)
		var shown struct {
			Kind     string
			Metadata struct{ Name string } `json:"metadata"`
		}
		Expect(json.Unmarshal([]byte(r.out), &shown)).To(Succeed(), "%s", r)
		Expect(shown.Kind).To(Equal("ManagedCluster"), "one cluster asked for by name is printed itself, as kubectl does")
		Expect(shown.Metadata.Name).To(Equal("e2e-c1"))

		expectOneLineError(corral(cliTimeout, "get", "clusters", "ghost", "--kubeconfig", hubKubeconfig), "no such cluster", "ghost")
	})

	It("corral accept refuses a cluster that never asked to join, in one line", func() {
		expectOneLineError(corral(cliTimeout, "accept", "ghost", "--kubeconfig", hubKubeconfig), "ghost has not asked to join", "nothing was changed")
	})

	It("corral accept accepts a waiting cluster, and says its agent has not asked for a certificate yet", func() {
		manifest := filepath.Join(GinkgoT().TempDir(), "c2.yaml")
		Expect(os.WriteFile(manifest, []byte(`apiVersion: cluster.open-cluster-management.io/v1
kind: ManagedCluster
metadata: {name: e2e-c2}
spec: {hubAcceptsClient: false}
`), 0o644)).To(Succeed())
		Expect(kubectl(hubKubeconfig, "apply", "-f", manifest).code).To(Equal(0))
		r := corral(cliTimeout, "accept", "e2e-c2", "--kubeconfig", hubKubeconfig)
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(r.out).To(ContainSubstring("e2e-c2: accepted"))
		Expect(r.out).To(ContainSubstring("has not asked for a certificate yet"))
		r = kubectl(hubKubeconfig, "get", "managedcluster", "e2e-c2", "-o", "jsonpath={.spec.hubAcceptsClient}")
		Expect(strings.TrimSpace(r.out)).To(Equal("true"))
	})
})

var _ = Describe("corral join, given a hub it cannot reach,", func() {
	It("says so in one line, and what to pass", func() {
		kubeconfig := unreachableKubeconfig()
		r := corral(cliTimeout, "join", "--hub-apiserver", "https://127.0.0.1:1", "--hub-token", "t", "--cluster-name", "c1", "--kubeconfig", kubeconfig)
		expectOneLineError(r, "https://127.0.0.1:1", "--ca-file")
	})
})

var _ = Describe("corral init, given bad input,", func() {
	It("says which kubeconfig it could not use", func() {
		r := corral(cliTimeout, "init", "--kubeconfig", filepath.Join(GinkgoT().TempDir(), "missing"))
		expectOneLineError(r, "--kubeconfig")
	})

	It("refuses a token lifetime the API server would refuse", func() {
		kubeconfig := unreachableKubeconfig()
		r := corral(cliTimeout, "init", "--token-ttl", "1m", "--kubeconfig", kubeconfig)
		expectOneLineError(r, "--token-ttl", "10m")
	})
})

// unreachableKubeconfig is a kubeconfig for a cluster nobody serves.
func unreachableKubeconfig() string {
	kubeconfig := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
	Expect(os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`), 0o600)).To(Succeed())
	return kubeconfig
}
