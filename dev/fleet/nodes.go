package fleet

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterclient "open-cluster-management.io/api/client/cluster/clientset/versioned"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/corral-dev/corral/deploy/charts/corral-hub/crds"
	"github.com/corral-dev/corral/dev/image"
	"github.com/corral-dev/corral/dev/localcluster"
	"github.com/corral-dev/corral/dev/realnode"
	"github.com/corral-dev/corral/properties"
)

// The images a fleet builds from the programs in its bin dir and loads into
// every real node: nothing can be pulled on the machines it runs on.
const (
	// SampleImage is the sample app (dev/sampleapp).
	SampleImage = "localhost/corral/sample-app:dev"
	// HelloAddonImage is the example addon's agent (examples/hello-addon).
	HelloAddonImage = "localhost/corral/hello-addon:dev"
	// HelloworldImage is addon-framework's helloworld example, as `make
	// ocm-tools` builds it: its agent's Deployment gives the command,
	// /helloworld agent …, as args. Its hub half renders it when run with
	// EXAMPLE_IMAGE_NAME set to this.
	HelloworldImage = "localhost/corral/helloworld:dev"
	imagesDir       = "images"
)

// fleetImage is one image of the fleet and whether the fleet needs it.
type fleetImage struct {
	spec image.Spec
	// required images are loaded before a node starts: the pods' sandbox
	// and the sample app. The others, the example addons' agents, are
	// loaded while the clusters register, when `make examples` and `make
	// ocm-tools` have built them.
	required bool
}

// fleetImages are the images a fleet loads; the program of each is a file
// of the bin dir.
func fleetImages(binDir string) []fleetImage {
	bin := func(name string) string { return filepath.Join(binDir, name) }
	return []fleetImage{
		{image.Spec{Ref: realnode.PauseImage, Binary: bin("pause")}, true},
		{image.Spec{Ref: SampleImage, Binary: bin("sample-app")}, true},
		{image.Spec{Ref: HelloAddonImage, Binary: bin("hello-addon")}, false},
		{image.Spec{Ref: HelloworldImage, Binary: bin("ocm-helloworld"), Path: "/helloworld", Cmd: []string{"/helloworld"}}, false},
	}
}

// buildImages writes the archives of the fleet images that are required,
// or not, into <dir>/images and returns their paths.
func buildImages(binDir, dir string, required bool) ([]string, error) {
	out := filepath.Join(dir, imagesDir)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	var archives []string
	for _, fi := range fleetImages(binDir) {
		if fi.required != required {
			continue
		}
		if _, err := os.Stat(fi.spec.Binary); errors.Is(err, fs.ErrNotExist) && !fi.required {
			continue
		} else if err != nil {
			return nil, fmt.Errorf("image %s: %w (make images builds it)", fi.spec.Ref, err)
		}
		path := filepath.Join(out, filepath.Base(fi.spec.Binary)+".tar")
		if err := image.WriteFile(path, fi.spec); err != nil {
			return nil, err
		}
		archives = append(archives, path)
	}
	return archives, nil
}

// nodeSetup is what the fleet's real nodes share: the network, the bin dir
// the images' programs are in, and the archives of the required images.
type nodeSetup struct {
	network realnode.Network
	binDir  string
	images  []string
}

// setUpNodes builds the fleet's images and creates its network (removing
// what a crashed fleet in the same directory left), and records the
// network in state.
func setUpNodes(opts Options, state *State) (*nodeSetup, error) {
	binDir := opts.BinDir
	if binDir == "" {
		var err error
		if binDir, err = localcluster.FindBinDir(); err != nil {
			return nil, err
		}
	}
	images, err := buildImages(binDir, opts.Dir, true)
	if err != nil {
		return nil, err
	}
	network, err := realnode.CreateNetwork(realnode.IDFor(opts.Dir))
	if err != nil {
		return nil, err
	}
	state.Network = &network
	fmt.Fprintf(opts.Progress, "fleet: real nodes on %s (bridge %s), with images %s\n", network.HostIP(), network.Bridge(), strings.Join(imageNames(images), ", "))
	return &nodeSetup{network: network, binDir: binDir, images: images}, state.write()
}

// aside is work the fleet does while its clusters register.
type aside struct {
	wg   sync.WaitGroup
	mu   sync.Mutex
	errs []error
}

func (a *aside) do(f func() error) {
	a.wg.Go(func() {
		if err := f(); err != nil {
			a.mu.Lock()
			a.errs = append(a.errs, err)
			a.mu.Unlock()
		}
	})
}

// wait waits for all of it and says what failed.
func (a *aside) wait() error {
	a.wg.Wait()
	return errors.Join(a.errs...)
}

