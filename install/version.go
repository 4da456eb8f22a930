package install

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// VersionLabel is the label of every installed object that says which
// corral version it is of.
const VersionLabel = "app.kubernetes.io/version"

// InstalledVersion is the corral version of the Deployment namespace/name,
// "" when there is none.
func InstalledVersion(ctx context.Context, c client.Client, namespace, name string) (string, error) {
	d := &appsv1.Deployment{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, d); err != nil {
		return "", client.IgnoreNotFound(err)
	}
	return d.Labels[VersionLabel], nil
}
