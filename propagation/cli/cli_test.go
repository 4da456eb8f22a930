package cli

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/corral-dev/corral/internal/confirm/confirmtest"
	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/internal/hubclient/hubclienttest"
	"github.com/corral-dev/corral/propagation/api/v1alpha1"
)

var testNow = time.Date(2026, 12, 4, 8, 0, 0, 0, time.UTC)

// testMapper is the hub's RESTMapper: Deployments and ConfigMaps are
// namespaced, Namespaces are not; anything else is unknown.
func testMapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	m.Add(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, meta.RESTScopeNamespace)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, meta.RESTScopeNamespace)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, meta.RESTScopeRoot)
	return m
}

func manifest(kind, ns, name string) workv1.Manifest {
	meta := `{"name":"` + name + `"`
	if ns != "" {
		meta += `,"namespace":"` + ns + `"`
	}
	return workv1.Manifest{RawExtension: runtime.RawExtension{Raw: []byte(`{"apiVersion":"v1","kind":"` + kind + `","metadata":` + meta + `}}`)}}
}

func rev(name string, n int64, objects ...workv1.Manifest) *v1alpha1.PropagationRevision {
	return &v1alpha1.PropagationRevision{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name + "-" + string(rune('0'+n)),
			Labels: map[string]string{v1alpha1.LabelPropagation: name}, CreationTimestamp: metav1.NewTime(testNow.Add(-time.Duration(10-n) * time.Minute))},
		Spec: v1alpha1.RevisionSpec{Revision: n, Hash: "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", Objects: objects},
	}
}

func work(cluster, name string, labels map[string]string, objects ...workv1.ManifestCondition) *workv1.ManifestWork {
	return &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: name, Labels: labels},
		Status: workv1.ManifestWorkStatus{ResourceStatus: workv1.ManifestResourceStatus{Manifests: objects}}}
}

// fixture is a hub: objects web and cfg in shop, a bound set, clusters c1
// and c2, placement two, and propagation api delivered at revision 3 of 3
// to c1 and c2; revision 2 lacks configmap api-cfg.
func fixture(t *testing.T) client.WithWatch {
	t.Helper()
	pinless := &v1alpha1.Propagation{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "api", Generation: 1, CreationTimestamp: metav1.NewTime(testNow.Add(-2 * time.Hour))},
		Spec: v1alpha1.PropagationSpec{
			ResourceSelectors: []v1alpha1.ResourceSelector{{Group: "apps", Version: "v1", Kind: "Deployment", Name: "api"}},
			PlacementRefs:     []v1alpha1.LocalPlacementReference{{Name: "two"}},
			PropagationPolicy: v1alpha1.PropagationPolicy{DeletionPolicy: v1alpha1.DeletionPolicyDelete},
		},
		Status: v1alpha1.PropagationStatus{CurrentRevision: 3, DeliveredRevision: 3,
			Conditions: []metav1.Condition{
				{Type: v1alpha1.ConditionSelected, Status: metav1.ConditionTrue, Reason: "Selected", ObservedGeneration: 1},
				{Type: v1alpha1.ConditionScheduled, Status: metav1.ConditionTrue, Reason: "Scheduled", ObservedGeneration: 1},
				{Type: v1alpha1.ConditionAvailable, Status: metav1.ConditionFalse, Reason: "Progressing", Message: "1 of 2 clusters available", ObservedGeneration: 1}},
			Summary: v1alpha1.PropagationSummary{Total: 2, Applied: 2, Available: 1},
			Clusters: []v1alpha1.ClusterStatus{
				{Cluster: "c2", Revision: 3, Conditions: []metav1.Condition{{Type: v1alpha1.ConditionApplied, Status: metav1.ConditionTrue},
					{Type: v1alpha1.ConditionAvailable, Status: metav1.ConditionFalse, Reason: "Unavailable", Message: "deployment api: 0 of 2 ready"}}},
				{Cluster: "c1", Revision: 3, Conditions: []metav1.Condition{{Type: v1alpha1.ConditionApplied, Status: metav1.ConditionTrue},
					{Type: v1alpha1.ConditionAvailable, Status: metav1.ConditionTrue}}},
			}},
	}
	return hubclienttest.NewClientBuilder(t,
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "cfg"}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop"}},
		&clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "c1"}},
		&clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "c2"}},
		&clusterv1beta2.ManagedClusterSetBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "prod"}, Spec: clusterv1beta2.ManagedClusterSetBindingSpec{ClusterSet: "prod"}},
		&clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "two"}},
		pinless,
		work("c2", "prop.shop.api-0", map[string]string{v1alpha1.LabelPropagation: "api", v1alpha1.LabelPropagationNamespace: "shop"},
			workv1.ManifestCondition{ResourceMeta: workv1.ManifestResourceMeta{Kind: "Deployment", Namespace: "shop", Name: "api"},
				Conditions: []metav1.Condition{{Type: workv1.ManifestApplied, Status: metav1.ConditionTrue},
					{Type: workv1.ManifestAvailable, Status: metav1.ConditionFalse, Message: "0 of 2 replicas ready"}}}),
		work("c2", "prop.other.api-0", map[string]string{v1alpha1.LabelPropagation: "api", v1alpha1.LabelPropagationNamespace: "other"},
			workv1.ManifestCondition{ResourceMeta: workv1.ManifestResourceMeta{Kind: "Secret", Namespace: "other", Name: "not-this-one"}}),
		rev("api", 2, manifest("Deployment", "shop", "api")),
		rev("api", 3, manifest("Deployment", "shop", "api"), manifest("ConfigMap", "shop", "api-cfg")),
	).WithStatusSubresource(&v1alpha1.Propagation{}).WithRESTMapper(testMapper()).Build()
}

