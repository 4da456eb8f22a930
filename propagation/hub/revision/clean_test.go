package revision

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestClean(t *testing.T) {
	cases := map[string]struct {
		in, want string
	}{
		"what the hub's API server set, the status and kubectl's annotation": {
			in: `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  uid: 6f1c
  resourceVersion: "42"
  generation: 3
  creationTimestamp: "2026-01-01T00:00:00Z"
  deletionTimestamp: "2026-01-02T00:00:00Z"
  deletionGracePeriodSeconds: 30
  selfLink: /apis/apps/v1/namespaces/shop/deployments/web
  managedFields: [{manager: kubectl, operation: Apply}]
  ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: owner, uid: a1}]
  labels: {app: web}
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{"big":"copy"}'
    team: shop
spec: {replicas: 2}
status: {replicas: 2, readyReplicas: 1}
`,
			want: `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  labels: {app: web}
  annotations: {team: shop}
spec: {replicas: 2}
`,
		},
		"annotations left empty go": {
			in: `
apiVersion: v1
kind: ConfigMap
metadata:
  name: web
  annotations: {kubectl.kubernetes.io/last-applied-configuration: '{}'}
data: {a: b}
`,
			want: `
apiVersion: v1
kind: ConfigMap
metadata: {name: web}
data: {a: b}
`,
		},
		"a Service's allocated IPs and ports": {
			in: `
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  type: LoadBalancer
  clusterIP: 10.0.0.7
  clusterIPs: [10.0.0.7]
  healthCheckNodePort: 31000
  externalTrafficPolicy: Local
  ports:
  - {port: 80, targetPort: 8080, nodePort: 30080}
  - {port: 443, nodePort: 30443}
`,
			want: `
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  type: LoadBalancer
  externalTrafficPolicy: Local
  ports:
  - {port: 80, targetPort: 8080}
  - {port: 443}
`,
		},
		"a headless Service stays headless": {
			in: `
apiVersion: v1
kind: Service
metadata: {name: db}
spec: {clusterIP: None, clusterIPs: [None], ports: [{port: 5432}]}
`,
			want: `
apiVersion: v1
kind: Service
metadata: {name: db}
spec: {clusterIP: None, clusterIPs: [None], ports: [{port: 5432}]}
`,
		},
		"a Job's generated selector and uid labels": {
			in: `
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  labels: {controller-uid: u1, batch.kubernetes.io/controller-uid: u1, job-name: migrate}
spec:
  selector: {matchLabels: {batch.kubernetes.io/controller-uid: u1}}
  template:
    metadata:
      labels: {controller-uid: u1, batch.kubernetes.io/controller-uid: u1, app: migrate}
    spec: {restartPolicy: Never}
`,
			want: `
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  labels: {job-name: migrate}
spec:
  template:
    metadata:
      labels: {app: migrate}
    spec: {restartPolicy: Never}
`,
		},
		"a Job's uid labels the only ones": {
			in: `
apiVersion: batch/v1
kind: Job
metadata: {name: migrate, labels: {controller-uid: u1}}
spec:
  selector: {matchLabels: {controller-uid: u1}}
  template: {metadata: {labels: {controller-uid: u1}}}
`,
			want: `
apiVersion: batch/v1
kind: Job
metadata: {name: migrate}
spec:
  template: {metadata: {}}
`,
		},
		"a Job whose selector the user chose": {
			in: `
apiVersion: batch/v1
kind: Job
metadata: {name: migrate}
spec:
  manualSelector: true
  selector: {matchLabels: {controller-uid: mine}}
  template: {metadata: {labels: {controller-uid: mine}}}
`,
			want: `
apiVersion: batch/v1
kind: Job
metadata: {name: migrate}
spec:
  manualSelector: true
  selector: {matchLabels: {controller-uid: mine}}
  template: {metadata: {labels: {controller-uid: mine}}}
`,
		},
		"a kind named Service of another group": {
			in: `
apiVersion: serving.knative.dev/v1
kind: Service
metadata: {name: web}
spec: {clusterIP: keep}
`,
			want: `
apiVersion: serving.knative.dev/v1
kind: Service
metadata: {name: web}
spec: {clusterIP: keep}
`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := obj(t, tc.in)
			Clean(got)
			if diff := cmp.Diff(obj(t, tc.want).Object, got.Object); diff != "" {
				t.Errorf("Clean (-want +got):\n%s", diff)
			}
		})
	}
}
