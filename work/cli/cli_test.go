package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/corral-dev/corral/internal/confirm"
	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/internal/hubclient/hubclienttest"
	"github.com/corral-dev/corral/internal/testing/builder"
)

func fakeHub(t *testing.T, objs ...client.Object) client.WithWatch {
	t.Helper()
	return hubclienttest.NewClientBuilder(t, objs...).WithRESTMapper(testMapper()).Build()
}

// testMapper is the hub's RESTMapper, as discovery gives it, for the kinds
// the tests deliver: ConfigMaps, Secrets, Deployments and Jobs are
// namespaced, Namespaces are not; a Widget is unknown to the hub.
func testMapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	for _, gvk := range []schema.GroupVersionKind{
		{Version: "v1", Kind: "ConfigMap"}, {Version: "v1", Kind: "Secret"}, {Version: "v1", Kind: "Pod"},
		{Group: "apps", Version: "v1", Kind: "Deployment"}, {Group: "apps", Version: "v1", Kind: "DaemonSet"},
		{Group: "batch", Version: "v1", Kind: "Job"},
	} {
		m.Add(gvk, meta.RESTScopeNamespace)
	}
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, meta.RESTScopeRoot)
	return m
}

// workAddon is the work addon of cluster, Available.
func workAddon(cluster string) *addonv1alpha1.ManagedClusterAddOn {
	return builder.AddOn(cluster, "work").Condition(metav1.Condition{Type: addonv1alpha1.ManagedClusterAddOnConditionAvailable, Status: metav1.ConditionTrue, Reason: "Test"}).Obj()
}

// readyClusters are clusters the hub accepted, with their work addon
// Available.
func readyClusters(names ...string) []client.Object {
	var objs []client.Object
	for _, n := range names {
		objs = append(objs, acceptedCluster(n), workAddon(n))
	}
	return objs
}

// hubAccepted is the condition the hub reports on a cluster it accepted.
var hubAccepted = metav1.Condition{Type: clusterv1.ManagedClusterConditionHubAccepted, Status: metav1.ConditionTrue, Reason: "Test"}

// acceptedCluster is a cluster the hub accepted, as the hub reports it.
func acceptedCluster(name string) *clusterv1.ManagedCluster {
	return builder.Cluster(name).Accepted().Condition(hubAccepted).Obj()
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "manifests.yaml")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const twoObjects = `apiVersion: v1
kind: ConfigMap
metadata: {name: a, namespace: default}
---
---
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Secret, metadata: {name: s, namespace: default}}
`