// snapshot is every object of the kinds the verbs write, to tell that a
// refusal wrote nothing.
func snapshot(t *testing.T, c client.Client) string {
	t.Helper()
	var b strings.Builder
	for _, l := range []client.ObjectList{&v1alpha1.PropagationList{}, &v1alpha1.ClusterPropagationList{}, &clusterv1beta1.PlacementList{}} {
		if err := c.List(context.Background(), l); err != nil {
			t.Fatal(err)
		}
		items, _ := meta.ExtractList(l)
		for _, o := range items {
			a, _ := meta.Accessor(o)
			b.WriteString(a.GetNamespace() + "/" + a.GetName() + "@" + a.GetResourceVersion() + " ")
		}
	}
	return b.String()
}

func run(t *testing.T, v hubclient.Verb) error {
	t.Helper()
	return hubclient.Run(context.Background(), v)
}

func TestPropagate(t *testing.T) {
	cases := map[string]struct {
		args      []string
		placement string
		clusters  []string
		name      string
		dryRun    bool
		wantErr   string
		wantOut   []string
		// want is the kind and key created, "" for nothing.
		want string
	}{
		"a deployment and a configmap to a placement": {args: []string{"deployment/web", "configmap/cfg"}, placement: "two",
			want: "Propagation shop/web", wantOut: []string{"propagation shop/web created: see where it goes with corral propagation get web -n shop"}},
		"a group-qualified plural": {args: []string{"deployments.apps/web"}, placement: "two", want: "Propagation shop/web"},
		"a namespace makes a ClusterPropagation": {args: []string{"namespace/shop"}, placement: "two", want: "ClusterPropagation /shop",
			wantOut: []string{"clusterpropagation shop created"}},
		"--clusters makes the placement too": {args: []string{"deployment/web"}, clusters: []string{"c2", "c1"}, want: "Propagation shop/web",
			wantOut: []string{"placement shop/web created"}},
		"dry run writes nothing": {args: []string{"deployment/web"}, placement: "two", dryRun: true,
			wantOut: []string{"propagation shop/web: created, delivering deployment/web", "dry run: nothing was changed"}},
		"an unknown kind": {args: []string{"widget/w"}, placement: "two",
			wantErr: `the hub serves no kind "widget" (in widget/w): check the spelling, or install its CRD first (kubectl api-resources lists the kinds); nothing was created`},
		"namespaced and cluster-scoped together": {args: []string{"deployment/web", "namespace/shop"}, placement: "two",
			wantErr: "deployment/web namespaced and namespace/shop cluster-scoped: propagate them with two commands"},
		"an existing propagation": {args: []string{"deployment/web"}, placement: "two", name: "api",
			wantErr: "propagation shop/api already exists: see it with corral propagation get api -n shop, or choose another --name; nothing was created"},
		"an object not on the hub": {args: []string{"deployment/gone"}, placement: "two",
			wantErr: "deployment shop/gone is not on the hub: create it there first (kubectl apply), then propagate it; nothing was created"},
		"a placement that does not exist": {args: []string{"deployment/web"}, placement: "nowhere",
			wantErr: "no placement nowhere in namespace shop: create it with corral placement create nowhere -n shop, or give --clusters C1,C2 instead; nothing was created"},
		"a cluster that does not exist": {args: []string{"deployment/web"}, clusters: []string{"c1", "c9"},
			wantErr: "no cluster c9 on this hub: corral get clusters lists them; nothing was created"},
		"--clusters whose placement exists": {args: []string{"deployment/web"}, clusters: []string{"c1"}, name: "two",
			wantErr: "placement shop/two already exists: use it with --placement two instead of --clusters"},
		"neither --placement nor --clusters": {args: []string{"deployment/web"},
			wantErr: "say where the objects go: --placement PLACEMENT"},
		"not KIND/NAME": {args: []string{"web"}, placement: "two", wantErr: `"web": name each object as KIND/NAME`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fixture(t)
			before := snapshot(t, c)
			var out bytes.Buffer
			o := NewPropagateOptions(&out)
			o.Hub = hubclient.Hub{Client: c}
			o.Objects, o.Namespace, o.Placement, o.Clusters, o.Name, o.Confirm.DryRun = tc.args, "shop", tc.placement, tc.clusters, tc.name, tc.dryRun
			err := run(t, o)
			confirmtest.Expect(t, err, out.String(), tc.wantErr, tc.wantOut, nil)
			if tc.want == "" {
				if after := snapshot(t, c); after != before {
					t.Errorf("wrote on the hub:\nbefore %s\nafter  %s", before, after)
				}
				return
			}
			kind, key, _ := strings.Cut(tc.want, " ")
			ns, n, _ := strings.Cut(key, "/")
			var obj client.Object = &v1alpha1.Propagation{}
			if kind == "ClusterPropagation" {
				obj = &v1alpha1.ClusterPropagation{}
			}
			if err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: n}, obj); err != nil {
				t.Fatalf("%s not created: %v", tc.want, err)
			}
		})
	}
}

