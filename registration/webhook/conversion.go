package webhook

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1ac "k8s.io/apiextensions-apiserver/pkg/client/applyconfiguration/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apiextensionsinformers "k8s.io/apiextensions-apiserver/pkg/client/informers/externalversions"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	toolscache "k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ConvertAddonsPath is where the addon CRDs' conversion webhook is served
// (addons/conversion: ManagedClusterAddOn and ClusterManagementAddOn,
// v1alpha1 ↔ v1beta1).
const ConvertAddonsPath = "/convert-addon-open-cluster-management-io"

// ConvertedCRDs are the CRDs whose spec.conversion the registrar points at
// ConvertAddonsPath.
var ConvertedCRDs = []string{
	"managedclusteraddons.addon.open-cluster-management.io",
	"clustermanagementaddons.addon.open-cluster-management.io",
}

// conversion is the spec.conversion of a converted CRD: the webhook at e,
// trusting caBundle.
func (e endpoint) conversion(caBundle []byte) *apiextensionsv1ac.CustomResourceConversionApplyConfiguration {
	cc := apiextensionsv1ac.WebhookClientConfig().WithCABundle(caBundle...)
	if e.service != nil {
		cc = cc.WithService(apiextensionsv1ac.ServiceReference().
			WithNamespace(e.service.Namespace).WithName(e.service.Name).WithPort(e.service.Port).WithPath(ConvertAddonsPath))
	} else {
		cc = cc.WithURL(strings.TrimSuffix(e.url, "/") + ConvertAddonsPath)
	}
	return apiextensionsv1ac.CustomResourceConversion().
		WithStrategy(apiextensionsv1.WebhookConverter).
		WithWebhook(apiextensionsv1ac.WebhookConversion().
			WithClientConfig(cc).
			WithConversionReviewVersions("v1"))
}

// applyConversion points the converted CRDs that exist at e (server-side
// apply of spec.conversion alone). A CRD not installed is skipped: the
// CRD watch applies again when it appears.
func applyConversion(ctx context.Context, crds apiextensionsclient.Interface, e endpoint, caBundle []byte) error {
	client := crds.ApiextensionsV1().CustomResourceDefinitions()
	for _, name := range ConvertedCRDs {
		if _, err := client.Get(ctx, name, metav1.GetOptions{}); apierrors.IsNotFound(err) {
			ctrl.LoggerFrom(ctx).V(1).Info("CRD not installed; no conversion webhook to point at this hub yet", "crd", name)
			continue
		}
		crd := apiextensionsv1ac.CustomResourceDefinition(name).
			WithSpec(apiextensionsv1ac.CustomResourceDefinitionSpec().WithConversion(e.conversion(caBundle)))
		if _, err := client.Apply(ctx, crd, metav1.ApplyOptions{FieldManager: FieldOwner, Force: true}); err != nil {
			return fmt.Errorf("pointing CRD %s's conversion webhook at this hub: %w", name, err)
		}
	}
	return nil
}

// watchConvertedCRDs signals changed whenever a converted CRD changes or
// goes: `corral init` run again, for one, resets its conversion.
func watchConvertedCRDs(ctx context.Context, crds apiextensionsclient.Interface, changed chan<- struct{}) error {
	factory := apiextensionsinformers.NewSharedInformerFactory(crds, 0)
	notify := toolscache.FilteringResourceEventHandler{
		FilterFunc: func(obj any) bool {
			if tombstone, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				obj = tombstone.Obj
			}
			crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition)
			return ok && slices.Contains(ConvertedCRDs, crd.Name)
		},
		Handler: toolscache.ResourceEventHandlerFuncs{
			AddFunc:    func(any) { signal(changed) },
			UpdateFunc: func(any, any) { signal(changed) },
			DeleteFunc: func(any) { signal(changed) },
		},
	}
	if _, err := factory.Apiextensions().V1().CustomResourceDefinitions().Informer().AddEventHandler(notify); err != nil {
		return err
	}
	factory.Start(ctx.Done())
	go func() {
		<-ctx.Done()
		factory.Shutdown()
	}()
	return nil
}

// WaitConverting waits until every CRD in ConvertedCRDs is installed and
// has its conversion pointed at the hub's webhook, or timeout passes.
func WaitConverting(ctx context.Context, c client.Client, timeout time.Duration) error {
	var pending string
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		for _, name := range ConvertedCRDs {
			// Unstructured, so that any client's scheme will do.
			crd := &unstructured.Unstructured{}
			crd.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
			if err := c.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
				pending = fmt.Sprintf("%s: %v", name, err)
				return false, nil
			}
			if strategy, _, _ := unstructured.NestedString(crd.Object, "spec", "conversion", "strategy"); strategy != string(apiextensionsv1.WebhookConverter) {
				pending = name + " has no conversion webhook yet"
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("the hub did not start converting the addon CRDs within %s: %s", timeout, pending)
	}
	return nil
}