func TestReadManifests(t *testing.T) {
	cases := map[string]struct {
		content string
		path    string
		want    int
		err     string
	}{
		"documents and a List":  {content: twoObjects, want: 2},
		"JSON":                  {content: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`, want: 1},
		"missing file":          {path: "/nonexistent/m.yaml", err: "manifest file /nonexistent/m.yaml does not exist"},
		"empty":                 {content: "---\n# nothing\n", err: "holds no Kubernetes objects: a work needs at least one"},
		"no name":               {content: "apiVersion: v1\nkind: ConfigMap\n", err: "manifest 0: it has no metadata.name"},
		"not YAML":              {content: "a: [b\n", err: "document 1 is not YAML or JSON"},
		"a list, not an object": {content: "- a\n- b\n", err: "document 1 is a list, not a Kubernetes object"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			path := tc.path
			if path == "" {
				path = writeFile(t, tc.content)
			}
			got, err := ReadManifests(path, nil)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil || len(got) != tc.want {
				t.Fatalf("%d manifests, %v; want %d", len(got), err, tc.want)
			}
		})
	}
	got, err := ReadManifests("-", strings.NewReader(twoObjects))
	if err != nil || len(got) != 2 {
		t.Errorf("from standard input: %d manifests, %v", len(got), err)
	}
}

func TestCreate(t *testing.T) {
	file := "good"
	cases := map[string]struct {
		objs      []client.Object
		opts      func(o *CreateOptions)
		err       string
		wantWorks []string // namespace/name
		wantSets  []string
		out       string
	}{
		"on clusters": {objs: readyClusters("c1", "c2"), opts: func(o *CreateOptions) { o.Clusters = []string{"c1", "c2"} },
			wantWorks: []string{"c1/web", "c2/web"}, out: "manifestwork web created on cluster c1\nmanifestwork web created on cluster c2\n"},
		"an unknown cluster": {objs: []client.Object{acceptedCluster("c1")}, opts: func(o *CreateOptions) { o.Clusters = []string{"c1", "nope"} },
			err: "no cluster nope on the hub (see corral get clusters); nothing was created"},
		"a cluster not accepted": {objs: []client.Object{acceptedCluster("c1"), builder.Cluster("c2").Obj()}, opts: func(o *CreateOptions) { o.Clusters = []string{"c1", "c2"} },
			err: "cluster c2 is not accepted by the hub yet: accept it first (corral accept c2); nothing was created"},
		"a work already there": {objs: append(readyClusters("c1", "c2"), &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: "c2", Name: "web"}}),
			opts: func(o *CreateOptions) { o.Clusters = []string{"c1", "c2"} }, wantWorks: []string{"c2/web"},
			err: "ManifestWork web already exists on cluster c2: change its objects with 'corral work apply web -f "},
		"on a placement": {objs: []client.Object{&clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "prod"}}},
			opts: func(o *CreateOptions) { o.Placement, o.Namespace = "prod", "apps" }, wantSets: []string{"apps/web"},
			out: "manifestworkreplicaset web created in namespace apps, on the clusters placement prod selects\n"},
		"an unknown placement": {opts: func(o *CreateOptions) { o.Placement = "prod" },
			err: "no Placement prod in namespace default on the hub: create it first, or give its namespace with -n; nothing was created"},
		"a missing file": {opts: func(o *CreateOptions) { o.Clusters = []string{"c1"}; file = "/nonexistent.yaml" },
			err: "manifest file /nonexistent.yaml does not exist"},
		"no file":            {opts: func(o *CreateOptions) { o.Clusters = []string{"c1"}; o.File = "" }, err: "give the objects to deliver with -f FILE"},
		"both targets":       {opts: func(o *CreateOptions) { o.Clusters = []string{"c1"}; o.Placement = "p" }, err: "give exactly one of --clusters or --placement"},
		"neither target":     {err: "give exactly one of --clusters or --placement"},
		"a bad cluster name": {opts: func(o *CreateOptions) { o.Clusters = []string{"C_1"} }, err: `"C_1" is not a cluster name`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			file = writeFile(t, twoObjects)
			c := fakeHub(t, tc.objs...)
			out := &bytes.Buffer{}
			o := NewCreateOptions(out)
			o.Hub.Client, o.Name, o.File, o.ErrOut = c, "web", "set below", io.Discard
			if tc.opts != nil {
				tc.opts(o)
			}
			if o.File == "set below" {
				o.File = file
			}
			err := hubclient.Run(context.Background(), o)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if tc.out != "" && out.String() != tc.out {
				t.Errorf("printed %q, want %q", out.String(), tc.out)
			}
			works := &workv1.ManifestWorkList{}
			sets := &workv1alpha1.ManifestWorkReplicaSetList{}
			if err := errorsJoin(c.List(context.Background(), works), c.List(context.Background(), sets)); err != nil {
				t.Fatal(err)
			}
			var gotWorks, gotSets []string
			for _, w := range works.Items {
				gotWorks = append(gotWorks, w.Namespace+"/"+w.Name)
				if w.Namespace != "c2" || tc.err == "" {
					if len(w.Spec.Workload.Manifests) != 2 {
						t.Errorf("work %s/%s has %d manifests, want 2", w.Namespace, w.Name, len(w.Spec.Workload.Manifests))
					}
				}
			}
			for _, s := range sets.Items {
				gotSets = append(gotSets, s.Namespace+"/"+s.Name)
				if diff := cmp.Diff([]workv1alpha1.LocalPlacementReference{{Name: "prod"}}, s.Spec.PlacementRefs); diff != "" {
					t.Errorf("placementRefs (-want +got):\n%s", diff)
				}
			}
			if diff := cmp.Diff(tc.wantWorks, gotWorks); diff != "" {
				t.Errorf("works (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantSets, gotSets); diff != "" {
				t.Errorf("sets (-want +got):\n%s", diff)
			}
		})
	}
}

// TestApply: apply creates works and sets that are not there, and gives
// those there the file's objects, keeping the rest of their spec; a set on
// another placement is refused.
func TestApply(t *testing.T) {
	oldObjects := []workv1.Manifest{{RawExtension: runtime.RawExtension{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"old","namespace":"default"}}`)}}}
	orphan := &workv1.DeleteOption{PropagationPolicy: workv1.DeletePropagationPolicyTypeOrphan}
	existingWork := &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: "c2", Name: "web"},
		Spec: workv1.ManifestWorkSpec{Workload: workv1.ManifestsTemplate{Manifests: oldObjects}, DeleteOption: orphan}}
	placement := &clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "prod"}}
	existingSet := func(on string) *workv1alpha1.ManifestWorkReplicaSet {
		return &workv1alpha1.ManifestWorkReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "web"},
			Spec: workv1alpha1.ManifestWorkReplicaSetSpec{
				ManifestWorkTemplate: workv1.ManifestWorkSpec{Workload: workv1.ManifestsTemplate{Manifests: oldObjects}, DeleteOption: orphan},
				PlacementRefs:        []workv1alpha1.LocalPlacementReference{{Name: on}},
			}}
	}
	cases := map[string]struct {
		objs    []client.Object
		opts    func(o *CreateOptions)
		twice   bool
		err     string
		out     string
		updated client.Object // read back: the file's objects, the delete option kept
	}{
		"a cluster without the work and one with it": {objs: append(readyClusters("c1", "c2"), existingWork),
			opts: func(o *CreateOptions) { o.Clusters = []string{"c1", "c2"} },
			out:  "This removes:\n  - cluster c2: the agent removes ConfigMap default/old (not in the file any more)\nmanifestwork web created on cluster c1\nmanifestwork web updated on cluster c2\n", updated: &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: "c2", Name: "web"}}},
		"again: unchanged": {objs: append(readyClusters("c2"), existingWork), opts: func(o *CreateOptions) { o.Clusters = []string{"c2"} }, twice: true,
			out: "This removes:\n  - cluster c2: the agent removes ConfigMap default/old (not in the file any more)\nmanifestwork web updated on cluster c2\nmanifestwork web unchanged on cluster c2\n"},
		"a set on the placement": {objs: []client.Object{placement, existingSet("prod")}, opts: func(o *CreateOptions) { o.Placement, o.Namespace = "prod", "apps" },
			out: "This removes:\n  - every cluster of placement prod: the agent removes ConfigMap default/old (not in the file any more)\nmanifestworkreplicaset web updated in namespace apps\n", updated: &workv1alpha1.ManifestWorkReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "web"}}},
		"no set yet": {objs: []client.Object{placement}, opts: func(o *CreateOptions) { o.Placement, o.Namespace = "prod", "apps" },
			out: "manifestworkreplicaset web created in namespace apps, on the clusters placement prod selects\n"},
		"a set on another placement": {objs: []client.Object{placement, existingSet("staging")}, opts: func(o *CreateOptions) { o.Placement, o.Namespace = "prod", "apps" },
			err: "ManifestWorkReplicaSet apps/web is on placement staging, not prod: apply changes only its objects; nothing was written"},
		"off a terminal, without --yes, dropping an object": {objs: append(readyClusters("c2"), existingWork),
			opts: func(o *CreateOptions) { o.Clusters, o.Confirm = []string{"c2"}, confirm.Options{} },
			err:  "refusing to apply web: it removes what is listed above; pass --yes"},
		"--dry-run": {objs: append(readyClusters("c2"), existingWork),
			opts: func(o *CreateOptions) { o.Clusters, o.Confirm = []string{"c2"}, confirm.Options{DryRun: true} },
			out:  "This removes:\n  - cluster c2: the agent removes ConfigMap default/old (not in the file any more)\ndry run: nothing was changed\n"},
		"a set's own work": {objs: append(readyClusters("c2"), setsWork(existingWork)),
			opts: func(o *CreateOptions) { o.Clusters = []string{"c2"} },
			err:  "ManifestWork web on cluster c2 is ManifestWorkReplicaSet apps/web's: change it through the set"},
		"a cluster not accepted": {objs: []client.Object{acceptedCluster("c1"), builder.Cluster("c2").Obj(), existingWork}, opts: func(o *CreateOptions) { o.Clusters = []string{"c1", "c2"} },
			err: "cluster c2 is not accepted by the hub yet: accept it first (corral accept c2); nothing was written"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fakeHub(t, tc.objs...)
			out := &bytes.Buffer{}
			run := func() error {
				o := NewCreateOptions(out)
				o.Hub.Client, o.Name, o.File, o.Apply, o.ErrOut = c, "web", writeFile(t, twoObjects), true, io.Discard
				o.Confirm = confirm.Options{Yes: true}
				tc.opts(o)
				return hubclient.Run(context.Background(), o)
			}
			err := run()
			if tc.twice && err == nil {
				err = run()
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				if w := (&workv1.ManifestWork{}); c.Get(context.Background(), client.ObjectKey{Namespace: "c2", Name: "web"}, w) == nil && len(w.Spec.Workload.Manifests) != 1 {
					t.Errorf("the work there was changed: %d manifests", len(w.Spec.Workload.Manifests))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out.String() != tc.out {
				t.Errorf("printed %q, want %q", out.String(), tc.out)
			}
			if tc.updated == nil {
				return
			}
			if err := c.Get(context.Background(), client.ObjectKeyFromObject(tc.updated), tc.updated); err != nil {
				t.Fatal(err)
			}
			var spec workv1.ManifestWorkSpec
			switch u := tc.updated.(type) {
			case *workv1.ManifestWork:
				spec = u.Spec
			case *workv1alpha1.ManifestWorkReplicaSet:
				spec = u.Spec.ManifestWorkTemplate
			}
			if len(spec.Workload.Manifests) != 2 || spec.DeleteOption == nil || spec.DeleteOption.PropagationPolicy != workv1.DeletePropagationPolicyTypeOrphan {
				t.Errorf("updated spec: %d manifests (want the file's 2), delete option %+v (want Orphan kept)", len(spec.Workload.Manifests), spec.DeleteOption)
			}
		})
	}
}

