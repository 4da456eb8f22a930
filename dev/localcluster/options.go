package localcluster

import (
	"errors"
	"fmt"
	"io"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/corral-dev/corral/dev/realnode"
)

// Profile says which components a local cluster runs.
type Profile string

const (
	// ProfileHub runs etcd, kube-apiserver and the kube-controller-manager
	// controllers a hub needs: CSR signing, namespace deletion, garbage
	// collection, service-account tokens and role aggregation.
	ProfileHub Profile = "hub"
	// ProfileManaged runs everything a hub does, every controller, plus
	// kube-scheduler and kwok with fake nodes, so workloads really run.
	ProfileManaged Profile = "managed"
)

// NodeResources is the capacity of each fake node of a managed cluster.
type NodeResources struct {
	CPU    resource.Quantity
	Memory resource.Quantity
	Pods   resource.Quantity
}

// Options says what to start and where.
type Options struct {
	// Name names the cluster in logs, errors and kubeconfig contexts.
	Name string
	// Profile is ProfileHub or ProfileManaged.
	Profile Profile
	// Dir is the cluster's data directory. It is created if missing and
	// locked while the cluster runs.
	Dir string
	// BinDir holds the binaries; empty means FindBinDir.
	BinDir string
	// Nodes is how many fake nodes a managed cluster gets.
	Nodes int
	// NodeResources is each fake node's capacity.
	NodeResources NodeResources
	// Reuse keeps the data (PKI, etcd) of an earlier run found in Dir;
	// otherwise such data is removed. Either way Progress says which.
	Reuse bool
	// SigningDuration is how long the client certificates the cluster's
	// CSR signer issues stay valid; zero means kube-controller-manager's
	// default (a year). Short ones let tests see certificates rotate.
	SigningDuration time.Duration
	// StartTimeout bounds the wait for every component to become ready.
	StartTimeout time.Duration
	// RealNode, when set, gives the cluster a real node (realnode) at this
	// place on the fleet's network. The API server then listens on the
	// network's host address, where the node and its pods reach it, not
	// on loopback; and kwok's nodes are tainted (KwokToleration), so that
	// what does not ask for them runs on the real node.
	RealNode *realnode.NodeNet
	// HostIP, without a RealNode, is a fleet network's host address for
	// the API server to listen on, instead of loopback, so that the pods
	// of the other clusters' real nodes reach it (a hub without a node of
	// its own, whose addons' agents run on the managed clusters).
	HostIP string
	// Images are image archives the real node imports before it starts.
	Images []string
	// Progress receives one line per step, for people; nil discards them.
	Progress io.Writer
}

// Defaults for Options fields left zero.
const (
	DefaultNodes        = 3
	DefaultStartTimeout = 2 * time.Minute
)

// DefaultNodeResources is a modest node: 8 CPUs, 32Gi, 110 pods.
func DefaultNodeResources() NodeResources {
	return NodeResources{
		CPU:    resource.MustParse("8"),
		Memory: resource.MustParse("32Gi"),
		Pods:   resource.MustParse("110"),
	}
}

func (o *Options) complete() error {
	if o.Profile == "" {
		o.Profile = ProfileHub
	}
	if o.Profile == ProfileManaged && o.Nodes == 0 {
		o.Nodes = DefaultNodes
	}
	def := DefaultNodeResources()
	for _, q := range []struct{ field, fallback *resource.Quantity }{
		{&o.NodeResources.CPU, &def.CPU}, {&o.NodeResources.Memory, &def.Memory}, {&o.NodeResources.Pods, &def.Pods},
	} {
		if q.field.IsZero() {
			*q.field = *q.fallback
		}
	}
	if o.StartTimeout == 0 {
		o.StartTimeout = DefaultStartTimeout
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	if o.BinDir == "" {
		dir, err := FindBinDir()
		if err != nil {
			return err
		}
		o.BinDir = dir
	}
	return o.validate()
}

func (o *Options) validate() error {
	var errs []error
	if msgs := validation.IsDNS1123Label(o.Name); len(msgs) > 0 {
		errs = append(errs, fmt.Errorf("cluster name %q is not a DNS label: %s", o.Name, msgs[0]))
	}
	if o.Profile != ProfileHub && o.Profile != ProfileManaged {
		errs = append(errs, fmt.Errorf("profile %q is unknown: use %q or %q", o.Profile, ProfileHub, ProfileManaged))
	}
	if o.Dir == "" {
		errs = append(errs, errors.New("a data directory is required"))
	}
	if o.Nodes < 0 {
		errs = append(errs, fmt.Errorf("nodes is %d: it cannot be negative", o.Nodes))
	}
	if o.SigningDuration < 0 {
		errs = append(errs, fmt.Errorf("signing duration is %s: it cannot be negative", o.SigningDuration))
	}
	return errors.Join(errs...)
}
