package install

import (
	"context"
	"fmt"
	"io"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// FieldOwner is the field manager of everything corral installs.
const FieldOwner = "corral-install"

// crdEstablishTimeout bounds the wait for a new CRD to be served.
const crdEstablishTimeout = time.Minute

// Apply server-side applies objs in order with c, taking ownership of
// their fields, and waits until every CRD among them is Established before
// applying what follows it. With dryRun the API server checks every object
// (admission included) and persists nothing; CRDs are then not waited for,
// so objects of a kind that only they define are checked as far as the API
// server can. progress, when not nil, hears one line per object.
func Apply(ctx context.Context, c client.Client, objs []*unstructured.Unstructured, dryRun bool, progress io.Writer) error {
	opts := []client.ApplyOption{client.FieldOwner(FieldOwner), client.ForceOwnership}
	if dryRun {
		opts = append(opts, client.DryRunAll)
	}
	for _, obj := range objs {
		if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj.DeepCopy()), opts...); err != nil {
			return fmt.Errorf("applying %s: %w", Describe(obj), err)
		}
		if progress != nil {
			fmt.Fprintf(progress, "  applied %s\n", Describe(obj))
		}
		if !dryRun && obj.GroupVersionKind().GroupKind() == crdKind {
			if err := waitEstablished(ctx, c, obj.GetName()); err != nil {
				return err
			}
		}
	}
	return nil
}

var crdKind = schema.GroupKind{Group: apiextensionsv1.GroupName, Kind: "CustomResourceDefinition"}

// waitEstablished waits until the CRD name is served.
func waitEstablished(ctx context.Context, c client.Client, name string) error {
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, crdEstablishTimeout, true, func(ctx context.Context) (bool, error) {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		return apihelpers.IsCRDConditionTrue(crd, apiextensionsv1.Established), nil
	})
	if err != nil {
		return fmt.Errorf("CRD %s was not Established within %s: %w", name, crdEstablishTimeout, err)
	}
	return nil
}

// Delete deletes objs in the reverse of their order (the Deployment before
// its roles, namespaces last), skipping those already gone and kinds the
// cluster does not serve (their CRD went first). progress, when not nil,
// hears one line per object deleted.
func Delete(ctx context.Context, c client.Client, objs []*unstructured.Unstructured, progress io.Writer) error {
	for i := len(objs) - 1; i >= 0; i-- {
		obj := objs[i]
		err := c.Delete(ctx, obj.DeepCopy(), client.PropagationPolicy("Background"))
		switch {
		case apierrors.IsNotFound(err), meta.IsNoMatchError(err):
			continue
		case err != nil:
			return fmt.Errorf("deleting %s: %w", Describe(obj), err)
		}
		if progress != nil {
			fmt.Fprintf(progress, "  deleted %s\n", Describe(obj))
		}
	}
	return nil
}

// Describe names obj as kubectl does: kind/namespace/name.
func Describe(obj *unstructured.Unstructured) string {
	if ns := obj.GetNamespace(); ns != "" {
		return fmt.Sprintf("%s %s/%s", obj.GetKind(), ns, obj.GetName())
	}
	return fmt.Sprintf("%s %s", obj.GetKind(), obj.GetName())
}

// WaitNamespacesGone waits up to timeout until the namespaces among objs
// are gone, so that what is installed next does not meet them still
// terminating.
func WaitNamespacesGone(ctx context.Context, c client.Client, objs []*unstructured.Unstructured, timeout time.Duration) error {
	var left string
	err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		for _, obj := range objs {
			if obj.GetKind() != "Namespace" {
				continue
			}
			ns := &unstructured.Unstructured{}
			ns.SetGroupVersionKind(obj.GroupVersionKind())
			if err := c.Get(ctx, client.ObjectKey{Name: obj.GetName()}, ns); !apierrors.IsNotFound(err) {
				left = obj.GetName()
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("namespace %s is still terminating after %s: 'kubectl get namespace %s -o yaml' says what it waits for", left, timeout, left)
	}
	return nil
}
