package hub

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/clock"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	cpv1alpha1 "sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/yaml"

	"github.com/corral-dev/corral/deploy/charts/corral-hub/crds"
	"github.com/corral-dev/corral/properties/hub/clusterprofile"
	"github.com/corral-dev/corral/properties/hub/clusterstatus"
)

//go:embed crd/multicluster.x-k8s.io_clusterprofiles.crd.yaml
var clusterProfileCRD []byte

// Options configure the hub half.
type Options struct {
	// ProfileNamespace holds the ClusterProfiles;
	// clusterprofile.DefaultNamespace when empty.
	ProfileNamespace string
	// Workers per controller; DefaultWorkers when 0.
	Workers int
	// Clock is injected for tests.
	Clock clock.PassiveClock
}

// DefaultWorkers of each controller.
const DefaultWorkers = 4

// ClusterProfileCRD returns the ClusterProfile CRD.
func ClusterProfileCRD() (*apiextensionsv1.CustomResourceDefinition, error) {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(clusterProfileCRD, crd); err != nil {
		return nil, fmt.Errorf("the ClusterProfile CRD: %w", err)
	}
	return crd, nil
}

// installTimeout bounds installing the CRD at setup.
const installTimeout = 2 * time.Minute

// SetupWithManager installs the ClusterProfile CRD on the hub and
// registers the hub half's controllers with mgr: the addon's settings,
// clusterstatus and clusterprofile.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	if opts.Workers <= 0 {
		opts.Workers = DefaultWorkers
	}
	if errs := validation.IsDNS1123Label(opts.ProfileNamespace); opts.ProfileNamespace != "" && len(errs) > 0 {
		return fmt.Errorf("the ClusterProfiles' namespace %q is not a namespace name: %s", opts.ProfileNamespace, errs[0])
	}
	s := mgr.GetScheme()
	if err := errors.Join(clusterv1.Install(s), addonv1alpha1.Install(s), cpv1alpha1.AddToScheme(s)); err != nil {
		return err
	}
	crd, err := ClusterProfileCRD()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	if err := crds.Apply(ctx, mgr.GetConfig(), crd); err != nil {
		return err
	}
	reports, err := Settings.SetupWithManager(mgr, opts.Workers)
	if err != nil {
		return err
	}
	return errors.Join(
		(&clusterstatus.Reconciler{Client: mgr.GetClient(), Live: mgr.GetAPIReader(), Recorder: mgr.GetEventRecorder("corral-properties")}).SetupWithManager(mgr, reports, opts.Workers),
		(&clusterprofile.Reconciler{Client: mgr.GetClient(), Namespace: opts.ProfileNamespace, Clock: opts.Clock}).SetupWithManager(mgr, opts.Workers),
	)
}