func errorsJoin(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// workApplied is the condition of a work its agent reported applied.
var workApplied = metav1.Condition{Type: workv1.WorkApplied, Status: metav1.ConditionTrue, Reason: "Test"}

// reportedWork is the work of the set apps/web on cluster, as its agent
// reports it: a Deployment available and a Widget not applied.
func reportedWork(cluster string) *workv1.ManifestWork {
	readyReplicas := int64(3)
	return builder.Work(cluster, "web").Label(workv1alpha1.ManifestWorkReplicaSetControllerNameLabelKey, "apps.web").
		Condition(workApplied, metav1.Condition{Type: workv1.WorkAvailable, Status: metav1.ConditionFalse, Reason: "Test", Message: "1 of 2 manifests not available"}).
		ManifestStatus(workv1.ManifestCondition{ResourceMeta: workv1.ManifestResourceMeta{Kind: "Deployment", Namespace: "default", Name: "web"},
			StatusFeedbacks: workv1.StatusFeedbackResult{Values: []workv1.FeedbackValue{{Name: "readyReplicas", Value: workv1.FieldValue{Type: workv1.Integer, Integer: &readyReplicas}}}},
			Conditions:      []metav1.Condition{{Type: workv1.ManifestApplied, Status: metav1.ConditionTrue, Reason: "Test"}, {Type: workv1.ManifestAvailable, Status: metav1.ConditionTrue, Reason: "Test"}}}).
		ManifestStatus(workv1.ManifestCondition{ResourceMeta: workv1.ManifestResourceMeta{Kind: "Widget", Name: "w"},
			Conditions: []metav1.Condition{{Type: workv1.ManifestApplied, Status: metav1.ConditionFalse, Reason: "Test", Message: "no kind Widget is installed"}}}).
		Obj()
}

// runGet runs `corral work get` as o says against c, and returns what it
// printed.
func runGet(c client.WithWatch, o *GetOptions) (string, error) {
	out := &bytes.Buffer{}
	o.Out, o.Hub.Client = out, c
	if err := o.Validate(); err != nil {
		return "", err
	}
	err := o.Run(context.Background())
	return out.String(), err
}

func TestGet(t *testing.T) {
	staleLease := metav1.Condition{Type: clusterv1.ManagedClusterConditionAvailable, Status: metav1.ConditionUnknown, Reason: "ManagedClusterLeaseUpdateStopped"}
	noReason := metav1.Condition{Type: clusterv1.ManagedClusterConditionAvailable, Status: metav1.ConditionFalse}
	c := fakeHub(t, acceptedCluster("c1"), acceptedCluster("c2"), acceptedCluster("c3"), reportedWork("c1"),
		builder.Work("c2", "other").Obj(),
		builder.Work("c3", "new").Obj(),
		builder.AddOn("c3", "work").Obj(),
		builder.Cluster("c4").Accepted().Condition(hubAccepted, staleLease).Obj(),
		builder.Work("c4", "gone").Condition(workApplied).Finalizer(workv1.ManifestWorkFinalizer).Deleting(time.Now()).Obj(),
		builder.Work("c2", "old").Condition(workApplied).Finalizer(workv1.ManifestWorkFinalizer).Deleting(time.Now()).Obj(),
		builder.Cluster("c5").Obj(), builder.Work("c5", "denied").Condition(workApplied).Obj(),
		builder.Work("c2", "unseen").Finalizer(workv1.ManifestWorkFinalizer).Deleting(time.Now()).Obj(),
		builder.Cluster("c6").Accepted().Condition(hubAccepted, noReason).Obj(), builder.Work("c6", "quiet").Condition(workApplied).Obj(),
		builder.AddOn("c4", "work").Obj())
	run := func(o *GetOptions) (string, error) { return runGet(c, o) }

	table, err := run(&GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := `CLUSTER  WORK   RESOURCE               APPLIED  AVAILABLE  DETAIL
c1       web    (work)                 True     False      from ManifestWorkReplicaSet apps/web; work addon off on c1: this status is from before, nothing applies the work now (corral addon enable work --clusters c1); Available: 1 of 2 manifests not available
c1       web    Deployment default/web  True     True       readyReplicas=3
c1       web    Widget w               False    -          Applied: no kind Widget is installed
c2       old    (work)                 True     -          deleting: waiting for a work agent to remove what it applied, but the work addon is not enabled on c2 (corral addon enable work --clusters c2)
c2       other  (work)                 -        -          not picked up: the work addon is not enabled on c2 (corral addon enable work --clusters c2)
c2       unseen (work)                 -        -          deleting: waiting for a work agent to remove what it applied, but the work addon is not enabled on c2 (corral addon enable work --clusters c2)
c3       new    (work)                 -        -          not picked up by the cluster's work agent yet
c4       gone   (work)                 True     -          deleting: waiting for the work agent on c4 to remove what it applied; cluster c4 is not available (ManagedClusterLeaseUpdateStopped): this status may be out of date
c5       denied (work)                 True     -          work addon off on c5: this status is from before, nothing applies the work now (corral addon enable work --clusters c5); cluster c5 is not accepted by the hub (corral accept c5): this status may be out of date
c6       quiet  (work)                 True     -          work addon off on c6: this status is from before, nothing applies the work now (corral addon enable work --clusters c6); cluster c6 is not available: this status may be out of date
`
	if diff := cmp.Diff(strings.Fields(want), strings.Fields(table)); diff != "" {
		t.Errorf("table (-want +got):\n%s\n%s", diff, table)
	}

	js, err := run(&GetOptions{Name: "web", Output: "json"})
	if err != nil {
		t.Fatal(err)
	}
	list := &workv1.ManifestWorkList{}
	if err := json.Unmarshal([]byte(js), list); err != nil || len(list.Items) != 1 || list.Items[0].Namespace != "c1" || list.Kind != "List" ||
		list.Items[0].Kind != "ManifestWork" || len(list.Items[0].ManagedFields) != 0 {
		t.Errorf("-o json of web: %v %+v", err, list)
	}
	js, err = run(&GetOptions{Name: "web", Clusters: []string{"c1"}, Output: "json"})
	if err != nil {
		t.Fatal(err)
	}
	one := &workv1.ManifestWork{}
	if err := json.Unmarshal([]byte(js), one); err != nil || one.Kind != "ManifestWork" || one.Namespace != "c1" {
		t.Errorf("-o json of web on c1, one work, not a list: %v %+v", err, one)
	}

	for name, tc := range map[string]struct {
		o   *GetOptions
		err string
	}{
		"unknown cluster":      {o: &GetOptions{Clusters: []string{"nope"}}, err: "no cluster nope on the hub"},
		"no work of that name": {o: &GetOptions{Name: "web", Clusters: []string{"c2"}}, err: "no ManifestWork web on cluster c2"},
		"bad output":           {o: &GetOptions{Output: "wide"}, err: `--output "wide" is not supported`},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := run(tc.o); err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("error %v, want one with %q", err, tc.err)
			}
		})
	}
}

