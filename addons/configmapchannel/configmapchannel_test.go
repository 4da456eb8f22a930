package configmapchannel

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crfake "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

type sample struct {
	N int    `json:"n"`
	S string `json:"s,omitempty"`
}

func TestWriteRead(t *testing.T) {
	kube := fake.NewClientset()
	ctx := context.Background()
	var got sample
	if found, err := Read(ctx, kube, "c1", "r", &got); found || err != nil {
		t.Fatalf("Read before any write = %t, %v; want not found", found, err)
	}
	for _, v := range []sample{{N: 1}, {N: 1}, {N: 2}} {
		if err := Write(ctx, kube, "c1", "r", "test", v); err != nil {
			t.Fatal(err)
		}
	}
	writes := 0
	for _, a := range kube.Actions() {
		if a.GetVerb() == "create" || a.GetVerb() == "update" {
			writes++
		}
	}
	if writes != 2 {
		t.Errorf("%d writes for 2 distinct values, want 2 (an unchanged one is not written)", writes)
	}
	if found, err := Read(ctx, kube, "c1", "r", &got); !found || err != nil || got.N != 2 {
		t.Errorf("Read = %+v, %t, %v", got, found, err)
	}
	cm, err := kube.CoreV1().ConfigMaps("c1").Get(ctx, "r", metav1.GetOptions{})
	if err != nil || cm.Labels[LabelReport] != "test" {
		t.Errorf("the ConfigMap is not labelled as the addon's report: %v %v", cm.Labels, err)
	}
}

func TestTooLarge(t *testing.T) {
	if _, err := Encode(sample{S: strings.Repeat("x", MaxSize)}); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("Encode of an oversized report = %v, want an error saying it is too large", err)
	}
}

func TestClusterAndAddon(t *testing.T) {
	s := runtime.NewScheme()
	if err := errors.Join(clusterv1.Install(s), addonv1alpha1.Install(s)); err != nil {
		t.Fatal(err)
	}
	going := metav1.ObjectMeta{Name: "c1", DeletionTimestamp: &metav1.Time{Time: time.Unix(1, 0)}, Finalizers: []string{"test"}}
	cluster := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "c1"}}
	addon := &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: "test"}}
	other := &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: "other"}}
	disabling := &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: "test", DeletionTimestamp: going.DeletionTimestamp, Finalizers: going.Finalizers}}
	cases := map[string]struct {
		objs                   []client.Object
		wantCluster, wantAddon bool
		wantAddonGoing         bool
	}{
		"no cluster":                        {objs: []client.Object{addon}},
		"a cluster going":                   {objs: []client.Object{&clusterv1.ManagedCluster{ObjectMeta: going}, addon}},
		"the addon not enabled":             {objs: []client.Object{cluster, other}, wantCluster: true},
		"the addon enabled":                 {objs: []client.Object{cluster, addon}, wantCluster: true, wantAddon: true},
		"the addon being disabled: kept in": {objs: []client.Object{cluster, disabling}, wantCluster: true, wantAddon: true, wantAddonGoing: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := crfake.NewClientBuilder().WithScheme(s).WithObjects(tc.objs...).Build()
			gotCluster, gotAddon, err := ClusterAndAddon(context.Background(), c, "c1", "test")
			if err != nil {
				t.Fatal(err)
			}
			if (gotCluster != nil) != tc.wantCluster || (gotAddon != nil) != tc.wantAddon {
				t.Fatalf("cluster %v, addon %v; want a cluster %t, an addon %t", gotCluster, gotAddon, tc.wantCluster, tc.wantAddon)
			}
			if gotAddon != nil && !gotAddon.DeletionTimestamp.IsZero() != tc.wantAddonGoing {
				t.Errorf("addon deletion %v, want one being deleted %t", gotAddon.DeletionTimestamp, tc.wantAddonGoing)
			}
		})
	}
}

// TestClusterAndAddonErrors checks an error reading either is returned,
// with neither object.
func TestClusterAndAddonErrors(t *testing.T) {
	s := runtime.NewScheme()
	if err := errors.Join(clusterv1.Install(s), addonv1alpha1.Install(s)); err != nil {
		t.Fatal(err)
	}
	cluster := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "c1"}}
	for name, failing := range map[string]client.Object{"reading the cluster": &clusterv1.ManagedCluster{}, "reading the addon": &addonv1alpha1.ManagedClusterAddOn{}} {
		t.Run(name, func(t *testing.T) {
			c := crfake.NewClientBuilder().WithScheme(s).WithObjects(cluster).WithInterceptorFuncs(interceptor.Funcs{
				Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
					if reflect.TypeOf(obj) == reflect.TypeOf(failing) {
						return errors.New("the hub is down")
					}
					return c.Get(ctx, key, obj, opts...)
				},
			}).Build()
			gotCluster, gotAddon, err := ClusterAndAddon(context.Background(), c, "c1", "test")
			if err == nil || gotCluster != nil || gotAddon != nil {
				t.Errorf("ClusterAndAddon = %v, %v, %v; want only the error", gotCluster, gotAddon, err)
			}
		})
	}
}