// startAside sets each managed cluster's id.k8s.io claim and, with real
// nodes, builds the addons' images and loads them into every node.
func startAside(ctx context.Context, opts Options, clusters []*localcluster.Cluster, nodes *nodeSetup) *aside {
	a := &aside{}
	for _, m := range clusters[1:] {
		a.do(func() error { return claimClusterID(ctx, m) })
	}
	if nodes == nil {
		return a
	}
	a.do(func() error {
		archives, err := buildImages(nodes.binDir, opts.Dir, false)
		if err != nil || len(archives) == 0 {
			return err
		}
		var load aside
		for _, c := range clusters {
			if hubNode(opts, c.Profile) {
				load.do(func() error { return c.Import(ctx, archives...) })
			}
		}
		if err := load.wait(); err != nil {
			return err
		}
		fmt.Fprintf(opts.Progress, "fleet: images %s loaded into every real node\n", strings.Join(imageNames(archives), ", "))
		return nil
	})
	return a
}

func imageNames(archives []string) []string {
	names := make([]string, len(archives))
	for i, a := range archives {
		names[i] = strings.TrimSuffix(filepath.Base(a), ".tar")
	}
	return names
}

// remove deletes the network, once the clusters have stopped.
func (n *nodeSetup) remove() { _ = n.network.Remove() }

// ClusterIDClaim is the well-known ClusterClaim (KEP-2149) holding a
// cluster's name, which the fleet sets on every managed cluster, as a
// platform team would: the sample app answers with it.
const ClusterIDClaim = "id.k8s.io"

// claimClusterID installs the ClusterClaim CRD on a managed cluster and
// sets its id.k8s.io claim to its name.
func claimClusterID(ctx context.Context, c *localcluster.Cluster) error {
	if err := crds.Install(ctx, c.Config, properties.ClusterClaimCRD); err != nil {
		return fmt.Errorf("%s: installing the %s CRD: %w", c.Name, properties.ClusterClaimCRD, err)
	}
	claim := &clusterv1alpha1.ClusterClaim{
		ObjectMeta: metav1.ObjectMeta{Name: ClusterIDClaim},
		Spec:       clusterv1alpha1.ClusterClaimSpec{Value: c.Name},
	}
	managed, err := clusterclient.NewForConfig(c.Config)
	if err != nil {
		return err
	}
	if _, err := managed.ClusterV1alpha1().ClusterClaims().Create(ctx, claim, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("%s: creating ClusterClaim %s: %w", c.Name, ClusterIDClaim, err)
	}
	return nil
}

// CheckRealNodes says, in one line, what this machine lacks to run real
// nodes: root, the programs, the images' programs.
func CheckRealNodes(binDir string) error {
	if os.Geteuid() != 0 {
		return errors.New("real nodes need root (network namespaces, cgroups, mounts): run as root, or pass --real-nodes=false")
	}
	if missing := missingPrograms(); len(missing) > 0 {
		return fmt.Errorf("real nodes need %s: apt-get install containerd runc containernetworking-plugins iproute2 nftables iptables, or pass --real-nodes=false", strings.Join(missing, ", "))
	}
	for _, fi := range fleetImages(binDir) {
		if fi.required && !fileExists(fi.spec.Binary) {
			return fmt.Errorf("%s is missing, which image %s is made of: run make images, or pass --real-nodes=false", fi.spec.Binary, fi.spec.Ref)
		}
	}
	for _, b := range []string{"kubelet", "kube-proxy"} {
		if !fileExists(filepath.Join(binDir, b)) {
			return fmt.Errorf("%s is missing from %s: run make tools, or pass --real-nodes=false", b, binDir)
		}
	}
	return nil
}

// missingPrograms lists what real nodes run that this machine lacks: the
// programs on PATH, and the CNI plugins.
func missingPrograms() []string {
	var missing []string
	for _, p := range []string{"containerd", "containerd-shim-runc-v2", "runc", "ctr", "ip", "nsenter", "unshare", "nft", "iptables"} {
		if _, err := exec.LookPath(p); err != nil {
			missing = append(missing, p)
		}
	}
	if realnode.FindCNIBinDir() == "" {
		missing = append(missing, "the CNI plugins (in "+strings.Join(realnode.CNIBinDirs, " or ")+")")
	}
	return missing
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Load imports an image archive into the real node of cluster c.
func Load(ctx context.Context, c ClusterState, archive string) error {
	n := realnode.Node{Name: c.Node, Dir: filepath.Join(c.Dir, localcluster.NodeDir)}
	return n.Import(ctx, archive)
}