func TestGetSets(t *testing.T) {
	web := &workv1alpha1.ManifestWorkReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web"}}
	web.Status.Conditions = []metav1.Condition{
		{Type: workv1alpha1.ManifestWorkReplicaSetConditionPlacementVerified, Status: metav1.ConditionTrue, Reason: "Test", Message: "fine"},
		{Type: workv1alpha1.ManifestWorkReplicaSetConditionManifestworkApplied, Status: metav1.ConditionFalse, Reason: "Test", Message: "1 of 2 not applied"},
	}
	web.Status.PlacementsSummary = []workv1alpha1.PlacementSummary{
		{Name: "eu", AvailableDecisionGroups: "1/1", Summary: workv1alpha1.ManifestWorkReplicaSetSummary{Total: 2, DesiredTotal: 2, Applied: 1, Available: 1}},
		{Name: "us", AvailableDecisionGroups: "0/1", Summary: workv1alpha1.ManifestWorkReplicaSetSummary{Total: 1, DesiredTotal: 3, Degraded: 1}},
	}
	c := fakeHub(t, web, acceptedCluster("c1"), &workv1alpha1.ManifestWorkReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "new"}},
		&workv1alpha1.ManifestWorkReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "team-b", Name: "theirs"}})
	run := func(o *GetOptions) (string, error) { return runGet(c, o) }

	table, err := run(&GetOptions{Namespace: "team-a"})
	if err != nil {
		t.Fatal(err)
	}
	want := `NAMESPACE  SET  PLACEMENT  GROUPS  WORKS  APPLIED  AVAILABLE  DEGRADED  DETAIL
team-a     new  -          -       0/0    0        0          0         not looked at by the hub's work addon yet
team-a     web  eu         1/1     2/2    1        1          0         ManifestworkApplied: 1 of 2 not applied
team-a     web  us         0/1     1/3    0        0          1
`
	if diff := cmp.Diff(strings.Fields(want), strings.Fields(table)); diff != "" {
		t.Errorf("table (-want +got):\n%s\n%s", diff, table)
	}

	js, err := run(&GetOptions{Namespace: "team-a", Name: "web", Output: "json"})
	if err != nil {
		t.Fatal(err)
	}
	set := &workv1alpha1.ManifestWorkReplicaSet{}
	if err := json.Unmarshal([]byte(js), set); err != nil || set.Name != "web" || set.Kind != "ManifestWorkReplicaSet" {
		t.Errorf("-o json of web, the set itself: %v %+v", err, set)
	}
	js, err = run(&GetOptions{Namespace: "team-a", Output: "yaml"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(js, "apiVersion: v1\nitems:") || !strings.Contains(js, "kind: List") {
		t.Errorf("-o yaml of the namespace's sets, a List: %s", js)
	}

	if out, err := run(&GetOptions{Namespace: "team-c"}); err != nil || out != "No ManifestWorkReplicaSets in namespace team-c.\n" {
		t.Errorf("an empty namespace: %q, %v", out, err)
	}
	if out, err := run(&GetOptions{Namespace: "c1"}); err != nil ||
		out != "No ManifestWorkReplicaSets in namespace c1.\nc1 is a cluster: its ManifestWorks show with corral work get --clusters c1\n" {
		t.Errorf("-n of a cluster: %q, %v", out, err)
	}
	for name, tc := range map[string]struct {
		o   *GetOptions
		err string
	}{
		"no set of that name":       {o: &GetOptions{Namespace: "team-a", Name: "theirs"}, err: "no ManifestWorkReplicaSet theirs in namespace team-a"},
		"a cluster and a namespace": {o: &GetOptions{Namespace: "team-a", Clusters: []string{"c1"}}, err: "give one of them"},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := run(tc.o); err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("error %v, want one with %q", err, tc.err)
			}
		})
	}
}

