package apply

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/corral-dev/corral/work/adoption"
)

func TestDiff(t *testing.T) {
	object := func(s string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		if err := json.Unmarshal([]byte(s), &u.Object); err != nil {
			t.Fatal(err)
		}
		return u
	}
	f := func(path, hub, cluster string) adoption.Field {
		return adoption.Field{Path: path, Hub: json.RawMessage(hub), Cluster: json.RawMessage(cluster)}
	}
	desired := object(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop",
		"labels":{"app":"web","apps.corral.dev/revision":"3"},"annotations":{"a.example/x":"1"}},
		"spec":{"replicas":6,"paused":false,"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.27","ports":[{"containerPort":80}]}]}},
		"selector":{"matchLabels":{"app":"web"}}},"status":{"replicas":1}}`)
	for name, tc := range map[string]struct {
		existing string
		ignored  []fieldPath
		want     []adoption.Field
	}{
		"the same, with defaults and others' fields": {existing: `{"metadata":{"name":"web","labels":{"app":"web","other":"x"},"annotations":{"a.example/x":"1",
			"open-cluster-management.io/object-hash":"h"},"uid":"u","resourceVersion":"7"},
			"spec":{"replicas":6.0,"progressDeadlineSeconds":600,"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.27","ports":[{"containerPort":80,"protocol":"TCP"}],
			"imagePullPolicy":"IfNotPresent"}]}},"selector":{"matchLabels":{"app":"web"}}},"status":{"replicas":9}}`},
		"a value, a label, an annotation, a missing field, a longer list": {existing: `{"metadata":{"labels":{"app":"api"}},
			"spec":{"replicas":2,"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.26","ports":[{"containerPort":80},{"containerPort":81}]}]}},
			"selector":{"matchLabels":{"app":"web"}}}}`,
			want: []adoption.Field{f(".metadata.labels.app", `"web"`, `"api"`), f(`.metadata.annotations.a\.example/x`, `"1"`, `null`),
				f(".spec.replicas", `6`, `2`), f(".spec.template.spec.containers[0].image", `"nginx:1.27"`, `"nginx:1.26"`),
				f(".spec.template.spec.containers[0].ports", `[{"containerPort":80}]`, `[{"containerPort":80},{"containerPort":81}]`)}},
		"an ignored field is none": {existing: `{"metadata":{"labels":{"app":"web"},"annotations":{"a.example/x":"1"}},"spec":{"replicas":2,
			"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.27","ports":[{"containerPort":80}]}]}},"selector":{"matchLabels":{"app":"web"}}}}`,
			ignored: []fieldPath{{"spec", "replicas"}}},
		"an object where the cluster has a string": {existing: `{"metadata":{"labels":{"app":"web"},"annotations":{"a.example/x":"1"}},"spec":"x"}`,
			want: []adoption.Field{f(".spec", `{"paused":false,"replicas":6,"selector":{"matchLabels":{"app":"web"}},"template":{"spec":{"containers":[{"image":"nginx:1.27","name":"web","ports":[{"containerPort":80}]}]}}}`, `"x"`)}},
	} {
		t.Run(name, func(t *testing.T) {
			got := Diff(desired, object(tc.existing), tc.ignored)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
		})
	}
}
