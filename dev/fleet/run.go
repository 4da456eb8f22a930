package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/addons"
	"github.com/corral-dev/corral/dev/localcluster"
	"github.com/corral-dev/corral/internal/hubclient"
)

// Options says what fleet to run.
type Options struct {
	// Dir holds the fleet: one directory per cluster, the record and the log.
	Dir string
	// Clusters is the number of managed clusters.
	Clusters int
	// BinDir, Reuse and Nodes are passed to every localcluster.
	BinDir string
	Reuse  bool
	Nodes  int
	// Addons are the built-in addons enabled on every managed cluster once
	// it is accepted (SelectAddons picks them).
	Addons []addons.Addon
	// NoSample skips the sample app (deploySample), which a fleet with the
	// work and placement addons otherwise ends with.
	NoSample bool
	// NoCorral starts the clusters alone: no hub controllers, agents,
	// addons or sample app, for installing corral into them with `corral
	// init` and `corral join`.
	NoCorral bool
	// RealNodes gives every managed cluster a real node (dev/realnode)
	// beside kwok's, and loads the fleet's images into it. The hub gets
	// one only with NoCorral, where corral is installed into it: otherwise
	// the hub runs no workloads (hubNode says why).
	RealNodes bool
	// Progress receives one line per step.
	Progress io.Writer
}

// Validate says what is wrong with o, in one line.
func (o Options) Validate() error {
	if o.Clusters < 0 {
		return fmt.Errorf("--clusters is %d: it must be 0 or more", o.Clusters)
	}
	if o.Dir == "" {
		return errors.New("--dir is required")
	}
	return nil
}

// Run starts the fleet, records it, and keeps it up until ctx ends; then it
// stops every cluster. It returns when everything it started has exited. A
// component that dies meanwhile is logged and left for `dev status` to show.
func Run(ctx context.Context, opts Options) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	if opts.Progress == nil {
		opts.Progress = io.Discard
	}
	state := &State{Dir: opts.Dir, Supervisor: os.Getpid(), Phase: PhaseStarting, Started: time.Now(), NoCorral: opts.NoCorral}
	for i, name := range ClusterNames(opts.Clusters) {
		profile := localcluster.ProfileManaged
		if i == 0 {
			profile = localcluster.ProfileHub
		}
		dir := filepath.Join(opts.Dir, name)
		state.Clusters = append(state.Clusters, ClusterState{
			Name: name, Profile: profile, Dir: dir, Kubeconfig: filepath.Join(dir, localcluster.KubeconfigFile),
		})
	}
	if err := state.write(); err != nil {
		return err
	}
	var nodes *nodeSetup
	if opts.RealNodes {
		var err error
		if nodes, err = setUpNodes(opts, state); err != nil {
			return fail(state, err)
		}
		defer nodes.remove()
	}

	clusters, err := startAll(ctx, opts, state, nodes)
	if err != nil {
		return fail(state, err)
	}
	// The hub's controllers and the agents run until the fleet stops, and
	// stop before the control planes do.
	var registration sync.WaitGroup
	regCtx, stopRegistration := context.WithCancel(ctx)
	stop := func() error {
		stopRegistration()
		registration.Wait()
		return stopAll(clusters)
	}
	// While the clusters register: the managed clusters get their
	// id.k8s.io claims, and the real nodes the addons' images.
	aside := startAside(regCtx, opts, clusters, nodes)
	if opts.NoCorral {
		if err := aside.wait(); err != nil {
			return fail(state, errors.Join(err, stop()))
		}
		return runUntilDone(ctx, opts, state, clusters, stop, "clusters only: no corral runs in them")
	}
	if err := register(regCtx, clusters[0], clusters[1:], opts.Addons, opts.Progress, &registration); err != nil {
		return fail(state, errors.Join(err, aside.wait(), stop()))
	}
	if err := aside.wait(); err != nil {
		return fail(state, errors.Join(err, stop()))
	}
	if err := enableFleetAddons(regCtx, clusters[0], clusters[1:], opts); err != nil {
		return fail(state, errors.Join(err, stop()))
	}
	state.Sample = !opts.NoSample && wantsSample(opts)
	state.Propagated = state.Sample && wantsPropagated(opts)
	if state.Sample {
		if err := deployFleetSample(regCtx, clusters[0], clusters[1:], state.Propagated, opts.Progress); err != nil {
			return fail(state, errors.Join(err, stop()))
		}
	}
	if err := waitFleetAddons(regCtx, clusters[0], clusters[1:], opts); err != nil {
		return fail(state, errors.Join(err, stop()))
	}
	return runUntilDone(ctx, opts, state, clusters, stop, "joined")
}