func TestPropagateClustersPlacement(t *testing.T) {
	c := fixture(t)
	var out bytes.Buffer
	o := NewPropagateOptions(&out)
	o.Hub, o.Objects, o.Namespace, o.Clusters = hubclient.Hub{Client: c}, []string{"deployment/web"}, "shop", []string{"c2", "c1"}
	if err := run(t, o); err != nil {
		t.Fatal(err)
	}
	p := &clusterv1beta1.Placement{}
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: "shop", Name: "web"}, p); err != nil {
		t.Fatal(err)
	}
	two := int32(2)
	want := clusterv1beta1.PlacementSpec{NumberOfClusters: &two, Predicates: []clusterv1beta1.ClusterPredicate{{RequiredClusterSelector: clusterv1beta1.ClusterSelector{
		CelSelector: clusterv1beta1.ClusterCelSelector{CelExpressions: []string{"managedCluster.metadata.name in ['c1', 'c2']"}}}}}}
	if diff := cmp.Diff(want, p.Spec); diff != "" {
		t.Errorf("placement (-want +got):\n%s", diff)
	}
}

func TestPropagateRefusesUnboundNamespace(t *testing.T) {
	c := fixture(t)
	if err := c.Delete(context.Background(), &clusterv1beta2.ManagedClusterSetBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "prod"}}); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, c)
	var out bytes.Buffer
	o := NewPropagateOptions(&out)
	o.Hub, o.Objects, o.Namespace, o.Clusters = hubclient.Hub{Client: c}, []string{"deployment/web"}, "shop", []string{"c1"}
	confirmtest.Expect(t, run(t, o), out.String(), "no cluster set is bound to namespace shop, so a placement there selects no cluster: bind one with corral clusterset bind SET -n shop; nothing was created", nil, nil)
	if after := snapshot(t, c); after != before {
		t.Errorf("wrote on the hub:\nbefore %s\nafter  %s", before, after)
	}
}

