// Package interop_test proves that corral speaks OCM's protocols both ways
// round, with upstream Open Cluster Management's own registration, work,
// placement and addon-manager binaries (open-cluster-management.io/ocm
// cmd/registration, cmd/work, cmd/placement and cmd/addon, built by `make
// tools` into bin/ocm-*) and the addon framework's helloworld example addon
// (bin/ocm-helloworld):
//
//   - an unmodified OCM registration agent joins a corral hub, and OCM's
//     work agent, with the identity the hub issued, applies the hub's
//     ManifestWorks;
//   - a corral agent joins a hub run by OCM's registration controller, and
//     corral's work agent, with the identity OCM's controller issued,
//     applies that hub's ManifestWorks;
//   - on either hub (the OCM one with OCM's addon manager), the helloworld
//     addon, its hub half run against that hub, is enabled with corral's
//     CLI, delivered and registered by the other side's agents, becomes
//     Available, and its agent works with the credentials it was given;
//   - OCM's placement controller and corral's scheduler choose the same
//     clusters for the same Placements.
//
// Every cluster is a real etcd and kube-apiserver (dev/localcluster);
// the upstream binary runs as a child process whose log is printed when a
// spec fails.
package interop_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2/textlogger"
	clusterclient "open-cluster-management.io/api/client/cluster/clientset/versioned"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/deploy/charts/corral-hub/crds"
	"github.com/corral-dev/corral/dev/localcluster"
	registrationcli "github.com/corral-dev/corral/registration/cli"
	"github.com/corral-dev/corral/registration/common"
)

func TestInterop(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "OCM interoperability")
}

// Timeouts sized for a busy 2-core machine.
const (
	// timeout bounds each wait for the other side to act.
	timeout = 90 * time.Second
	// leaseSeconds is the lease period of the joined clusters: short, so
	// that a renewal is seen within seconds, long enough that a busy
	// machine does not make a lease look stale.
	leaseSeconds = 4
)

// Upstream OCM's binaries.
const (
	ocmRegistration = "ocm-registration"
	ocmWork         = "ocm-work"
	ocmPlacement    = "ocm-placement"
	ocmAddon        = "ocm-addon"
	ocmHelloworld   = "ocm-helloworld"
)

// clusters the suite runs: a hub and a managed cluster for each direction.
var (
	binDir                             string
	corralHub, ocmHub                  *localcluster.Cluster
	managedByOCMAgent, managedByCorral *localcluster.Cluster
)

var _ = BeforeSuite(func(ctx context.Context) {
	var err error
	binDir, err = localcluster.FindBinDir()
	Expect(err).NotTo(HaveOccurred())
	for _, upstream := range []string{ocmRegistration, ocmWork, ocmPlacement, ocmAddon, ocmHelloworld} {
		if _, err := os.Stat(filepath.Join(binDir, upstream)); err != nil {
			Fail(fmt.Sprintf("%s is missing from %s: run make tools", upstream, binDir))
		}
	}

	By("starting two hubs and two managed clusters")
	targets := []**localcluster.Cluster{&corralHub, &ocmHub, &managedByOCMAgent, &managedByCorral}
	names := []string{"corral-hub", "ocm-hub", "managed-ocm-agent", "managed-corral-agent"}
	errs := make([]error, len(targets))
	var wg sync.WaitGroup
	for i := range targets {
		opts := clusterOptions(names[i])
		if targets[i] == &managedByOCMAgent || targets[i] == &managedByCorral {
			// The helloworld addon's Deployment must really become
			// Available there: a scheduler, the workload controllers and
			// a (kwok) node.
			opts.Profile, opts.Nodes = localcluster.ProfileManaged, 1
		}
		wg.Go(func() {
			*targets[i], errs[i] = localcluster.Start(ctx, opts)
		})
	}
	wg.Wait()
	for i, c := range targets {
		if *c != nil {
			DeferCleanup((*c).Stop)
		}
		Expect(errs[i]).NotTo(HaveOccurred(), "starting %s", names[i])
	}
}, NodeTimeout(localcluster.DefaultStartTimeout+time.Minute))

// clusterOptions are those of the control planes the suite starts: a
// hub profile (no kube-scheduler, no nodes) from bin/.
func clusterOptions(name string) localcluster.Options {
	return localcluster.Options{Name: name, Profile: localcluster.ProfileHub, Dir: GinkgoT().TempDir(), BinDir: binDir, Progress: GinkgoWriter}
}

