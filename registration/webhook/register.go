package webhook

import (
	"context"
	"fmt"
	"os"
	"time"

	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/corral-dev/corral/addons"
)

// LeaseName is the Lease whose holder keeps the webhook configurations
// pointing at itself.
const LeaseName = "corral-hub-webhook"

// Timing of the registrar's election: client-go's usual values.
const (
	leaseDuration = 15 * time.Second
	renewDeadline = 10 * time.Second
	retryPeriod   = 2 * time.Second
	// caResync is how often the holder re-reads a CA from a certificate
	// directory, which may have been rotated, and checks whether the
	// certificates of a Secret source are due for renewal.
	caResync = time.Minute
	// applyRetry is the wait after a failed apply.
	applyRetry = 2 * time.Second
)

// registrar keeps the webhook configurations applied, pointing at this
// process, while this process holds the Lease. Every hub process runs one;
// it does not take part in the manager's own leader election, so a hub
// that runs controllers elsewhere still competes here.
type registrar struct {
	kube           kubernetes.Interface
	crds           apiextensionsclient.Interface
	certs          certSource
	endpoint       endpoint
	leaseNamespace string
	identity       string
	// extra are the addons' validating webhooks, configured beside ours.
	extra []addons.ValidatingWebhook
	// serving reports nil once the webhook server accepts connections.
	serving func() error
	clock   clock.PassiveClock
	// changed is signalled when a configuration, a converted CRD or the
	// certificate Secret changes.
	changed chan struct{}
	// trusted is since when the configurations, as applied while this
	// process leads, trust each CA.
	trusted published
}

func newIdentity() string {
	host, _ := os.Hostname()
	return host + "_" + string(uuid.NewUUID())
}

// NeedLeaderElection is false: the registrar runs its own election.
func (r *registrar) NeedLeaderElection() bool { return false }

// Start campaigns for the Lease until ctx ends, keeping the configurations
// applied whenever it holds it.
func (r *registrar) Start(ctx context.Context) error {
	log := ctrl.LoggerFrom(ctx).WithName("webhook-registrar")
	ctx = ctrl.LoggerInto(ctx, log)
	if err := r.watchConfigurations(ctx, r.changed); err != nil {
		return err
	}
	if err := watchConvertedCRDs(ctx, r.crds, r.changed); err != nil {
		return err
	}
	for ctx.Err() == nil {
		elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
			Lock: &resourcelock.LeaseLock{
				LeaseMeta:  metav1.ObjectMeta{Namespace: r.leaseNamespace, Name: LeaseName},
				Client:     r.kube.CoordinationV1(),
				LockConfig: resourcelock.ResourceLockConfig{Identity: r.identity},
			},
			LeaseDuration: leaseDuration, RenewDeadline: renewDeadline, RetryPeriod: retryPeriod,
			ReleaseOnCancel: true,
			Name:            LeaseName,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: func(ctx context.Context) {
					log.Info("Pointing the admission webhook configurations at this hub", "lease", r.leaseNamespace+"/"+LeaseName)
					r.trusted = published{}
					r.keepApplied(ctx, r.changed)
				},
				OnStoppedLeading: func() { log.V(1).Info("No longer keeping the admission webhook configurations") },
			},
		})
		if err != nil {
			return fmt.Errorf("electing the hub that registers the webhooks: %w", err)
		}
		elector.Run(ctx)
	}
	return nil
}

// watchConfigurations signals changed whenever one of the configurations
// this package applies changes or goes.
func (r *registrar) watchConfigurations(ctx context.Context, changed chan<- struct{}) error {
	factory := informers.NewSharedInformerFactoryWithOptions(r.kube, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = ManagedByLabel + "=" + ManagedByValue }))
	notify := toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { signal(changed) },
		UpdateFunc: func(any, any) { signal(changed) },
		DeleteFunc: func(any) { signal(changed) },
	}
	for _, informer := range []toolscache.SharedIndexInformer{
		factory.Admissionregistration().V1().MutatingWebhookConfigurations().Informer(),
		factory.Admissionregistration().V1().ValidatingWebhookConfigurations().Informer(),
	} {
		if _, err := informer.AddEventHandler(notify); err != nil {
			return err
		}
	}
	factory.Start(ctx.Done())
	go func() {
		<-ctx.Done()
		factory.Shutdown()
	}()
	return nil
}

func signal(ch chan<- struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// keepApplied applies the configurations once the server is serving, and
// again on every change, every caResync and after every failure, until
// ctx ends.
func (r *registrar) keepApplied(ctx context.Context, changed <-chan struct{}) {
	log := ctrl.LoggerFrom(ctx)
	// A certificate Secret is made first: the server serves none before.
	err := wait.PollUntilContextCancel(ctx, applyRetry, true, func(ctx context.Context) (bool, error) {
		err := r.certs.keep(ctx, r.trusted)
		if err != nil {
			log.Error(err, "Keeping the webhook certificate failed; retrying")
		}
		return err == nil, nil
	})
	if err != nil {
		return
	}
	err = wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(context.Context) (bool, error) {
		return r.serving() == nil, nil
	})
	if err != nil {
		return
	}
	resync := time.NewTicker(caResync)
	defer resync.Stop()
	for {
		next := changed
		var retry <-chan time.Time
		if err := r.apply(ctx); err != nil {
			log.Error(err, "Applying the admission webhook configurations failed; retrying")
			next, retry = nil, time.After(applyRetry)
		}
		select {
		case <-ctx.Done():
			return
		case <-next:
		case <-retry:
		case <-resync.C:
		}
	}
}

// apply renews a certificate Secret as due, then server-side applies the
// configurations and the addon CRDs' conversion webhook with the CAs to
// trust, and notes that they trust them from now: a serving certificate
// signed by a new CA is issued only on a later apply, once the
// configurations have trusted it for a while.
func (r *registrar) apply(ctx context.Context) error {
	if err := r.certs.keep(ctx, r.trusted); err != nil {
		return err
	}
	caBundle, err := r.certs.caBundle()
	if err != nil {
		return err
	}
	mutating, validating := configurations(r.endpoint, caBundle, r.extra...)
	opts := metav1.ApplyOptions{FieldManager: FieldOwner, Force: true}
	admissionregistration := r.kube.AdmissionregistrationV1()
	if _, err := admissionregistration.MutatingWebhookConfigurations().Apply(ctx, mutating, opts); err != nil {
		return fmt.Errorf("applying MutatingWebhookConfiguration %s: %w", *mutating.Name, err)
	}
	for _, v := range validating {
		if _, err := admissionregistration.ValidatingWebhookConfigurations().Apply(ctx, v, opts); err != nil {
			return fmt.Errorf("applying ValidatingWebhookConfiguration %s: %w", *v.Name, err)
		}
	}
	if err := applyConversion(ctx, r.crds, r.endpoint, caBundle); err != nil {
		return err
	}
	r.trusted.record(caBundle, r.clock.Now())
	ctrl.LoggerFrom(ctx).V(4).Info("Applied the admission webhook configurations and the addon CRDs' conversion webhook")
	return nil
}