func TestPropagatePrintsYAML(t *testing.T) {
	c := fixture(t)
	before := snapshot(t, c)
	var out bytes.Buffer
	o := NewPropagateOptions(&out)
	o.Hub, o.Objects, o.Namespace, o.Clusters, o.Output = hubclient.Hub{Client: c}, []string{"deployment/web"}, "shop", []string{"c1"}, "yaml"
	o.Rollout, o.DeletionPolicy = "Progressive:1", "Orphan"
	if err := run(t, o); err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(out.String(), "\n---\n")
	if len(docs) != 2 || strings.Contains(out.String(), "status:") {
		t.Fatalf("want two YAML documents, the placement and the propagation, without status:\n%s", out.String())
	}
	p, prop := &clusterv1beta1.Placement{}, &v1alpha1.Propagation{}
	for i, into := range []any{p, prop} {
		if err := yaml.UnmarshalStrict([]byte(docs[i]), into); err != nil {
			t.Fatalf("%v:\n%s", err, docs[i])
		}
	}
	one := int32(1)
	wantPlacement := &clusterv1beta1.Placement{TypeMeta: metav1.TypeMeta{APIVersion: "cluster.open-cluster-management.io/v1beta1", Kind: "Placement"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"},
		Spec: clusterv1beta1.PlacementSpec{NumberOfClusters: &one, Predicates: []clusterv1beta1.ClusterPredicate{{RequiredClusterSelector: clusterv1beta1.ClusterSelector{
			CelSelector: clusterv1beta1.ClusterCelSelector{CelExpressions: []string{"managedCluster.metadata.name in ['c1']"}}}}}}}
	if diff := cmp.Diff(wantPlacement, p); diff != "" {
		t.Errorf("placement (-want +got):\n%s", diff)
	}
	wantProp := &v1alpha1.Propagation{TypeMeta: metav1.TypeMeta{APIVersion: "apps.corral.dev/v1alpha1", Kind: "Propagation"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"},
		Spec: v1alpha1.PropagationSpec{
			ResourceSelectors: []v1alpha1.ResourceSelector{{Group: "apps", Version: "v1", Kind: "Deployment", Name: "web"}},
			PlacementRefs: []v1alpha1.LocalPlacementReference{{Name: "web", RolloutStrategy: clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.Progressive,
				Progressive: &clusterv1alpha1.RolloutProgressive{MaxConcurrency: intstr.FromInt32(1)}}}},
			PropagationPolicy: v1alpha1.PropagationPolicy{DeletionPolicy: v1alpha1.DeletionPolicyOrphan}}}
	if diff := cmp.Diff(wantProp, prop); diff != "" {
		t.Errorf("propagation (-want +got):\n%s", diff)
	}
	if after := snapshot(t, c); after != before {
		t.Errorf("-o yaml wrote on the hub:\nbefore %s\nafter  %s", before, after)
	}
}

func TestGet(t *testing.T) {
	cases := map[string]struct {
		name    string
		output  string
		wantErr string
		wantOut []string
		hidden  []string
	}{
		"the namespace's table": {wantOut: []string{"NAME  REVISION  CLUSTERS", "api   3/3       2 (2 applied, 1 available, 0 failed)  True      True       False Progressing  120m\n"}},
		"one, with a row per cluster": {name: "api", wantOut: []string{"Available: 1 of 2 clusters available", "Placements: shop/two",
			"c1       3         True     True", "c2       3         True     False Unavailable  -       deployment api: 0 of 2 ready",
			"CLUSTER  OBJECT               APPLIED  AVAILABLE  MESSAGE\nc2       deployment shop/api  True     False      Available: 0 of 2 replicas ready\n"},
			hidden: []string{"not-this-one"}},
		"one as yaml":   {name: "api", output: "yaml", wantOut: []string{"kind: Propagation", "name: api", "deliveredRevision: 3"}},
		"one not there": {name: "gone", wantErr: "no propagation gone in namespace shop: corral propagation get -n shop lists them"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			o := NewGetOptions(&out)
			o.Hub, o.Namespace, o.Name, o.Output, o.Now = hubclient.Hub{Client: fixture(t)}, "shop", tc.name, tc.output, testNow
			confirmtest.Expect(t, run(t, o), out.String(), tc.wantErr, tc.wantOut, tc.hidden)
		})
	}
}

func TestHistory(t *testing.T) {
	c := fixture(t)
	var out bytes.Buffer
	o := NewHistoryOptions(&out)
	o.Hub, o.Namespace, o.Name, o.Now = hubclient.Hub{Client: c}, "shop", "api", testNow
	confirmtest.Expect(t, run(t, o), out.String(), "", []string{"REVISION  OBJECTS  HASH          AGE  NOTE\n",
		"2         1        0123456789ab  8m   \n", "3         2        0123456789ab  7m   current, delivered\n"}, nil)
}

