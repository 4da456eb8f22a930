package simulate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clusterclient "open-cluster-management.io/api/client/cluster/clientset/versioned"

	"github.com/corral-dev/corral/registration/bootstrap"
)

// Options are what a simulation runs.
type Options struct {
	// Clusters is how many simulated clusters join, named Prefix and a
	// five-digit index.
	Clusters int
	Prefix   string
	// LeasePeriod is each cluster's lease period (its
	// leaseDurationSeconds), at which it renews its lease.
	LeasePeriod time.Duration
	// Duration is how long every cluster heartbeats once all joined,
	// with nothing else changing: the hub's CPU is measured over it, from
	// a lease period in (half of it, when shorter), when the hub has
	// settled after the joins.
	Duration time.Duration
	// Unreachable is how many clusters' agents stop at once after
	// Duration, until the hub has marked them all gone (Available Unknown
	// and tainted unreachable; given up after ten lease periods); then
	// they resume, and the hub should mark them back (given up after two
	// lease periods and half a minute).
	Unreachable int
	// Then, when set, runs after Duration and the outage, while the
	// clusters still heartbeat and answer their works: a benchmark's
	// measure of the live fleet (a Placement, a rollout). The run reports
	// once it returns.
	Then func(context.Context)
	// Accept has the simulator accept each cluster as `corral accept`
	// does (with the admin's credentials); otherwise each waits until
	// someone does.
	Accept bool
	// Parallel is how many clusters join at once.
	Parallel int
	// Keep leaves the simulated clusters on the hub at the end.
	Keep bool
	// HubPIDs are processes of the hub on this machine (its API server,
	// etcd, corral's hub) whose CPU and memory the report gives.
	HubPIDs []int
	// Progress receives a line now and then while clusters join and
	// heartbeat; nil for none.
	Progress io.Writer
}

// Defaults of Options.
const (
	DefaultPrefix      = "sim-"
	DefaultLeasePeriod = 60 * time.Second
	DefaultParallel    = 50
)

// Validate says in one line what is wrong with o.
func (o *Options) Validate() error {
	switch {
	case o.Clusters < 1 || o.Clusters > 99999:
		return fmt.Errorf("--clusters is %d: simulate 1 to 99999 clusters", o.Clusters)
	case o.LeasePeriod < time.Second || o.LeasePeriod%time.Second != 0:
		return fmt.Errorf("--lease-period is %s: give whole seconds, 1s or more (a lease's period is in seconds)", o.LeasePeriod)
	case o.Duration < 0:
		return fmt.Errorf("--duration is %s: give 0 (join, then stop) or more", o.Duration)
	case o.Unreachable < 0 || o.Unreachable > o.Clusters:
		return fmt.Errorf("--unreachable is %d: give 0 to %d, no more than --clusters", o.Unreachable, o.Clusters)
	case o.Parallel < 1:
		return fmt.Errorf("--parallel is %d: give 1 or more", o.Parallel)
	case len(o.Prefix)+5 > 63 || !nameLike(o.Prefix):
		return fmt.Errorf("--prefix %q: a cluster name starts with it, so give lower-case letters, digits and '-', starting with a letter, at most 58", o.Prefix)
	}
	return checkPIDs(o.HubPIDs)
}

// nameLike says whether prefix can start a cluster's name: lower-case
// letters, then digits and '-' too.
func nameLike(prefix string) bool {
	for i, r := range prefix {
		letter := r >= 'a' && r <= 'z'
		if !letter && (i == 0 || (r < '0' || r > '9') && r != '-') {
			return false
		}
	}
	return prefix != ""
}

// Run joins o.Clusters simulated clusters to the hub at admin (whose
// credentials mint the bootstrap token and, with Accept, accept them),
// has them heartbeat for o.Duration, and reports. Unless o.Keep it then
// deletes what it made; so it does when it fails or ctx ends.
func Run(ctx context.Context, admin *rest.Config, o Options) (r *Report, err error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	kube, err := kubernetes.NewForConfig(admin)
	if err != nil {
		return nil, err
	}
	token, err := bootstrap.Token(ctx, kube, int64(time.Hour.Seconds()))
	if err != nil {
		return nil, fmt.Errorf("getting a bootstrap token (is the hub initialised with 'corral init'?): %w", err)
	}
	hub, err := NewHub(admin, token)
	if err != nil {
		return nil, err
	}
	watching, stop := context.WithCancel(ctx)
	defer stop()
	avail := newAvailability()
	go hub.Watch(watching, avail.see)
	m := newMeter(o.HubPIDs)
	go m.sample(watching)
	works := hub.answerWorks(watching, avail.running, o.Parallel)
	defer func() { r.WorksReported = works.reported.Load() }()

	r = &Report{Clusters: o.Clusters, Kept: o.Keep}
	if !o.Keep {
		defer func() {
			cleanup, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
			defer cancel()
			if cerr := Delete(cleanup, admin, o.Progress); cerr != nil {
				err = errors.Join(err, cerr)
			}
		}()
	}
	defer m.report(r)
	m.mark()
	beats := newHeartbeats(o, avail.isDown)
	beating, stopBeats := context.WithCancel(ctx)
	beatsDone := make(chan struct{})
	go func() {
		defer close(beatsDone)
		beats.run(beating)
	}()
	defer func() {
		stopBeats()
		<-beatsDone
		beats.report(r)
	}()
	members, err := joinAll(ctx, hub, o, r, func(c *Cluster) {
		avail.watch(c.Name)
		beats.add(c)
	})
	m.mark()
	hub.reactions.report(r)
	if err != nil {
		return r, err
	}
	m.joined(r)
	live(ctx, members, o, r, avail, m, beats)
	r.FalseUnknown = avail.falseUnknown()
	return r, ctx.Err()
}

