package revision

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSkipped(t *testing.T) {
	type verdict struct {
		Reason  string
		Skipped bool
	}
	cases := map[string]struct {
		in   string
		want verdict
	}{
		"a Deployment": {
			in: `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, namespace: shop}}`,
		},
		"a ReplicaSet a Deployment controls": {
			in: `
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web-5d8
  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: u1, controller: true}]
`,
			want: verdict{"controlled by Deployment/web, which makes it on each cluster", true},
		},
		"an object with an owner that does not control it": {
			in: `
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: other, uid: u2}]
`,
		},
		"kube-root-ca.crt": {
			in:   `{apiVersion: v1, kind: ConfigMap, metadata: {name: kube-root-ca.crt, namespace: shop}}`,
			want: verdict{"each cluster publishes its own kube-root-ca.crt", true},
		},
		"another ConfigMap": {
			in: `{apiVersion: v1, kind: ConfigMap, metadata: {name: kube-root-ca, namespace: shop}}`,
		},
		"a service-account token Secret": {
			in:   `{apiVersion: v1, kind: Secret, type: kubernetes.io/service-account-token, metadata: {name: builder-token}}`,
			want: verdict{"a service-account token is valid on the hub only", true},
		},
		"an Opaque Secret": {
			in: `{apiVersion: v1, kind: Secret, type: Opaque, metadata: {name: db}}`,
		},
		"the default ServiceAccount": {
			in:   `{apiVersion: v1, kind: ServiceAccount, metadata: {name: default, namespace: shop}}`,
			want: verdict{"each cluster makes its own default ServiceAccount", true},
		},
		"another ServiceAccount": {
			in: `{apiVersion: v1, kind: ServiceAccount, metadata: {name: builder, namespace: shop}}`,
		},
		"a core Event": {
			in:   `{apiVersion: v1, kind: Event, metadata: {name: web.1}}`,
			want: verdict{"events are not propagated", true},
		},
		"an events.k8s.io Event": {
			in:   `{apiVersion: events.k8s.io/v1, kind: Event, metadata: {name: web.1}}`,
			want: verdict{"events are not propagated", true},
		},
		"an OCM ManifestWork": {
			in:   `{apiVersion: work.open-cluster-management.io/v1, kind: ManifestWork, metadata: {name: w}}`,
			want: verdict{"ManifestWork is of the fleet's own API group work.open-cluster-management.io", true},
		},
		"a Propagation": {
			in:   `{apiVersion: apps.corral.dev/v1alpha1, kind: Propagation, metadata: {name: p}}`,
			want: verdict{"Propagation is of the fleet's own API group apps.corral.dev", true},
		},
		"a group that only ends like corral's": {
			in: `{apiVersion: notcorral.dev/v1, kind: Widget, metadata: {name: w}}`,
		},
		"a kind named ServiceAccount of another group": {
			in: `{apiVersion: example.com/v1, kind: ServiceAccount, metadata: {name: default}}`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got verdict
			got.Reason, got.Skipped = Skipped(obj(t, tc.in))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Skipped (-want +got):\n%s", diff)
			}
		})
	}
}