// runUntilDone records the fleet running, with its how-to, and keeps it so
// until ctx ends; then it stops it with stop.
func runUntilDone(ctx context.Context, opts Options, state *State, clusters []*localcluster.Cluster, stop func() error, what string) error {
	state.Phase = PhaseRunning
	if err := errors.Join(state.write(), writeHowto(opts.Dir, state)); err != nil {
		return errors.Join(err, stop())
	}
	fmt.Fprintf(opts.Progress, "fleet: running (hub and %s, %s)\n", ManagedClusters(opts.Clusters), what)

	watchDeaths(ctx, clusters, opts.Progress)

	state.Phase = PhaseStopping
	_ = state.write()
	fmt.Fprintln(opts.Progress, "fleet: stopping")
	err := stop()
	state.Phase = PhaseStopped
	return errors.Join(err, state.write())
}

// enableFleetAddons enables opts.Addons on the managed clusters.
func enableFleetAddons(ctx context.Context, hubCluster *localcluster.Cluster, managed []*localcluster.Cluster, opts Options) error {
	if len(opts.Addons) == 0 {
		return nil
	}
	hub, err := hubClient(hubCluster)
	if err != nil {
		return err
	}
	return enableAddons(ctx, hub, clusterNames(managed), opts.Addons, addonManagerTimeout, opts.Progress)
}

// waitFleetAddons waits until opts.Addons are Available on the managed
// clusters. It comes after the sample, which needs only the agents to
// run, so that the two waits overlap.
func waitFleetAddons(ctx context.Context, hubCluster *localcluster.Cluster, managed []*localcluster.Cluster, opts Options) error {
	hub, err := hubClient(hubCluster)
	if err != nil {
		return err
	}
	return waitAddonsAvailable(ctx, hub, clusterNames(managed), opts.Addons, addonManagerTimeout, opts.Progress)
}

// deployFleetSample deploys the sample app on the managed clusters and,
// with propagated, the propagated one beside it.
func deployFleetSample(ctx context.Context, hubCluster *localcluster.Cluster, managed []*localcluster.Cluster, propagated bool, progress io.Writer) error {
	hub, err := hubClient(hubCluster)
	if err != nil {
		return err
	}
	if propagated {
		if err := createPropagated(ctx, hub, progress); err != nil {
			return err
		}
	}
	if err := deploySample(ctx, hub, clusterNames(managed), progress); err != nil {
		return err
	}
	if propagated {
		return waitRolledOut(ctx, hub, progress)
	}
	return nil
}

// hubClient is a client of the hub with every type the CLI knows.
func hubClient(hubCluster *localcluster.Cluster) (client.Client, error) {
	scheme, err := hubclient.Scheme()
	if err != nil {
		return nil, err
	}
	return client.New(hubCluster.Config, client.Options{Scheme: scheme})
}

// clusterNames are the managed clusters' names.
func clusterNames(managed []*localcluster.Cluster) []string {
	names := make([]string, len(managed))
	for i, m := range managed {
		names[i] = m.Name
	}
	return names
}

// fail records that the fleet did not start, and why.
func fail(state *State, err error) error {
	state.Phase, state.Message = PhaseFailed, err.Error()
	_ = state.write()
	return err
}

// startAll starts every cluster at once; if one fails the others are
// stopped and the error names the failures.
func startAll(ctx context.Context, opts Options, state *State, nodes *nodeSetup) ([]*localcluster.Cluster, error) {
	clusters := make([]*localcluster.Cluster, len(state.Clusters))
	errs := make([]error, len(state.Clusters))
	var wg sync.WaitGroup
	for i, cs := range state.Clusters {
		o := localcluster.Options{
			Name: cs.Name, Profile: cs.Profile, Dir: cs.Dir, BinDir: opts.BinDir,
			Nodes: opts.Nodes, Reuse: opts.Reuse, Progress: opts.Progress,
		}
		switch {
		case nodes != nil && hubNode(opts, cs.Profile):
			nn := nodes.network.Node(i, localcluster.NodeName(cs.Name))
			o.RealNode, o.Images = &nn, nodes.images
		case nodes != nil:
			// The hub without a node: its addons' agents, in pods on the
			// managed clusters' nodes, still reach it on the network.
			o.HostIP = nodes.network.HostIP()
		}
		wg.Go(func() { clusters[i], errs[i] = localcluster.Start(ctx, o) })
	}
	wg.Wait()
	var started []*localcluster.Cluster
	for i, c := range clusters {
		if c == nil {
			continue
		}
		started = append(started, c)
		state.Clusters[i].Server = c.Server
		if opts.RealNodes && hubNode(opts, c.Profile) {
			state.Clusters[i].Node = localcluster.NodeName(c.Name)
		}
		state.Clusters[i].Components = c.Components()
	}
	if err := errors.Join(errs...); err != nil {
		return nil, errors.Join(err, stopAll(started))
	}
	return clusters, nil
}