// logs are the log files of what the specs run; a failed spec prints
// their tails.
var logs struct {
	sync.Mutex
	files []string
}

func trackLog(path string) {
	logs.Lock()
	defer logs.Unlock()
	logs.files = append(logs.files, path)
}

var _ = AfterEach(func() {
	if !CurrentSpecReport().Failed() {
		return
	}
	logs.Lock()
	defer logs.Unlock()
	for _, f := range logs.files {
		if _, err := os.Stat(f); err != nil {
			continue // a finished container's
		}
		fmt.Fprintf(GinkgoWriter, "\n===== last lines of %s\n%s\n", f, tail(f, 100))
	}
})

// tail is the last n lines of the file at path.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

// fileLogger is a logger writing to a new file in the spec's temporary
// directory, named name.log, tracked for printing on failure.
func fileLogger(name string) logr.Logger {
	path := filepath.Join(GinkgoT().TempDir(), name+".log")
	f, err := os.Create(path)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(f.Close)
	trackLog(path)
	return textlogger.NewLogger(textlogger.NewConfig(textlogger.Output(f), textlogger.Verbosity(4)))
}

// startUpstream runs the upstream binary (ocmRegistration, ocmWork,
// ocmPlacement, ocmAddon, ocmHelloworld) with args, its output in a log
// file named after name, until the spec (or container) ends or the
// returned func is called; it is then stopped by its pid.
func startUpstream(binary, name string, args ...string) (stop func()) {
	dir := GinkgoT().TempDir()
	logPath := filepath.Join(dir, name+".log")
	logFile, err := os.Create(logPath)
	Expect(err).NotTo(HaveOccurred())
	defer logFile.Close() // the child has its own descriptor
	trackLog(logPath)

	cmd := exec.Command(filepath.Join(binDir, binary), args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Its self-signed serving certificate goes to a temporary directory.
	cmd.Env = append(os.Environ(), "TMPDIR="+dir)
	// Its own process group, and killed if the test process dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	Expect(cmd.Start()).To(Succeed())
	fmt.Fprintf(GinkgoWriter, "started %s (pid %d): %s %v; log %s\n", name, cmd.Process.Pid, binary, args, logPath)
	exited := make(chan struct{})
	go func() {
		err := cmd.Wait()
		// Say so in its log: an exit nobody asked for explains a failure.
		if f, ferr := os.OpenFile(logPath, os.O_APPEND|os.O_WRONLY, 0); ferr == nil {
			fmt.Fprintf(f, "==== %s exited: %v\n", name, err)
			f.Close()
		}
		close(exited)
	}()
	stop = sync.OnceFunc(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	})
	DeferCleanup(stop)
	return stop
}