// teamHub is a hub whose user may not list ManifestWorks, as a team's
// user bound to a cluster set.
func teamHub(t *testing.T, objs ...client.Object) client.WithWatch {
	t.Helper()
	return hubclienttest.NewClientBuilder(t, objs...).WithInterceptorFuncs(interceptor.Funcs{
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			if _, ok := list.(*workv1.ManifestWorkList); ok {
				return apierrors.NewForbidden(workv1.Resource("manifestworks"), "", errors.New("not yours"))
			}
			return c.List(ctx, list, opts...)
		},
	}).Build()
}

func TestWhatATeamMayDo(t *testing.T) {
	ctx := context.Background()
	c := teamHub(t, &workv1alpha1.ManifestWorkReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web"}})
	get := &GetOptions{Out: &bytes.Buffer{}, Hub: hubclient.Hub{Client: c}}
	if err := get.Run(ctx); err == nil || !strings.Contains(err.Error(), "you may not list ManifestWorks in the clusters' namespaces: a namespace's ManifestWorkReplicaSets show with corral work get -n NAMESPACE") {
		t.Errorf("get: error %v, want one that says what to do", err)
	}

	out := &bytes.Buffer{}
	del := &DeleteOptions{Out: out, Hub: hubclient.Hub{Client: c}, Name: "web", Namespace: "team-a", Confirm: confirm.Options{Yes: true}}
	if err := del.Run(ctx); err != nil || out.String() != "This removes:\n  - manifestworkreplicaset team-a/web, with its works on the clusters its placement selects: it delivers no object\n"+
		"manifestworkreplicaset web deleted from namespace team-a, with its ManifestWorks\n"+
		"ManifestWorks web made with --clusters were not looked for: you may not list ManifestWorks on the clusters\n" {
		t.Errorf("delete of the team's set: %q, %v", out, err)
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "team-a", Name: "web"}, &workv1alpha1.ManifestWorkReplicaSet{}); !apierrors.IsNotFound(err) {
		t.Errorf("the set is still there: %v", err)
	}
	if err := del.Run(ctx); err == nil || err.Error() != "no ManifestWorkReplicaSet web in namespace team-a, and you may not list ManifestWorks on the clusters (see corral work get -n team-a)" {
		t.Errorf("delete of a set that is gone: %v", err)
	}
}