// hubNode says whether a cluster of the profile gets a real node: every
// managed cluster does, and the hub only when corral is to be installed
// into it (NoCorral), where corral's own pods run. A hub without a node
// runs none of kube-controller-manager's workload controllers
// (localcluster's hubControllers), so a Deployment on it is a template
// only: the propagation addon delivers it to the clusters and sums their
// status into it, with nothing on the hub writing that status too.
func hubNode(opts Options, profile localcluster.Profile) bool {
	return profile != localcluster.ProfileHub || opts.NoCorral
}

// watchDeaths logs each cluster whose component dies, until ctx ends.
func watchDeaths(ctx context.Context, clusters []*localcluster.Cluster, progress io.Writer) {
	var wg sync.WaitGroup
	for _, c := range clusters {
		wg.Go(func() {
			select {
			case <-c.Done():
				fmt.Fprintf(progress, "%s: %v\n", c.Name, c.Err())
			case <-ctx.Done():
			}
		})
	}
	wg.Wait()
}

func stopAll(clusters []*localcluster.Cluster) error {
	errs := make([]error, len(clusters))
	var wg sync.WaitGroup
	for i, c := range clusters {
		if c != nil {
			wg.Go(func() { errs[i] = c.Stop() })
		}
	}
	wg.Wait()
	return errors.Join(errs...)
}

// writeHowto leaves a short how-to beside the kubeconfigs.
func writeHowto(dir string, state *State) error {
	return os.WriteFile(filepath.Join(dir, howtoFile), []byte(Howto(state)), 0o644)
}

// Howto says how to use a running fleet.
func Howto(state *State) string {
	hub := state.Clusters[0]
	s := fmt.Sprintf("# The hub:\nexport KUBECONFIG=%s\nkubectl get namespaces\n\n", hub.Kubeconfig)
	if len(state.Clusters) > 1 {
		s += "# The managed clusters:\n"
		for _, c := range state.Clusters[1:] {
			s += fmt.Sprintf("kubectl --kubeconfig %s get nodes\n", c.Kubeconfig)
		}
		s += "\n"
	}
	corral := corralCommand()
	if state.NoCorral {
		s += fmt.Sprintf("# Nothing of corral runs yet: install it (README: \"Install on your clusters\"), starting with\n"+
			"%s init --kubeconfig %s   # after 'make image' and '%[1]s dev load bin/image/corral.tar'\n\n", corral, hub.Kubeconfig)
	} else {
		s += fmt.Sprintf("# The clusters, as the hub sees them:\n%s get clusters --kubeconfig %s\n\n", corral, hub.Kubeconfig)
	}
	if state.Sample {
		s += fmt.Sprintf("# The sample app: where it runs, why there, and the addons that put it there:\n"+
			"%[1]s work get %[2]s --kubeconfig %[3]s\n%[1]s placement explain %[4]s/%[2]s --kubeconfig %[3]s\n%[1]s addon list --kubeconfig %[3]s\n\n",
			corral, SampleApp, hub.Kubeconfig, SampleNamespace)
		if state.Propagated {
			s += fmt.Sprintf("# The propagated app: a plain Deployment on the hub, its status summed from every cluster:\n"+
				"kubectl --kubeconfig %[3]s -n %[4]s rollout status deployment/%[2]s\n%[1]s propagation get %[2]s -n %[4]s --kubeconfig %[3]s\n\n",
				corral, PropagatedApp, hub.Kubeconfig, SampleNamespace)
		}
		if state.Network != nil && len(state.Clusters) > 1 {
			s += fmt.Sprintf("# The sample app answering on %s's real node (kill %%1 to stop forwarding):\n"+
				"kubectl --kubeconfig %s port-forward deployment/%s 8080 &\ncurl localhost:8080\n\n",
				state.Clusters[1].Name, state.Clusters[1].Kubeconfig, SampleApp)
		}
	}
	s += fmt.Sprintf("# What runs, and stopping it:\n%s dev status --dir %s\n%s dev down --dir %s\n", corral, state.Dir, corral, state.Dir)
	return s
}

// corralCommand is how a user runs this binary: "corral" when that is what
// PATH finds, else its full path (after `make run`, bin/corral).
func corralCommand() string {
	exe, err := os.Executable()
	if err != nil {
		return "corral"
	}
	if onPath, err := exec.LookPath("corral"); err == nil {
		if a, b := resolve(onPath), resolve(exe); a == b {
			return "corral"
		}
	}
	return exe
}

func resolve(path string) string {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		return p
	}
	return path
}
