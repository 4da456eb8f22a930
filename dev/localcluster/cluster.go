package localcluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
)

// startAttempts bounds the retries when a port was taken between picking it
// and binding it.
const startAttempts = 3

// Cluster is a running local control plane.
type Cluster struct {
	// Name and Profile are those of the Options it was started with.
	Name    string
	Profile Profile
	// Dir is the data directory; Kubeconfig the admin kubeconfig in it.
	Dir        string
	Kubeconfig string
	// Server is the kube-apiserver URL.
	Server string
	// Config is an admin client configuration for the cluster.
	Config *rest.Config
	// StartupTime is how long Start took until everything was ready.
	StartupTime time.Duration

	opts     Options
	layout   layout
	lock     *DirLock
	stopping atomic.Bool

	mu    sync.Mutex
	procs []*process // in start order

	done     chan struct{} // closed at the first unexpected exit
	doneOnce sync.Once

	stopOnce sync.Once
	stopErr  error
}

// Component is one process of a cluster as seen from outside.
type Component struct {
	Name    string `json:"name"`
	PID     int    `json:"pid"`
	Running bool   `json:"running"`
	Log     string `json:"log"`
}

// Start brings up a local cluster in opts.Dir and returns once every
// component is ready (and, for a managed cluster, every node is Ready). On
// failure nothing is left running and the error names the component and its
// log.
func Start(ctx context.Context, opts Options) (_ *Cluster, err error) {
	if err := opts.complete(); err != nil {
		return nil, err
	}
	if err := CheckBinDir(opts.BinDir); err != nil {
		return nil, err
	}
	begin := time.Now()
	say := func(format string, args ...any) {
		fmt.Fprintf(opts.Progress, "%s: %s\n", opts.Name, fmt.Sprintf(format, args...))
	}
	lock, err := LockDir(opts.Dir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			lock.Release()
		}
	}()
	l := layout{dir: opts.Dir}
	if err := l.prepare(opts.Reuse, opts.nodeIPs(), opts.nodeIdentities(), say); err != nil {
		return nil, err
	}
	// A reused cluster comes back at its address: what knows it there (a
	// hub's agents, a user's kubeconfig) keeps working.
	kept := 0
	if opts.Reuse {
		kept = serverPort(l.kubeconfig())
	}
	if kept != 0 && !isFree(kept) {
		return nil, fmt.Errorf("%s: its address of the last run, https://127.0.0.1:%d, is taken by another process, and what knew the cluster there (agents, kubeconfigs) would lose it: free the port, or start afresh without --reuse",
			opts.Name, kept)
	}

	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()
	for attempt := 1; ; attempt++ {
		c := &Cluster{
			Name: opts.Name, Profile: opts.Profile, Dir: opts.Dir, Kubeconfig: l.kubeconfig(),
			opts: opts, layout: l, lock: lock, done: make(chan struct{}),
		}
		say("starting %s (%s profile)", strings.Join(c.componentNames(), ", "), opts.Profile)
		err := c.start(ctx, kept)
		if err == nil {
			c.StartupTime = time.Since(begin)
			say("ready in %.1fs at %s", c.StartupTime.Seconds(), c.Server)
			return c, nil
		}
		if serr := c.stopProcesses(); serr != nil {
			err = errors.Join(err, serr)
		}
		if attempt < startAttempts && c.portTaken() {
			say("a port was taken meanwhile, retrying with new ports")
			continue
		}
		return nil, fmt.Errorf("starting %s: %w", opts.Name, err)
	}
}

func (c *Cluster) componentNames() []string {
	names := []string{"etcd", "kube-apiserver", "kube-controller-manager"}
	if c.schedules() {
		names = append(names, "kube-scheduler")
	}
	if c.Profile == ProfileManaged {
		names = append(names, fmt.Sprintf("kwok (%d nodes)", c.opts.Nodes))
	}
	if c.opts.RealNode != nil {
		names = append(names, "a real node (containerd, kubelet, kube-proxy)")
	}
	return names
}

// schedules says whether the cluster runs a scheduler: a managed cluster
// does, and so does a hub with a real node.
func (c *Cluster) schedules() bool { return c.Profile == ProfileManaged || c.opts.RealNode != nil }

// start runs the control plane and, beside it from the first, the real
// node's containerd; the node's kubelet and kube-proxy once both are up.
func (c *Cluster) start(ctx context.Context, apiserver int) error {
	if c.opts.RealNode == nil {
		return c.startControlPlane(ctx, apiserver)
	}
	runtime := make(chan error, 1)
	go func() { runtime <- c.startRuntime(ctx) }()
	err := c.startControlPlane(ctx, apiserver)
	if err := errors.Join(err, <-runtime); err != nil {
		return err
	}
	return c.startNodeAgents(ctx)
}