func TestRollback(t *testing.T) {
	pin := func(n int64) *int64 { return &n }
	cases := map[string]struct {
		to      int64
		latest  bool
		yes     bool
		dryRun  bool
		wantErr string
		wantOut []string
		// wantPin is the pin after; unchanged when wantErr or dryRun.
		wantPin *int64
	}{
		"to revision 2, with --yes": {to: 2, yes: true, wantPin: pin(2),
			wantOut: []string{"propagation shop/api: delivers revision 2 instead of revision 3\n", "on 2 clusters (c1, c2): revision 3's objects are replaced by revision 2's (deployment shop/api)",
				"not in revision 2, so deleted from the clusters: configmap shop/api-cfg", "propagation shop/api now delivers revision 2"}},
		"a revision that does not exist": {to: 7, yes: true,
			wantErr: "propagation shop/api has no revision 7: it has 2, 3 (corral propagation history api -n shop); nothing was changed"},
		"off a terminal without --yes": {to: 2,
			wantErr: "not asked on a terminal, so refusing to roll propagation shop/api to revision 2"},
		"dry run":                     {to: 2, dryRun: true, wantOut: []string{"dry run: nothing was changed"}},
		"--latest on an unpinned one": {latest: true, wantOut: []string{"propagation shop/api already delivers the newest revision: nothing was changed"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fixture(t)
			before := snapshot(t, c)
			var out bytes.Buffer
			o := NewRollbackOptions(&out)
			o.Hub, o.Namespace, o.Name, o.Latest = hubclient.Hub{Client: c}, "shop", "api", tc.latest
			o.Confirm.Yes, o.Confirm.DryRun, o.Confirm.Terminal = tc.yes, tc.dryRun, false
			if !tc.latest {
				o.ToRevision = tc.to
			}
			confirmtest.Expect(t, run(t, o), out.String(), tc.wantErr, tc.wantOut, nil)
			got := &v1alpha1.Propagation{}
			if err := c.Get(context.Background(), client.ObjectKey{Namespace: "shop", Name: "api"}, got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantPin, got.Spec.Revision); diff != "" {
				t.Errorf("pin (-want +got):\n%s", diff)
			}
			if tc.wantPin == nil {
				if after := snapshot(t, c); after != before {
					t.Errorf("wrote on the hub:\nbefore %s\nafter  %s", before, after)
				}
			}
		})
	}
}

func TestRollbackValidate(t *testing.T) {
	cases := map[string]struct {
		o       RollbackOptions
		wantErr string
	}{
		"no revision":      {o: RollbackOptions{ToRevision: -1}, wantErr: "say which revision: --to-revision N (corral propagation history api -n shop lists them), or --latest"},
		"both":             {o: RollbackOptions{ToRevision: 2, Latest: true}, wantErr: "give --to-revision 2 or --latest, not both"},
		"a bad kind":       {o: RollbackOptions{ToRevision: 2, Name: "deployment/api"}, wantErr: `"deployment/api": give a propagation's NAME, or clusterpropagation/NAME`},
		"zero is --latest": {o: RollbackOptions{ToRevision: 0}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := tc.o
			o.Namespace = "shop"
			if o.Name == "" {
				o.Name = "api"
			}
			confirmtest.Expect(t, o.Validate(), "", tc.wantErr, nil, nil)
		})
	}
}

func TestDelete(t *testing.T) {
	cases := map[string]struct {
		orphan  bool
		yes     bool
		wantErr string
		wantOut []string
		hidden  []string
		deleted bool
	}{
		"Delete, with --yes": {yes: true, deleted: true,
			wantOut: []string{"propagation shop/api and its 2 revisions, from the hub",
				"from 2 clusters (c1, c2): deployment shop/api, configmap shop/api-cfg (deletionPolicy Delete)", "propagation shop/api deleted"}},
		"Orphan says what stays": {orphan: true, yes: true, deleted: true,
			wantOut: []string{"deletionPolicy Orphan: on 2 clusters (c1, c2) these stay, no longer managed: deployment shop/api, configmap shop/api-cfg"},
			hidden:  []string{"deletionPolicy Delete"}},
		"refused off a terminal without --yes": {
			wantErr: "not asked on a terminal, so refusing to delete propagation shop/api: it removes what is listed above; pass --yes to go ahead"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fixture(t)
			if tc.orphan {
				p := &v1alpha1.Propagation{}
				key := client.ObjectKey{Namespace: "shop", Name: "api"}
				if err := c.Get(context.Background(), key, p); err != nil {
					t.Fatal(err)
				}
				p.Spec.DeletionPolicy = v1alpha1.DeletionPolicyOrphan
				if err := c.Update(context.Background(), p); err != nil {
					t.Fatal(err)
				}
			}
			before := snapshot(t, c)
			var out bytes.Buffer
			o := NewDeleteOptions(&out)
			o.Hub, o.Namespace, o.Name = hubclient.Hub{Client: c}, "shop", "api"
			o.Confirm.Yes, o.Confirm.Terminal = tc.yes, false
			confirmtest.Expect(t, run(t, o), out.String(), tc.wantErr, tc.wantOut, tc.hidden)
			err := c.Get(context.Background(), client.ObjectKey{Namespace: "shop", Name: "api"}, &v1alpha1.Propagation{})
			if gone := err != nil; gone != tc.deleted {
				t.Errorf("deleted: %v, want %v", gone, tc.deleted)
			}
			if !tc.deleted {
				if after := snapshot(t, c); after != before {
					t.Errorf("wrote on the hub:\nbefore %s\nafter  %s", before, after)
				}
			}
		})
	}
}

