package e2e

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	"github.com/onsi/gomega/gexec"
)

// realNodeTimeout bounds a wait for pods on a real node: images are
// local, so it is the kubelet's and containerd's own pace.
const realNodeTimeout = 2 * time.Minute

// itRunsPodsOnRealNodes adds, to the Ordered container of a running fleet
// of a hub and cluster1 and cluster2 with the sample app, the specs of the
// real nodes as a user meets them: the sample app really runs on each
// cluster's real node and answers with its cluster's name over kubectl
// port-forward; kubectl logs and exec reach its pods; a pod that asks for
// kwok's nodes lands there and nowhere else. *dir is the fleet's
// directory.
func itRunsPodsOnRealNodes(dir *string) {
	managed := func(cluster string) string { return filepath.Join(*dir, cluster, "kubeconfig") }

	It("runs the sample app on each cluster's real node: it answers with its cluster's name over kubectl port-forward", func() {
		for _, cluster := range []string{"cluster1", "cluster2"} {
			r := kubectl(managed(cluster), "-n", "default", "get", "pods", "-l", "app=hello", "-o", "jsonpath={range .items[*]}{.spec.nodeName} {.status.phase}{\"\\n\"}{end}")
			Expect(r.code).To(Equal(0), "%s", r)
			Expect(strings.Fields(r.out)).To(Equal([]string{cluster + "-node", "Running", cluster + "-node", "Running"}), "the sample app's pods on %s", cluster)
			Expect(portForwardGet(managed(cluster), "deployment/hello", "8080", "/")).To(Equal("hello from " + cluster + "\n"))
		}
	})

	It("kubectl logs and exec reach the sample app's pods on cluster1's real node", func() {
		r := kubectl(managed("cluster1"), "-n", "default", "logs", "deployment/hello")
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(r.out).To(ContainSubstring("sampleapp: serving on :8080"))
		r = kubectl(managed("cluster1"), "-n", "default", "exec", "deployment/hello", "--", "/sample-app", "-get", "http://localhost:8080/healthz")
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(r.out).To(Equal("ok\n"), "the app, asked from inside its own container")
	})

	It("reaches the sample app through its ClusterIP Service from a pod on the node", func() {
		// The app's own image has no shell or client; the app itself is the
		// client: its /healthz is served, and a pod reaching the Service's
		// address proves kube-proxy's rules on the node.
		r := kubectl(managed("cluster2"), "-n", "default", "get", "service", "hello", "-o", "jsonpath={.spec.clusterIP}")
		Expect(r.code).To(Equal(0), "%s", r)
		clusterIP := r.out
		Expect(clusterIP).To(MatchRegexp(`^10\.0\.0\.\d+$`))
		r = kubectl(managed("cluster2"), "-n", "default", "exec", "deployment/hello", "--", "/sample-app", "-get", "http://"+clusterIP+"/")
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(r.out).To(Equal("hello from cluster2\n"))
	})

	It("puts a pod that tolerates kwok's taint on kwok's nodes, and one that does not on the real node", func() {
		r := kubectl(managed("cluster1"), "get", "nodes", "-l", "type=kwok", "-o", "jsonpath={.items[*].spec.taints[*].key}")
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(strings.Fields(r.out)).To(HaveEach("kwok.x-k8s.io/node"))
		manifest := writeManifest(`apiVersion: apps/v1
kind: Deployment
metadata: {name: scale, namespace: default}
spec:
  replicas: 6
  selector: {matchLabels: {app: scale}}
  template:
    metadata: {labels: {app: scale}}
    spec:
      nodeSelector: {type: kwok}
      tolerations: [{key: kwok.x-k8s.io/node, operator: Exists, effect: NoSchedule}]
      containers: [{name: app, image: example.com/not-pulled:v1}]
`)
		r = kubectl(managed("cluster1"), "apply", "-f", manifest)
		Expect(r.code).To(Equal(0), "%s", r)
		r = kubectl(managed("cluster1"), "-n", "default", "wait", "--for=condition=Available", "deployment/scale", "--timeout=100s")
		Expect(r.code).To(Equal(0), "%s", r)
		r = kubectl(managed("cluster1"), "-n", "default", "get", "pods", "-l", "app=scale", "-o", "jsonpath={.items[*].spec.nodeName}")
		Expect(r.code).To(Equal(0), "%s", r)
		nodes := strings.Fields(r.out)
		Expect(nodes).To(HaveLen(6))
		Expect(nodes).To(HaveEach(MatchRegexp(`^cluster1-node-\d$`)), "every pod on a kwok node")
		r = kubectl(managed("cluster1"), "-n", "default", "delete", "deployment", "scale")
		Expect(r.code).To(Equal(0), "%s", r)
	})

	It("dev status lists each managed cluster's real node with the sample app's pods on it, and none for the hub", func() {
		r := corral(cliTimeout, "dev", "status", "--dir", *dir)
		Expect(r.code).To(Equal(0), "%s", r)
		Expect(r.out).NotTo(MatchRegexp(`(?m)^hub-node\s`), "the hub runs no workloads")
		Expect(r.out).To(MatchRegexp(`(?m)^cluster1-node\s+true\s+default/hello-\S+\s+Running\s+1/1`))
	})
}

// portForwardGet runs kubectl port-forward to target's port on the cluster
// of kubeconfig, GETs path through it and returns the body.
func portForwardGet(kubeconfig, target, port, path string) string {
	GinkgoHelper()
	cmd := exec.Command(kubectlBin, "--kubeconfig", kubeconfig, "-n", "default", "port-forward", target, ":"+port)
	cmd.Env = environ()
	session, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	defer func() {
		session.Terminate()
		Eventually(session).WithTimeout(cliTimeout).Should(gexec.Exit())
	}()
	Eventually(session.Out).WithTimeout(realNodeTimeout).Should(gbytes.Say(`Forwarding from 127\.0\.0\.1:\d+ -> ` + port))
	local := regexp.MustCompile(`127\.0\.0\.1:(\d+) ->`).FindStringSubmatch(string(session.Out.Contents()))[1]
	var body string
	Eventually(func(g Gomega) {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%s%s", local, path))
		g.Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(resp.StatusCode).To(Equal(http.StatusOK), "%s", b)
		body = string(b)
	}).WithTimeout(cliTimeout).WithPolling(time.Second).Should(Succeed())
	return body
}

// writeManifest writes yaml to a file of the spec's and returns its path.
func writeManifest(yaml string) string {
	GinkgoHelper()
	path := filepath.Join(GinkgoT().TempDir(), "manifest.yaml")
	Expect(os.WriteFile(path, []byte(yaml), 0o644)).To(Succeed())
	return path
}