// storedKubeconfig waits until an agent has stored, at path, a hub
// kubeconfig that loads with the certificate files it names, and returns
// its client configuration.
func storedKubeconfig(ctx context.Context, path string) *rest.Config {
	GinkgoHelper()
	var cfg *rest.Config
	Eventually(func() (err error) {
		if cfg, err = clientcmd.BuildConfigFromFlags("", path); err != nil {
			return err
		}
		return rest.LoadTLSFiles(cfg)
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed(), "the agent has stored its hub kubeconfig at %s", path)
	return cfg
}

// expectPortsFree fails the spec, saying why, when something already
// listens on one of ports (":8443"): an upstream binary that always
// listens there, having no flag to say otherwise, would exit at once.
func expectPortsFree(binary string, ports ...string) {
	GinkgoHelper()
	for _, port := range ports {
		l, err := net.Listen("tcp", port)
		Expect(err).NotTo(HaveOccurred(), "%s always listens on %s, which something on this machine holds", binary, port)
		Expect(l.Close()).To(Succeed())
	}
}

// cliVerb is the options of one corral CLI verb.
type cliVerb interface {
	Validate() error
	Complete() error
	Run(context.Context) error
}

// runVerb runs a verb's options as its command does.
func runVerb(ctx context.Context, o cliVerb) error {
	if err := o.Validate(); err != nil {
		return err
	}
	if err := o.Complete(); err != nil {
		return err
	}
	return o.Run(ctx)
}

// listenFlag is the --listen flag OCM's controller and agent commands
// (library-go's) need: their health endpoint on a free loopback port, as
// their default, 8443 on every address, would collide with anything else
// on the machine, and with port 0 library-go serves nothing and panics.
// The helloworld example has no such flag: it always listens on :8443
// (startHelloworld).
func listenFlag() string { return fmt.Sprintf("--listen=127.0.0.1:%d", freePort()) }

// freePort is a loopback port that was free a moment ago.
func freePort() int {
	GinkgoHelper()
	port, err := localcluster.FreePort()
	Expect(err).NotTo(HaveOccurred())
	return port
}

// installManagedCRDs installs the CRDs OCM's klusterlet puts on a managed
// cluster: ClusterClaims (which the upstream agent reports) and
// AppliedManifestWorks.
func installManagedCRDs(ctx context.Context, cfg *rest.Config) {
	GinkgoHelper()
	Expect(crds.Install(ctx, cfg, "clusterclaims.cluster.open-cluster-management.io",
		"appliedmanifestworks.work.open-cluster-management.io")).To(Succeed())
}

// acceptWhenAsked waits for cluster's agent to ask to join (its
// ManagedCluster and CSR are on the hub), runs what the hub admin would
// first run (prepare, e.g. set the lease period) and then `corral accept
// cluster`.
func acceptWhenAsked(ctx context.Context, hub *localcluster.Cluster, cluster string, prepare func()) {
	GinkgoHelper()
	kube := kubernetes.NewForConfigOrDie(hub.Config)
	Eventually(func(g Gomega) {
		_, err := clusterclient.NewForConfigOrDie(hub.Config).ClusterV1().ManagedClusters().Get(ctx, cluster, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred(), "%s's agent has created its ManagedCluster", cluster)
		csrs, err := kube.CertificatesV1().CertificateSigningRequests().List(ctx, metav1.ListOptions{
			LabelSelector: clusterv1.ClusterNameLabelKey + "=" + cluster,
		})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(csrs.Items).NotTo(BeEmpty(), "%s's agent has asked for a certificate", cluster)
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	if prepare != nil {
		prepare()
	}
	var out bytes.Buffer
	o := registrationcli.NewAcceptOptions(io.MultiWriter(&out, GinkgoWriter))
	o.Hub.Kubeconfig = hub.Kubeconfig
	o.Clusters = []string{cluster}
	Expect(runVerb(ctx, o)).To(Succeed())
	Expect(out.String()).To(ContainSubstring("approved join request"), "corral accept approved the agent's CSR")
}

// setLeaseDuration sets cluster's lease period as a hub admin would.
func setLeaseDuration(ctx context.Context, hub *localcluster.Cluster, cluster string, seconds int) {
	GinkgoHelper()
	clusters := clusterclient.NewForConfigOrDie(hub.Config)
	patch := fmt.Appendf(nil, `{"spec":{"leaseDurationSeconds":%d}}`, seconds)
	_, err := clusters.ClusterV1().ManagedClusters().Patch(ctx, cluster, "application/merge-patch+json", patch, metav1.PatchOptions{})
	Expect(err).NotTo(HaveOccurred())
}

// expectJoined waits until cluster is accepted, joined and available.
func expectJoined(ctx context.Context, hub *localcluster.Cluster, cluster string) *clusterv1.ManagedCluster {
	GinkgoHelper()
	clusters := clusterclient.NewForConfigOrDie(hub.Config)
	var mc *clusterv1.ManagedCluster
	Eventually(func(g Gomega) {
		var err error
		mc, err = clusters.ClusterV1().ManagedClusters().Get(ctx, cluster, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		for _, t := range []string{
			clusterv1.ManagedClusterConditionHubAccepted, clusterv1.ManagedClusterConditionJoined, clusterv1.ManagedClusterConditionAvailable,
		} {
			g.Expect(meta.IsStatusConditionTrue(mc.Status.Conditions, t)).To(BeTrue(), "%s is True; conditions: %v", t, mc.Status.Conditions)
		}
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	return mc
}

// expectLeaseRenewed waits until cluster's lease on the hub is renewed
// twice after now: its agent keeps heartbeating.
func expectLeaseRenewed(ctx context.Context, hub *localcluster.Cluster, cluster string) {
	GinkgoHelper()
	kube := kubernetes.NewForConfigOrDie(hub.Config)
	renewTime := func(g Gomega) time.Time {
		lease, err := kube.CoordinationV1().Leases(cluster).Get(ctx, common.LeaseName, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(lease.Spec.RenewTime).NotTo(BeNil())
		return lease.Spec.RenewTime.Time
	}
	last := time.Now()
	for range 2 {
		Eventually(func(g Gomega) {
			t := renewTime(g)
			g.Expect(t).To(BeTemporally(">", last), "the lease was renewed after %s", last)
			last = t
		}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
	}
}