// startControlPlane runs the components in order: etcd, the apiserver (on
// apiserver, or a free port when 0), then the rest side by side.
func (c *Cluster) startControlPlane(ctx context.Context, apiserver int) error {
	nums, err := freePortsBut(6, apiserver)
	if err != nil {
		return err
	}
	p := ports{host: "127.0.0.1", etcdClient: nums[0], etcdPeer: nums[1], apiserver: nums[2], kcm: nums[3], scheduler: nums[4], kwok: nums[5]}
	if ip := c.opts.hostIP(); ip != "" {
		p.host = ip
	}
	if apiserver != 0 {
		p.apiserver = apiserver
	}
	c.Server = p.server()
	if err := c.writeKubeconfigs(); err != nil {
		return err
	}
	c.Config, err = clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		return err
	}
	if err := c.run(ctx, etcdComponent(c.Name, c.layout, p)); err != nil {
		return err
	}
	api := apiserverComponent(c.layout, p)
	api.ready = c.apiserverReady
	if err := c.run(ctx, api); err != nil {
		return err
	}
	others := []component{kcmComponent(c.Profile, c.opts.RealNode != nil, c.opts.SigningDuration, c.layout, p)}
	if c.schedules() {
		others = append(others, schedulerComponent(c.layout, p))
	}
	if c.Profile == ProfileManaged {
		others = append(others, kwokComponent(c.opts.BinDir, c.layout, p))
	}
	if err := c.runAll(ctx, others...); err != nil {
		return err
	}
	if c.Profile == ProfileManaged {
		return c.createNodes(ctx)
	}
	return nil
}

// runAll starts comps side by side and waits until every one is ready.
func (c *Cluster) runAll(ctx context.Context, comps ...component) error {
	errs := make(chan error, len(comps))
	for _, comp := range comps {
		go func() { errs <- c.run(ctx, comp) }()
	}
	var all []error
	for range comps {
		all = append(all, <-errs)
	}
	return errors.Join(all...)
}

// run starts comp and waits until it is ready.
func (c *Cluster) run(ctx context.Context, comp component) error {
	logger := klog.FromContext(ctx).WithValues("cluster", c.Name, "component", comp.name)
	begin := time.Now()
	path := comp.path
	if path == "" {
		path = filepath.Join(c.opts.BinDir, comp.name)
	}
	p, err := startProcess(comp.name, path, comp.args, c.layout.log(comp.name), c.exited)
	if err != nil {
		return err
	}
	logger.V(4).Info("Started", "pid", p.pid(), "args", comp.args, "log", p.logPath)
	c.mu.Lock()
	c.procs = append(c.procs, p)
	c.mu.Unlock()
	if err := waitFor(ctx, comp.name, p, comp.ready); err != nil {
		return err
	}
	logger.V(4).Info("Ready", "after", time.Since(begin))
	return nil
}

func (c *Cluster) apiserverReady(ctx context.Context) error {
	client, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		return err
	}
	body, err := client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
	if err != nil {
		return fmt.Errorf("%w: %s", err, body)
	}
	return nil
}

func (c *Cluster) writeKubeconfigs() error {
	k := c.layout.pki()
	if err := writeKubeconfig(c.Kubeconfig, c.Name, c.Server, k, adminIdentity); err != nil {
		return err
	}
	for _, id := range append([]identity{kcmIdentity, schedulerIdentity, kwokIdentity}, c.opts.nodeIdentities()...) {
		if err := writeKubeconfig(c.layout.componentKubeconfig(id), c.Name, c.Server, k, id); err != nil {
			return err
		}
	}
	return nil
}

// exited is called when any component process ends. An exit while the
// cluster is not being stopped fails the cluster.
func (c *Cluster) exited(p *process) {
	if c.stopping.Load() {
		return
	}
	p.unexpected.Store(true)
	c.doneOnce.Do(func() { close(c.done) })
}

// portTaken reports whether a component failed because its port was taken.
func (c *Cluster) portTaken() bool {
	for _, p := range c.processes() {
		b, err := os.ReadFile(p.logPath)
		if err == nil && strings.Contains(string(b[max(0, len(b)-4096):]), "address already in use") {
			return true
		}
	}
	return false
}

// Done is closed when a component stops unexpectedly; Err then says which.
func (c *Cluster) Done() <-chan struct{} { return c.done }

// Err describes every component that has stopped unexpectedly, in start
// order — so the cause comes before what died of it (a controller-manager
// may exit before the killed apiserver it needs has been reaped) — or
// returns nil.
func (c *Cluster) Err() error {
	var errs []error
	for _, p := range c.processes() {
		if p.unexpected.Load() {
			errs = append(errs, p.exitError())
		}
	}
	return errors.Join(errs...)
}

// Components lists the cluster's processes in start order.
func (c *Cluster) Components() []Component {
	var out []Component
	for _, p := range c.processes() {
		out = append(out, Component{Name: p.name, PID: p.pid(), Running: p.running(), Log: p.logPath})
	}
	return out
}

func (c *Cluster) processes() []*process {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*process(nil), c.procs...)
}

// Stop stops every component, newest first, waits until each has exited and
// releases the data directory, marking it cleanly stopped. It returns an
// error only if a component had to be killed; a component that had already
// died is reported by Err, not here. Calling it again does nothing.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() {
		c.stopErr = c.stopProcesses()
		if err := os.WriteFile(filepath.Join(c.Dir, cleanStopFile), nil, 0o600); err != nil && c.stopErr == nil {
			c.stopErr = err
		}
		c.lock.Release()
	})
	return c.stopErr
}

func (c *Cluster) stopProcesses() error {
	c.stopping.Store(true)
	// The real node goes first, and at once: its cgroup holds its
	// kubelet, kube-proxy, containerd, the shims and the containers, which
	// a stopped containerd would leave running.
	errs := []error{c.removeNode()}
	procs := c.processes()
	for i := len(procs) - 1; i >= 0; i-- {
		errs = append(errs, procs[i].stop())
	}
	return errors.Join(errs...)
}
