package fleet

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clusterclient "open-cluster-management.io/api/client/cluster/clientset/versioned"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/corral-dev/corral/addons"
	corralagent "github.com/corral-dev/corral/agent"
	"github.com/corral-dev/corral/dev/localcluster"
	corralhub "github.com/corral-dev/corral/hub"
	"github.com/corral-dev/corral/registration/bootstrap"
	registrationcli "github.com/corral-dev/corral/registration/cli"
	"github.com/corral-dev/corral/registration/common"
)

// Timing of a local fleet's registration.
const (
	// fleetLeaseSeconds is the agents' lease period: short, so that a
	// stopped cluster shows as unreachable within a minute.
	fleetLeaseSeconds = 10
	joinTimeout       = 2 * time.Minute
	// HubKubeconfigFile is where each managed cluster's agent writes its own
	// hub kubeconfig, in that cluster's directory.
	HubKubeconfigFile = "hub-kubeconfig"
)

// register does, in this process, what a user does by hand: corral init on
// the hub, corral hub, a corral agent per managed cluster, and corral
// accept for each. It returns once every cluster has joined and is
// available; the controllers and agents run, tracked by wg, until ctx ends.
func register(ctx context.Context, hubCluster *localcluster.Cluster, managed []*localcluster.Cluster, builtins []addons.Addon, progress io.Writer, wg *sync.WaitGroup) error {
	begin := time.Now()
	say := func(who, format string, args ...any) {
		fmt.Fprintf(progress, "%s: %s\n", who, fmt.Sprintf(format, args...))
	}
	if err := registrationcli.InstallHub(ctx, hubCluster.Config, prefixed{progress, "hub: "}); err != nil {
		return fmt.Errorf("preparing the hub: %w", err)
	}
	if err := startHubControllers(ctx, hubCluster.Config, builtins, progress, wg); err != nil {
		return err
	}
	say("hub", "registration controllers and admission webhooks running")
	kube, err := kubernetes.NewForConfig(hubCluster.Config)
	if err != nil {
		return err
	}
	token, err := bootstrap.Token(ctx, kube, int64(time.Hour.Seconds()))
	if err != nil {
		return err
	}
	boot := rest.AnonymousClientConfig(hubCluster.Config)
	boot.BearerToken = token
	for _, m := range managed {
		// As `corral agent` runs: the registration agent and, beside it,
		// the addon host with the built-in addons' agent halves, each with
		// its own identity.
		o := corralagent.NewOptions(io.Discard, builtins...)
		o.ClusterName, o.ManagedConfig, o.Bootstrap = m.Name, m.Config, boot
		o.HubKubeconfigFile, o.LeaseSeconds = filepath.Join(m.Dir, HubKubeconfigFile), fleetLeaseSeconds
		if err := o.Validate(); err != nil {
			return err
		}
		wg.Go(func() {
			if err := o.Run(ctx); err != nil && ctx.Err() == nil {
				say(m.Name, "agent stopped: %v", err)
			}
		})
	}
	clusters, err := clusterclient.NewForConfig(hubCluster.Config)
	if err != nil {
		return err
	}
	if err := acceptWhenAsked(ctx, hubCluster, clusterNames(managed), progress); err != nil {
		return err
	}
	for _, m := range managed {
		if err := waitJoined(ctx, clusters, kube, m.Name, begin); err != nil {
			return err
		}
		say(m.Name, "joined the hub and available")
	}
	return nil
}

func startHubControllers(ctx context.Context, cfg *rest.Config, builtins []addons.Addon, progress io.Writer, wg *sync.WaitGroup) error {
	// As `corral hub` runs, one copy: no leader election, the webhooks on
	// a free loopback port with a CA of this process's own.
	o := corralhub.NewInProcessOptions(cfg, builtins...)
	if err := o.Validate(); err != nil {
		return err
	}
	wg.Go(func() {
		if err := o.Run(ctx); err != nil && ctx.Err() == nil {
			fmt.Fprintf(progress, "hub: registration controllers stopped: %v\n", err)
		}
	})
	// Clusters that join from now on are admitted by the webhooks: in the
	// default set from the start; and works are validated from the start.
	return o.WaitServing(ctx, joinTimeout)
}

// acceptWhenAsked runs corral accept --wait: it waits until every
// cluster's agent has asked to join (or it is accepted already, as on a
// reused hub) and accepts them.
func acceptWhenAsked(ctx context.Context, hubCluster *localcluster.Cluster, names []string, progress io.Writer) error {
	o := registrationcli.NewAcceptOptions(progress)
	o.Hub.Kubeconfig = hubCluster.Kubeconfig
	o.Clusters = names
	o.Wait, o.Timeout = true, joinTimeout
	if err := o.Complete(); err != nil {
		return err
	}
	return o.Run(ctx)
}

// waitJoined waits until the cluster is Joined and Available and its agent
// has renewed its lease since since: on a reused hub the conditions are
// the last run's until the hub judges the lease.
func waitJoined(ctx context.Context, clusters clusterclient.Interface, kube kubernetes.Interface, name string, since time.Time) error {
	since = since.Truncate(time.Second)        // a lease's renewTime may be read back rounded
	joined := func(ctx context.Context) bool { // errors: not yet, the hub is busy
		mc, err := clusters.ClusterV1().ManagedClusters().Get(ctx, name, metav1.GetOptions{})
		if err != nil || !meta.IsStatusConditionTrue(mc.Status.Conditions, clusterv1.ManagedClusterConditionJoined) ||
			!meta.IsStatusConditionTrue(mc.Status.Conditions, clusterv1.ManagedClusterConditionAvailable) {
			return false
		}
		lease, err := kube.CoordinationV1().Leases(name).Get(ctx, common.LeaseName, metav1.GetOptions{})
		return err == nil && lease.Spec.RenewTime != nil && !lease.Spec.RenewTime.Time.Before(since)
	}
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, joinTimeout, true, func(ctx context.Context) (bool, error) {
		return joined(ctx), nil
	})
	if err != nil {
		return fmt.Errorf("%s did not join within %s: %w", name, joinTimeout, err)
	}
	return nil
}

// prefixed writes each write with a prefix: the verbs' lines in the
// fleet's progress.
type prefixed struct {
	w      io.Writer
	prefix string
}

func (p prefixed) Write(b []byte) (int, error) {
	if _, err := fmt.Fprintf(p.w, "%s%s", p.prefix, b); err != nil {
		return 0, err
	}
	return len(b), nil
}