func TestPropagateValidate(t *testing.T) {
	cases := map[string]struct {
		o       PropagateOptions
		wantErr string
	}{
		"both --placement and --clusters": {o: PropagateOptions{Placement: "two", Clusters: []string{"c1"}}, wantErr: "give --placement two or --clusters, not both"},
		"a bad cluster name":              {o: PropagateOptions{Clusters: []string{"C1"}}, wantErr: `--clusters: "C1" is not a cluster name`},
		"a bad deletion policy":           {o: PropagateOptions{Placement: "two", DeletionPolicy: "Keep"}, wantErr: `--deletion-policy "Keep": give Delete`},
		"an unknown rollout":              {o: PropagateOptions{Placement: "two", Rollout: "Canary"}, wantErr: `--rollout "Canary": give All, Progressive[:N]`},
		"a rollout of no clusters at a time": {o: PropagateOptions{Placement: "two", Rollout: "Progressive:0"},
			wantErr: `--rollout "Progressive:0": after Progressive: give how many clusters at a time`},
		"a name too long for a label": {o: PropagateOptions{Placement: "two", Name: strings.Repeat("a", 64)},
			wantErr: "choose another with --name"},
		"a bad output": {o: PropagateOptions{Placement: "two", Output: "wide"}, wantErr: `--output "wide" is not supported`},
		"a percentage": {o: PropagateOptions{Placement: "two", Rollout: "Progressive:25%"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := tc.o
			o.Objects, o.Namespace = []string{"deployment/web"}, "shop"
			if o.DeletionPolicy == "" {
				o.DeletionPolicy = "Delete"
			}
			if o.Rollout == "" {
				o.Rollout = "All"
			}
			confirmtest.Expect(t, o.Validate(), "", tc.wantErr, nil, nil)
		})
	}
}

func TestGetClusterPropagation(t *testing.T) {
	c := hubclienttest.NewClientBuilder(t, &v1alpha1.ClusterPropagation{ObjectMeta: metav1.ObjectMeta{Name: "shop", CreationTimestamp: metav1.NewTime(testNow.Add(-time.Minute))},
		Status: v1alpha1.PropagationStatus{CurrentRevision: 2, DeliveredRevision: 1}, Spec: v1alpha1.ClusterPropagationSpec{PropagationPolicy: v1alpha1.PropagationPolicy{Revision: ptrTo(int64(1))}}}).Build()
	var out bytes.Buffer
	o := NewGetOptions(&out)
	o.Hub, o.AllNamespaces, o.Now = hubclient.Hub{Client: c}, true, testNow
	confirmtest.Expect(t, run(t, o), out.String(), "", []string{"NAMESPACE  NAME        REVISION", "-          cprop/shop  2/1 (pinned 1)"}, nil)
}

func TestGetWatch(t *testing.T) {
	c := fixture(t)
	hubclienttest.ExpectWatch(t, c, func(ctx context.Context, hub hubclient.Hub, out io.Writer) error {
		o := NewGetOptions(out)
		o.Hub, o.Namespace, o.Watch = hub, "shop", true
		return hubclient.Run(ctx, o)
	}, func(ctx context.Context, i int) error {
		p := &v1alpha1.Propagation{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: "shop", Name: "api"}, p); err != nil {
			return err
		}
		p.Status.CurrentRevision = 4
		return c.Status().Update(ctx, p)
	}, "4/3")
}

func ptrTo[T any](v T) *T { return &v }

func TestWorksSelector(t *testing.T) {
	cases := map[string]struct {
		r      ref
		labels map[string]string
		want   bool
	}{
		"a propagation's own work": {r: ref{Namespace: "shop", Name: "api"},
			labels: map[string]string{v1alpha1.LabelPropagation: "api", v1alpha1.LabelPropagationNamespace: "shop"}, want: true},
		"a namesake's in another namespace": {r: ref{Namespace: "shop", Name: "api"},
			labels: map[string]string{v1alpha1.LabelPropagation: "api", v1alpha1.LabelPropagationNamespace: "other"}},
		"a clusterpropagation's own work": {r: ref{Cluster: true, Name: "api"},
			labels: map[string]string{v1alpha1.LabelPropagation: "api"}, want: true},
		"a propagation's, not the clusterpropagation's": {r: ref{Cluster: true, Name: "api"},
			labels: map[string]string{v1alpha1.LabelPropagation: "api", v1alpha1.LabelPropagationNamespace: "shop"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := tc.r.worksSelector().Matches(labels.Set(tc.labels)); got != tc.want {
				t.Errorf("matches %v: %v, want %v", tc.labels, got, tc.want)
			}
		})
	}
}

