package agent

import (
	"context"
	"fmt"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/corral-dev/corral/work/agent/appliedwork"
	"github.com/corral-dev/corral/work/agent/manifestwork"
)

// Client limits the agent uses on both clusters unless the configs it is
// given set their own: a work agent's traffic comes in bursts (a thousand
// works at start), and client-go's defaults (5 QPS) would make it crawl.
const (
	DefaultQPS   = 500
	DefaultBurst = 1000
)

// Options configure the work agent.
type Options struct {
	// ClusterName is the managed cluster's name: its namespace on the hub.
	ClusterName string
	// Hub reaches the hub (the work addon's own identity).
	Hub *rest.Config
	// Managed reaches the managed cluster.
	Managed *rest.Config
	// AgentID is recorded in AppliedManifestWorks; the cluster name when
	// empty.
	AgentID string
	// EvictionGracePeriod is how long what a ManifestWork applied is kept
	// after the work vanished from the hub without being deleted, or after
	// the agent moved to another hub (its AppliedManifestWork is of the
	// old hub); manifestwork.DefaultEvictionGracePeriod when zero,
	// eviction off at manifestwork.EvictionGracePeriodBound or more.
	EvictionGracePeriod time.Duration
	// RawFeedbackJSON returns structured feedback values as raw JSON.
	RawFeedbackJSON bool
}

// Scheme is what the work agent reads and writes on either cluster.
func Scheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, workv1.Install, apiextensionsv1.AddToScheme} {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func withLimits(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	if cfg.QPS == 0 {
		cfg.QPS = DefaultQPS
	}
	if cfg.Burst == 0 {
		cfg.Burst = DefaultBurst
	}
	return cfg
}

// Run runs the work agent until ctx ends: the work addon's RunAgent calls
// it with its AgentEnv (ClusterName, Hub, Managed).
func Run(ctx context.Context, opts Options) error {
	if opts.ClusterName == "" || opts.Hub == nil || opts.Managed == nil {
		return fmt.Errorf("the work agent needs a cluster name, a hub config and a managed cluster config")
	}
	scheme, err := Scheme()
	if err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(withLimits(opts.Hub), ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache: cache.Options{
			DefaultNamespaces: map[string]cache.Config{opts.ClusterName: {}},
			// The agent never reads managedFields: caching a thousand works
			// without them saves a good part of its memory.
			DefaultTransform: cache.TransformStripManagedFields(),
		},
		// One process may run several work agents (one per cluster in
		// `corral dev up`) and restart one after a crash: controller
		// names, global to the process, must not have to be unique.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		return fmt.Errorf("work agent manager on the hub: %w", err)
	}
	if err := SetupWithManager(mgr, opts); err != nil {
		return err
	}
	return mgr.Start(ctx)
}

// SetupWithManager adds the work agent to hubMgr, a manager on the hub
// whose cache may be limited to the cluster namespace: it adds the managed
// cluster (its cache and clients) to hubMgr and the controllers.
func SetupWithManager(hubMgr ctrl.Manager, opts Options) error {
	scheme, err := Scheme()
	if err != nil {
		return err
	}
	managed, err := cluster.New(withLimits(opts.Managed), func(o *cluster.Options) {
		o.Scheme = scheme
		o.Cache.DefaultTransform = cache.TransformStripManagedFields()
	})
	if err != nil {
		return fmt.Errorf("work agent client for the managed cluster: %w", err)
	}
	if err := hubMgr.Add(managed); err != nil {
		return err
	}
	agentID := opts.AgentID
	if agentID == "" {
		agentID = opts.ClusterName
	}
	return manifestwork.SetupWithManager(hubMgr, managed, manifestwork.Options{
		ClusterName:         opts.ClusterName,
		HubHash:             appliedwork.HubHash(hubMgr.GetConfig().Host),
		AgentID:             agentID,
		EvictionGracePeriod: opts.EvictionGracePeriod,
		RawFeedbackJSON:     opts.RawFeedbackJSON,
	})
}