// configMapA is the manifest of the ConfigMap default/a.
var configMapA = workv1.Manifest{RawExtension: runtime.RawExtension{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"default"}}`)}}

func TestDelete(t *testing.T) {
	set := &workv1alpha1.ManifestWorkReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "web"}}
	cases := map[string]struct {
		objs     []client.Object
		opts     DeleteOptions
		err      string
		leftover []string
		out      string
	}{
		"on clusters": {objs: []client.Object{acceptedCluster("c1"), acceptedCluster("c2"), builder.Work("c1", "web").Manifests(configMapA).Obj(), builder.Work("c2", "web").Obj()},
			opts: DeleteOptions{Clusters: []string{"c1"}}, leftover: []string{"c2/web"},
			out: "This removes:\n  - manifestwork web on cluster c1: its agent removes ConfigMap default/a from c1\nmanifestwork web deleted from cluster c1\n"},
		"off a terminal, without --yes": {objs: []client.Object{acceptedCluster("c1"), builder.Work("c1", "web").Obj()},
			opts: DeleteOptions{Clusters: []string{"c1"}, Confirm: confirm.Options{In: strings.NewReader("y\n")}}, leftover: []string{"c1/web"},
			err: "not asked on a terminal, so refusing to delete web: it removes what is listed above; pass --yes to go ahead"},
		"--dry-run, an orphaning work and a set's": {objs: []client.Object{set, reportedWork("c2"), acceptedCluster("c1"), builder.Work("c1", "web").Manifests(configMapA).Obj(),
			&workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: "c3", Name: "web"}, Spec: workv1.ManifestWorkSpec{Workload: workv1.ManifestsTemplate{Manifests: []workv1.Manifest{configMapA}},
				DeleteOption: &workv1.DeleteOption{PropagationPolicy: workv1.DeletePropagationPolicyTypeOrphan}}}},
			opts: DeleteOptions{Namespace: "apps", Confirm: confirm.Options{DryRun: true}}, leftover: []string{"c1/web", "c2/web", "c3/web"},
			out: "This removes:\n" +
				"  - manifestworkreplicaset apps/web, with its works on c2: it delivers no object\n" +
				"  - manifestwork web on cluster c1: its agent removes ConfigMap default/a from c1\n" +
				"  - manifestwork web on cluster c3: ConfigMap default/a stay on c3 (delete option Orphan)\n" +
				"dry run: nothing was changed\n"},
		"a work already being deleted": {objs: []client.Object{acceptedCluster("c1"), acceptedCluster("c2"), builder.Work("c1", "web").Finalizer(workv1.ManifestWorkFinalizer).Deleting(time.Now()).Obj(), builder.Work("c2", "web").Obj()},
			opts: DeleteOptions{Namespace: "apps"}, leftover: []string{"c1/web"},
			out: "This removes:\n  - manifestwork web on cluster c2: it delivers no object\nmanifestwork web on cluster c1 is already being deleted: its agent removes what it applied (corral work get web --cluster c1 shows it)\n" +
				"manifestwork web deleted from cluster c2\n"},
		"a work of a set": {objs: []client.Object{acceptedCluster("c1"), acceptedCluster("c2"), builder.Work("c1", "web").Obj(), reportedWork("c2")},
			opts: DeleteOptions{Clusters: []string{"c1", "c2"}}, leftover: []string{"c1/web", "c2/web"},
			err: "ManifestWork web on cluster c2 belongs to ManifestWorkReplicaSet apps/web, which would make it again: delete the set (corral work delete web -n apps)"},
		"an unknown cluster": {objs: []client.Object{acceptedCluster("c1"), builder.Work("c1", "web").Obj()}, opts: DeleteOptions{Clusters: []string{"c1", "nope"}},
			leftover: []string{"c1/web"}, err: "no cluster nope on the hub (see corral get clusters); nothing was deleted"},
		"no work there": {objs: []client.Object{acceptedCluster("c1"), acceptedCluster("c2"), builder.Work("c1", "web").Obj()}, opts: DeleteOptions{Clusters: []string{"c1", "c2"}},
			leftover: []string{"c1/web"}, err: "no ManifestWork web on cluster c2"},
		"the set and standalone works": {objs: []client.Object{set, builder.Work("c1", "web").Obj(), reportedWork("c2")}, opts: DeleteOptions{Namespace: "apps"},
			leftover: []string{"c2/web"}}, // the set's work goes with the set, on the hub
		"nothing of that name": {opts: DeleteOptions{Namespace: "default"}, err: "no ManifestWorkReplicaSet web in namespace default and no ManifestWork web on any cluster"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fakeHub(t, tc.objs...)
			o := tc.opts
			out := &bytes.Buffer{}
			o.Out, o.Hub = out, hubclient.Hub{Client: c}
			if o.Confirm == (confirm.Options{}) {
				o.Confirm.Yes = true
			}
			o.Name = "web"
			if o.Namespace == "" {
				o.Namespace = "default"
			}
			err := o.Validate()
			if err == nil {
				err = o.Run(context.Background())
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			works := &workv1.ManifestWorkList{}
			if err := c.List(context.Background(), works); err != nil {
				t.Fatal(err)
			}
			var left []string
			for _, w := range works.Items {
				left = append(left, w.Namespace+"/"+w.Name)
			}
			if diff := cmp.Diff(tc.leftover, left); diff != "" {
				t.Errorf("works left (-want +got):\n%s", diff)
			}
			if tc.out != "" && out.String() != tc.out {
				t.Errorf("printed %q, want %q", out.String(), tc.out)
			}
			if name == "--dry-run, an orphaning work and a set's" {
				if err := c.Get(context.Background(), client.ObjectKeyFromObject(set), &workv1alpha1.ManifestWorkReplicaSet{}); err != nil {
					t.Errorf("the set is gone on a dry run: %v", err)
				}
			}
			if name == "the set and standalone works" {
				if err := c.Get(context.Background(), client.ObjectKeyFromObject(set), &workv1alpha1.ManifestWorkReplicaSet{}); err == nil {
					t.Error("the set is still there")
				}
			}
		})
	}
}

func TestResourceDetail(t *testing.T) {
	cond := func(t string, s metav1.ConditionStatus, msg string) metav1.Condition {
		return metav1.Condition{Type: t, Status: s, Message: msg}
	}
	replicas := func(name string, n int64) workv1.FeedbackValue {
		return workv1.FeedbackValue{Name: name, Value: workv1.FieldValue{Type: workv1.Integer, Integer: &n}}
	}
	cases := map[string]struct {
		m    workv1.ManifestCondition
		want string
	}{
		"feedback only": {
			m:    workv1.ManifestCondition{StatusFeedbacks: workv1.StatusFeedbackResult{Values: []workv1.FeedbackValue{replicas("ReadyReplicas", 2), replicas("Replicas", 2)}}},
			want: "ReadyReplicas=2 Replicas=2",
		},
		"problems apart from each other": {
			m: workv1.ManifestCondition{Conditions: []metav1.Condition{
				cond(workv1.ManifestApplied, metav1.ConditionFalse, `namespaces "x" not found`),
				cond(workv1.ManifestAvailable, metav1.ConditionUnknown, "the manifest was not applied")}},
			want: `Applied: namespaces "x" not found; Available: the manifest was not applied`,
		},
		"feedback apart from a problem": {
			m: workv1.ManifestCondition{
				StatusFeedbacks: workv1.StatusFeedbackResult{Values: []workv1.FeedbackValue{replicas("ReadyReplicas", 0)}},
				Conditions:      []metav1.Condition{cond(workv1.ManifestDegraded, metav1.ConditionTrue, "crash looping")}},
			want: "ReadyReplicas=0; Degraded: crash looping",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := resourceDetail(tc.m); got != tc.want {
				t.Errorf("resourceDetail = %q, want %q", got, tc.want)
			}
		})
	}
}

// setsWork is w as a ManifestWorkReplicaSet apps/web made it.
func setsWork(w *workv1.ManifestWork) *workv1.ManifestWork {
	w = w.DeepCopy()
	w.Labels = map[string]string{workv1alpha1.ManifestWorkReplicaSetControllerNameLabelKey: "apps.web"}
	return w
}