// clusterFixture is a hub with clusterpropagation shop, pinned to
// revision 1 of 2, delivered to c1.
func clusterFixture(t *testing.T) client.WithWatch {
	t.Helper()
	crev := func(n int64, objects ...workv1.Manifest) *v1alpha1.ClusterPropagationRevision {
		return &v1alpha1.ClusterPropagationRevision{ObjectMeta: metav1.ObjectMeta{Name: "shop-" + string(rune('0'+n)),
			Labels: map[string]string{v1alpha1.LabelPropagation: "shop"}, CreationTimestamp: metav1.NewTime(testNow.Add(-time.Duration(10-n) * time.Minute))},
			Spec: v1alpha1.RevisionSpec{Revision: n, Hash: "sha256:fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210", Objects: objects}}
	}
	return hubclienttest.NewClientBuilder(t,
		&v1alpha1.ClusterPropagation{ObjectMeta: metav1.ObjectMeta{Name: "shop"},
			Spec:   v1alpha1.ClusterPropagationSpec{PropagationPolicy: v1alpha1.PropagationPolicy{Revision: ptrTo(int64(1)), DeletionPolicy: v1alpha1.DeletionPolicyOrphan}},
			Status: v1alpha1.PropagationStatus{CurrentRevision: 2, DeliveredRevision: 1, Clusters: []v1alpha1.ClusterStatus{{Cluster: "c1", Revision: 1}}}},
		crev(1, manifest("Namespace", "", "shop")),
		crev(2, manifest("Namespace", "", "shop"), manifest("ConfigMap", "shop", "cfg")),
	).Build()
}

func TestClusterPropagationVerbs(t *testing.T) {
	cases := map[string]struct {
		verb    func(out io.Writer, c client.WithWatch) hubclient.Verb
		wantErr string
		wantOut []string
	}{
		"history": {verb: func(out io.Writer, c client.WithWatch) hubclient.Verb {
			o := NewHistoryOptions(out)
			o.Hub, o.Name, o.Now = hubclient.Hub{Client: c}, "cprop/shop", testNow
			return o
		}, wantOut: []string{"1         1        fedcba987654  9m   delivered, pinned\n", "2         2        fedcba987654  8m   current\n"}},
		"rollback --latest": {verb: func(out io.Writer, c client.WithWatch) hubclient.Verb {
			o := NewRollbackOptions(out)
			o.Hub, o.Name, o.Latest, o.Confirm.Yes = hubclient.Hub{Client: c}, "clusterpropagation/shop", true, true
			return o
		}, wantOut: []string{"clusterpropagation shop: delivers the newest revision (2), unpinned, instead of revision 1\n",
			"on 1 cluster (c1): revision 1's objects are replaced by revision 2's (namespace shop, configmap shop/cfg)",
			"clusterpropagation shop now delivers the newest revision"}},
		"rollback to a revision pruned": {verb: func(out io.Writer, c client.WithWatch) hubclient.Verb {
			o := NewRollbackOptions(out)
			o.Hub, o.Name, o.ToRevision, o.Confirm.Yes = hubclient.Hub{Client: c}, "cprop/shop", 5, true
			return o
		}, wantErr: "clusterpropagation shop has no revision 5: it has 1, 2 (corral propagation history cprop/shop); nothing was changed"},
		"delete, Orphan": {verb: func(out io.Writer, c client.WithWatch) hubclient.Verb {
			o := NewDeleteOptions(out)
			o.Hub, o.Name, o.Confirm.Yes = hubclient.Hub{Client: c}, "cprop/shop", true
			return o
		}, wantOut: []string{"deletionPolicy Orphan: on 1 cluster (c1) these stay, no longer managed: namespace shop", "clusterpropagation shop and its 2 revisions, from the hub"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			v := tc.verb(&out, clusterFixture(t))
			confirmtest.Expect(t, run(t, v), out.String(), tc.wantErr, tc.wantOut, nil)
		})
	}
}