// live goes through the run's phases while the members heartbeat:
// Duration (the hub's CPU measured over its settled part), the outage,
// Then.
func live(ctx context.Context, members []*Cluster, o Options, r *Report, avail *availability, m *meter, beats *heartbeats) {
	if o.Duration == 0 && o.Unreachable == 0 && o.Then == nil {
		return
	}
	begin := time.Now()
	done := make(chan struct{})
	defer close(done)
	go progress(o.Progress, done, func() string { return beats.line(len(members), begin) })
	settle := min(o.LeasePeriod, o.Duration/2)
	if !sleep(ctx, settle) {
		return
	}
	m.mark()
	if !sleep(ctx, o.Duration-settle) {
		return
	}
	m.mark()
	if o.Unreachable > 0 {
		r.Outage = avail.outage(ctx, members, o.Unreachable, o.Parallel, 10*o.LeasePeriod, 2*o.LeasePeriod+30*time.Second)
	}
	if o.Then != nil {
		o.Then(ctx)
	}
}

// sleep waits d, or until ctx ends; it says whether ctx is still on.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// joinAll joins every cluster, o.Parallel at once, and calls joined
// with each as it joins.
func joinAll(ctx context.Context, hub *Hub, o Options, r *Report, joined func(*Cluster)) ([]*Cluster, error) {
	var (
		mu      sync.Mutex
		members []*Cluster
		errs    []error
		wg      sync.WaitGroup
	)
	names := make(chan string)
	begin := time.Now()
	done := make(chan struct{})
	go progress(o.Progress, done, func() string {
		mu.Lock()
		defer mu.Unlock()
		return fmt.Sprintf("joined %d of %d clusters (%.0fs)", len(members), o.Clusters, time.Since(begin).Seconds())
	})
	for range min(o.Parallel, o.Clusters) {
		wg.Go(func() {
			for name := range names {
				c, err := hub.Join(ctx, name, int32(o.LeasePeriod/time.Second), o.Accept)
				mu.Lock()
				if err != nil {
					errs = append(errs, fmt.Errorf("%s: %w", name, err))
				} else {
					members = append(members, c)
					joined(c)
				}
				mu.Unlock()
			}
		})
	}
	for i := range o.Clusters {
		select {
		case names <- fmt.Sprintf("%s%05d", o.Prefix, i):
		case <-ctx.Done():
		}
	}
	close(names)
	wg.Wait()
	close(done)
	elapsed := time.Since(begin)
	r.Joined, r.JoinSeconds = len(members), elapsed.Seconds()
	r.JoinsPerSecond = float64(len(members)) / elapsed.Seconds()
	r.FirstBeatsRetried = hub.NotYet.Load() + hub.Conflicts.Load()
	if len(errs) > 0 {
		return members, fmt.Errorf("%d of %d clusters did not join; the first: %w", len(errs), o.Clusters, errs[0])
	}
	return members, nil
}

// progress writes line() to w every few seconds until done.
func progress(w io.Writer, done <-chan struct{}, line func() string) {
	if w == nil {
		return
	}
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
			fmt.Fprintln(w, line())
		}
	}
}

// Delete deletes every simulated cluster on the hub at admin and their
// join requests, and waits (until ctx ends) for the hub to have cleaned
// up after them.
func Delete(ctx context.Context, admin *rest.Config, out io.Writer) error {
	kube, err := kubernetes.NewForConfig(admin)
	if err != nil {
		return err
	}
	clusters, err := clusterclient.NewForConfig(admin)
	if err != nil {
		return err
	}
	simulated := metav1.ListOptions{LabelSelector: Label}
	if err := clusters.ClusterV1().ManagedClusters().DeleteCollection(ctx, metav1.DeleteOptions{}, simulated); err != nil {
		return fmt.Errorf("deleting the simulated clusters: %w", err)
	}
	if err := kube.CertificatesV1().CertificateSigningRequests().DeleteCollection(ctx, metav1.DeleteOptions{}, simulated); err != nil {
		return fmt.Errorf("deleting the simulated clusters' join requests: %w", err)
	}
	for {
		left, err := clusters.ClusterV1().ManagedClusters().List(ctx, simulated)
		if err == nil && len(left.Items) == 0 {
			return nil
		}
		if out != nil && err == nil {
			fmt.Fprintf(out, "waiting for the hub to clean up after %d simulated clusters\n", len(left.Items))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("simulated clusters still on the hub: %w", ctx.Err())
		case <-time.After(2 * time.Second):
		}
	}
}
