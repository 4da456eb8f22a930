package crds

import (
	"context"
	"fmt"
	"slices"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apiextensionsv1client "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/typed/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
)

// Install creates or updates the named CRDs — every CRD when none is
// named — and waits until each is Established.
func Install(ctx context.Context, cfg *rest.Config, names ...string) error {
	all, err := All()
	if err != nil {
		return err
	}
	if len(names) > 0 {
		all = slices.DeleteFunc(all, func(crd *apiextensionsv1.CustomResourceDefinition) bool { return !slices.Contains(names, crd.Name) })
		if len(all) != len(names) {
			return fmt.Errorf("installing CRDs %v: not all of them are known", names)
		}
	}
	return Apply(ctx, cfg, all...)
}

// Apply creates or updates crds — CRDs from elsewhere than the api module
// too, such as an addon's — and waits until each is Established.
func Apply(ctx context.Context, cfg *rest.Config, all ...*apiextensionsv1.CustomResourceDefinition) error {
	client, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	crdClient := client.ApiextensionsV1().CustomResourceDefinitions()
	if err := write(ctx, crdClient, all); err != nil {
		return err
	}
	for _, crd := range all {
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			got, err := crdClient.Get(ctx, crd.Name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			return apihelpers.IsCRDConditionTrue(got, apiextensionsv1.Established), nil
		})
		if err != nil {
			return fmt.Errorf("CRD %s is not Established: %w", crd.Name, err)
		}
	}
	return nil
}

// write creates or updates every CRD of all.
func write(ctx context.Context, crdClient apiextensionsv1client.CustomResourceDefinitionInterface, all []*apiextensionsv1.CustomResourceDefinition) error {
	for _, crd := range all {
		// Several writers may install the same CRD at once (the replicas
		// of a hub starting together): a lost race is retried on what
		// the winner wrote.
		err := retry.OnError(retry.DefaultRetry, func(err error) bool { return apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) }, func() error {
			existing, err := crdClient.Get(ctx, crd.Name, metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err):
				_, err = crdClient.Create(ctx, crd, metav1.CreateOptions{})
			case err == nil:
				update := crd.DeepCopy()
				update.ResourceVersion = existing.ResourceVersion
				_, err = crdClient.Update(ctx, update, metav1.UpdateOptions{})
			}
			return err
		})
		if err != nil {
			return fmt.Errorf("installing CRD %s: %w", crd.Name, err)
		}
	}
	return nil
}