func TestGetCluster(t *testing.T) {
	labels := map[string]string{v1alpha1.LabelPropagation: "api", v1alpha1.LabelPropagationNamespace: "shop"}
	withManifests := func(w *workv1.ManifestWork, raw ...string) *workv1.ManifestWork {
		for _, r := range raw {
			w.Spec.Workload.Manifests = append(w.Spec.Workload.Manifests, workv1.Manifest{RawExtension: runtime.RawExtension{Raw: []byte(r)}})
		}
		return w
	}
	p := &v1alpha1.Propagation{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "api"},
		Status: v1alpha1.PropagationStatus{DeliveredRevision: 3, Clusters: []v1alpha1.ClusterStatus{
			{Cluster: "c1", Revision: 3, Overrides: []string{"OverridePolicy shop/mirror, rule registry"},
				Drift: []v1alpha1.ObjectDrift{{ObjectReference: v1alpha1.ObjectReference{Group: "apps", Kind: "Deployment", Namespace: "shop", Name: "api"},
					Reason: "PutBack", Since: metav1.NewTime(testNow), Fields: []v1alpha1.FieldDiff{{Path: ".spec.revisionHistoryLimit", Hub: "10", Cluster: "3"}}}},
				Replicas: []v1alpha1.ReplicaShare{{ObjectReference: v1alpha1.ObjectReference{Group: "apps", Kind: "Deployment", Namespace: "shop", Name: "api"}, Replicas: 4}}},
			{Cluster: "c2"}}}}
	c := hubclienttest.NewClientBuilder(t, p,
		// Part 1 listed first: the objects come in the parts' order.
		withManifests(work("c1", "prop.shop.api-1", labels), `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"api-cfg","namespace":"shop"}}`),
		withManifests(work("c1", "prop.shop.api-0", labels), `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"api","namespace":"shop"},"spec":{"replicas":4,"template":{"spec":{"containers":[{"name":"api","image":"mirror.example/api:v1"}]}}}}`),
		withManifests(work("c1", "prop.other.api-0", map[string]string{v1alpha1.LabelPropagation: "api", v1alpha1.LabelPropagationNamespace: "other"}),
			`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"not-this-one","namespace":"other"}}`),
	).Build()
	cases := map[string]struct {
		name     string
		clusters []string
		output   string
		wantErr  string
		wantOut  []string
		hidden   []string
	}{
		"as yaml, exactly as the cluster receives it": {name: "api", clusters: []string{"c1"}, output: "yaml",
			wantOut: []string{"kind: List", "image: mirror.example/api:v1", "replicas: 4", "- apiVersion: apps/v1\n  kind: Deployment", "- apiVersion: v1\n  kind: ConfigMap"},
			hidden:  []string{"not-this-one"}},
		"a summary": {name: "api", clusters: []string{"c1"}, wantOut: []string{"Cluster c1 has revision 3 of propagation shop/api (delivered: 3).",
			"Overrides applied: OverridePolicy shop/mirror, rule registry", "Replicas (divided): deployment api: 4",
			"CLUSTER  OBJECT               REASON   SINCE                 FIELD                       HUB  CLUSTER\nc1       deployment shop/api  PutBack  2026-12-04T08:00:00Z  .spec.revisionHistoryLimit  10   3",
			"deployment shop/api     apps/v1\nconfigmap shop/api-cfg  v1"}},
		"a cluster with nothing yet": {name: "api", clusters: []string{"c2"}, wantErr: "cluster c2 has nothing of propagation shop/api yet: the rollout has not reached it"},
		"a cluster not selected": {name: "api", clusters: []string{"c9"},
			wantErr: "the placements of propagation shop/api do not select cluster c9 (they select: c1, c2): corral placement explain tells why"},
		"two clusters":   {name: "api", clusters: []string{"c1", "c2"}, wantErr: "--cluster shows what one cluster receives: give one, not c1,c2"},
		"without a name": {clusters: []string{"c1"}, wantErr: "--cluster c1 shows what that cluster receives of one propagation: name it"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			o := NewGetOptions(&out)
			o.Hub, o.Namespace, o.Name, o.Clusters, o.Output = hubclient.Hub{Client: c}, "shop", tc.name, tc.clusters, tc.output
			confirmtest.Expect(t, run(t, o), out.String(), tc.wantErr, tc.wantOut, tc.hidden)
			if tc.output == "yaml" && strings.Index(out.String(), "kind: Deployment") > strings.Index(out.String(), "kind: ConfigMap") {
				t.Errorf("the ConfigMap of part 1 before the Deployment of part 0:\n%s", out.String())
			}
		})
	}
}
