package agent

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/version"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	clienttesting "k8s.io/client-go/testing"

	"github.com/corral-dev/corral/examples/hello-addon/common"
)

// fixedVersion is a managed cluster that answers /version with v.
type fixedVersion struct {
	v   string
	err error
}

func (f fixedVersion) ServerVersion() (*version.Info, error) {
	return &version.Info{GitVersion: f.v}, f.err
}

func configMap(ns string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: common.ConfigMapName, Namespace: ns}, Data: data}
}

func TestReport(t *testing.T) {
	current := map[string]string{common.KeyKubernetesVersion: "v1.35.4", common.KeyGreeting: "hello from c1"}
	cases := map[string]struct {
		existing  []runtime.Object
		version   string
		wantWrote bool
		wantVerbs []string
		wantData  map[string]string
	}{
		"no ConfigMap yet: creates it": {
			version: "v1.35.4", wantWrote: true, wantVerbs: []string{"get", "create"}, wantData: current,
		},
		"up to date: writes nothing": {
			existing: []runtime.Object{configMap("c1", current)},
			version:  "v1.35.4", wantWrote: false, wantVerbs: []string{"get"}, wantData: current,
		},
		"the cluster was upgraded: updates the version": {
			existing: []runtime.Object{configMap("c1", current)},
			version:  "v1.36.0", wantWrote: true, wantVerbs: []string{"get", "update"},
			wantData: map[string]string{common.KeyKubernetesVersion: "v1.36.0", common.KeyGreeting: "hello from c1"},
		},
		"someone edited it: puts it back": {
			existing: []runtime.Object{configMap("c1", map[string]string{"x": "y"})},
			version:  "v1.35.4", wantWrote: true, wantVerbs: []string{"get", "update"}, wantData: current,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			hub := kubefake.NewClientset(tc.existing...)
			hub.ClearActions()
			wrote, err := Reporter{Hub: hub, Managed: fixedVersion{v: tc.version}, ClusterName: "c1"}.Report(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if wrote != tc.wantWrote {
				t.Errorf("Report said it wrote %v, want %v", wrote, tc.wantWrote)
			}
			var verbs []string
			for _, a := range hub.Actions() {
				verbs = append(verbs, a.GetVerb())
				if a.GetNamespace() != "c1" {
					t.Errorf("%s in namespace %q, want only the cluster namespace c1", a.GetVerb(), a.GetNamespace())
				}
			}
			if diff := cmp.Diff(tc.wantVerbs, verbs); diff != "" {
				t.Errorf("requests to the hub (-want +got):\n%s", diff)
			}
			got, err := hub.CoreV1().ConfigMaps("c1").Get(context.Background(), common.ConfigMapName, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantData, got.Data); diff != "" {
				t.Errorf("ConfigMap data (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReportFailures(t *testing.T) {
	t.Run("the managed cluster does not answer: nothing is written", func(t *testing.T) {
		hub := kubefake.NewClientset()
		_, err := Reporter{Hub: hub, Managed: fixedVersion{err: errors.New("connection refused")}, ClusterName: "c1"}.Report(context.Background())
		if err == nil || !strings.Contains(err.Error(), "reading the managed cluster's version") {
			t.Fatalf("err = %v, want one about the managed cluster's version", err)
		}
		if n := len(hub.Actions()); n != 0 {
			t.Errorf("%d requests to the hub, want none", n)
		}
	})
	t.Run("the hub refuses: the error names the ConfigMap", func(t *testing.T) {
		hub := kubefake.NewClientset()
		hub.PrependReactor("create", "configmaps", func(clienttesting.Action) (bool, runtime.Object, error) {
			return true, nil, errors.New("forbidden")
		})
		_, err := Reporter{Hub: hub, Managed: fixedVersion{v: "v1"}, ClusterName: "c1"}.Report(context.Background())
		if err == nil || !strings.Contains(err.Error(), "creating ConfigMap c1/hello on the hub") {
			t.Fatalf("err = %v, want one naming the ConfigMap", err)
		}
	})
}

func TestValidate(t *testing.T) {
	ok := Options{ClusterName: "c1", AddonNamespace: "ns", Hub: &rest.Config{}, Managed: &rest.Config{}}
	cases := map[string]struct {
		edit func(*Options)
		want string
	}{
		"valid":                {edit: func(*Options) {}},
		"no cluster name":      {edit: func(o *Options) { o.ClusterName = "" }, want: "--cluster-name"},
		"no addon namespace":   {edit: func(o *Options) { o.AddonNamespace = "" }, want: "--addon-namespace"},
		"no hub configuration": {edit: func(o *Options) { o.Hub = nil }, want: "client configuration"},
		"negative interval":    {edit: func(o *Options) { o.Interval = -time.Second }, want: "--interval"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := ok
			tc.edit(&o)
			err := o.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("Validate() = %v, want an error naming %s", err, tc.want)
			}
		})
	}
}
