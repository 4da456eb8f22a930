package agent

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"open-cluster-management.io/addon-framework/pkg/lease"

	"github.com/corral-dev/corral/examples/hello-addon/common"
)

// DefaultInterval is how often the agent re-reads the cluster's version.
const DefaultInterval = 5 * time.Minute

// retryAfterFirstFailure is the first wait after a failed report; it
// doubles up to the interval.
const retryAfterFirstFailure = time.Second

// Options configure the agent.
type Options struct {
	// ClusterName is the managed cluster's name on the hub: the namespace
	// the ConfigMap goes in.
	ClusterName string
	// AddonNamespace is the install namespace on the managed cluster,
	// where the lease is.
	AddonNamespace string
	// Hub reaches the hub with the addon's own credentials.
	Hub *rest.Config
	// Managed reaches the managed cluster.
	Managed *rest.Config
	// Interval between reports; 0 means DefaultInterval.
	Interval time.Duration
}

// Validate says what is wrong with o, naming the flag to fix.
func (o Options) Validate() error {
	switch {
	case o.ClusterName == "":
		return errors.New("--cluster-name is empty: give the managed cluster's name on the hub")
	case o.AddonNamespace == "":
		return errors.New("--addon-namespace is empty: give the namespace the addon is installed in on the managed cluster")
	case o.Hub == nil || o.Managed == nil:
		return errors.New("the hub and the managed cluster both need a client configuration")
	case o.Interval < 0:
		return fmt.Errorf("--interval %s is negative", o.Interval)
	}
	return nil
}

// Run renews the addon's lease and keeps the hub's ConfigMap up to date
// until ctx ends. A failed report is retried with backoff, never fatal:
// the hub may not have given the agent its Role yet.
func Run(ctx context.Context, opts Options) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	if opts.Interval == 0 {
		opts.Interval = DefaultInterval
	}
	hub, err := kubernetes.NewForConfig(opts.Hub)
	if err != nil {
		return fmt.Errorf("building the hub client: %w", err)
	}
	managed, err := kubernetes.NewForConfig(opts.Managed)
	if err != nil {
		return fmt.Errorf("building the managed cluster's client: %w", err)
	}
	logger := klog.FromContext(ctx).WithValues("cluster", opts.ClusterName)
	ctx = klog.NewContext(ctx, logger)
	logger.Info("Starting the hello agent", "hub", opts.Hub.Host, "addonNamespace", opts.AddonNamespace)

	go lease.NewLeaseUpdater(managed, common.AddonName, opts.AddonNamespace).Start(ctx)

	reporter := Reporter{Hub: hub, Managed: managed.Discovery(), ClusterName: opts.ClusterName}
	wait := retryAfterFirstFailure
	for {
		next := opts.Interval
		if _, err := reporter.Report(ctx); err != nil {
			logger.Error(err, "Reporting to the hub failed; retrying", "after", wait)
			next, wait = wait, min(2*wait, opts.Interval)
		} else {
			wait = retryAfterFirstFailure
		}
		timer := time.NewTimer(next)
		select {
		case <-ctx.Done():
			timer.Stop()
			logger.Info("Stopping the hello agent")
			return nil
		case <-timer.C:
		}
	}
}

// Reporter writes what the agent knows of its cluster into the ConfigMap
// hello in the cluster namespace on the hub.
type Reporter struct {
	// Hub is the hub client, with the addon's own credentials.
	Hub kubernetes.Interface
	// Managed asks the managed cluster's API server its version.
	Managed discovery.ServerVersionInterface
	// ClusterName is the cluster namespace on the hub.
	ClusterName string
}

// Report creates or updates the ConfigMap when what it should hold
// changed, and says whether it wrote.
func (r Reporter) Report(ctx context.Context) (bool, error) {
	version, err := r.Managed.ServerVersion()
	if err != nil {
		return false, fmt.Errorf("reading the managed cluster's version: %w", err)
	}
	want := map[string]string{
		common.KeyKubernetesVersion: version.GitVersion,
		common.KeyGreeting:          fmt.Sprintf("hello from %s", r.ClusterName),
	}
	configMaps := r.Hub.CoreV1().ConfigMaps(r.ClusterName)
	current, err := configMaps.Get(ctx, common.ConfigMapName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: common.ConfigMapName, Namespace: r.ClusterName}, Data: want}
		if _, err := configMaps.Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			return false, fmt.Errorf("creating ConfigMap %s/%s on the hub: %w", r.ClusterName, common.ConfigMapName, err)
		}
		klog.FromContext(ctx).V(1).Info("Created the ConfigMap on the hub", "kubernetesVersion", version.GitVersion)
		return true, nil
	case err != nil:
		return false, fmt.Errorf("reading ConfigMap %s/%s on the hub: %w", r.ClusterName, common.ConfigMapName, err)
	case maps.Equal(current.Data, want):
		klog.FromContext(ctx).V(4).Info("The ConfigMap on the hub is up to date")
		return false, nil
	}
	current.Data = want
	if _, err := configMaps.Update(ctx, current, metav1.UpdateOptions{}); err != nil {
		return false, fmt.Errorf("updating ConfigMap %s/%s on the hub: %w", r.ClusterName, common.ConfigMapName, err)
	}
	klog.FromContext(ctx).V(1).Info("Updated the ConfigMap on the hub", "kubernetesVersion", version.GitVersion)
	return true, nil
}
