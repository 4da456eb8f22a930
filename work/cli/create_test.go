package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/internal/hubclient/hubclienttest"
	"github.com/corral-dev/corral/internal/testing/builder"
)

const webApp = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: apps}
spec: {replicas: 2}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: web, namespace: apps}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
`

// deliver runs create (or apply) of webApp as opts says against c, and
// returns what it printed and warned.
func deliver(t *testing.T, c client.WithWatch, apply bool, opts func(o *CreateOptions)) (string, string, error) {
	t.Helper()
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	o := NewCreateOptions(out)
	o.Hub.Client, o.Name, o.File, o.Apply, o.ErrOut, o.Progress = c, "web", writeFile(t, webApp), apply, errOut, false
	o.pollInterval = 5 * time.Millisecond
	if opts != nil {
		opts(o)
	}
	err := hubclient.Run(context.Background(), o)
	return out.String(), errOut.String(), err
}

func wellKnown(group, resource, ns, name string, more ...workv1.FeedbackRule) workv1.ManifestConfigOption {
	return workv1.ManifestConfigOption{ResourceIdentifier: workv1.ResourceIdentifier{Group: group, Resource: resource, Namespace: ns, Name: name},
		FeedbackRules: append([]workv1.FeedbackRule{{Type: workv1.WellKnownStatusType}}, more...)}
}

// TestCreateFlags: each flag's good input lands in the spec; bad input is
// refused in one line naming the flag, with nothing created.
func TestCreateFlags(t *testing.T) {
	deployment := workv1.ResourceIdentifier{Group: "apps", Resource: "deployments", Namespace: "apps", Name: "web"}
	configMap := workv1.ResourceIdentifier{Resource: "configmaps", Namespace: "apps", Name: "web"}
	widget := workv1.ResourceIdentifier{Group: "example.com", Resource: "widgets", Name: "w"}
	ssa := func(force bool) *workv1.UpdateStrategy {
		return &workv1.UpdateStrategy{Type: workv1.UpdateStrategyTypeServerSideApply, ServerSideApply: &workv1.ServerSideApplyConfig{Force: force}}
	}
	cases := map[string]struct {
		opts    func(o *CreateOptions)
		err     string
		configs []workv1.ManifestConfigOption
		delete  *workv1.DeleteOption
	}{
		"defaults: a workload's feedback": {configs: []workv1.ManifestConfigOption{wellKnown("apps", "deployments", "apps", "web")}},
		"--feedback=false":                {opts: func(o *CreateOptions) { o.Feedback = false }},
		"--feedback-json": {opts: func(o *CreateOptions) {
			o.FeedbackJSON = []string{"Deployment/web:updated=.status.updatedReplicas", "widget/w:phase=.status.phase"}
		},
			configs: []workv1.ManifestConfigOption{
				wellKnown("apps", "deployments", "apps", "web", workv1.FeedbackRule{Type: workv1.JSONPathsType, JsonPaths: []workv1.JsonPath{{Name: "updated", Path: ".status.updatedReplicas"}}}),
				{ResourceIdentifier: widget, FeedbackRules: []workv1.FeedbackRule{{Type: workv1.JSONPathsType, JsonPaths: []workv1.JsonPath{{Name: "phase", Path: ".status.phase"}}}}},
			}},
		"--feedback-json, not KIND/NAME:FIELD=PATH": {opts: func(o *CreateOptions) { o.FeedbackJSON = []string{"deployment/web"} },
			err: `--feedback-json "deployment/web" is not KIND/NAME:FIELD=JSONPATH: e.g. --feedback-json deployment/web:ready=.status.readyReplicas`},
		"--feedback-json, not under status": {opts: func(o *CreateOptions) { o.FeedbackJSON = []string{"deployment/web:x=.spec.replicas"} },
			err: "the path must be under .status"},
		"--feedback-json, an object not in the file": {opts: func(o *CreateOptions) { o.FeedbackJSON = []string{"deployment/api:x=.status.replicas"} },
			err: "has no deployment api: name an object of the file, e.g. --feedback-json"},
		"--delete-option Orphan": {opts: func(o *CreateOptions) { o.DeleteOption = "Orphan" },
			configs: []workv1.ManifestConfigOption{wellKnown("apps", "deployments", "apps", "web")},
			delete:  &workv1.DeleteOption{PropagationPolicy: workv1.DeletePropagationPolicyTypeOrphan}},
		"--delete-option, bad": {opts: func(o *CreateOptions) { o.DeleteOption = "orphan" },
			err: `--delete-option "orphan" is not Foreground or Orphan: e.g. --delete-option Orphan`},
		"--update-strategy ServerSideApply --force-conflicts": {opts: func(o *CreateOptions) { o.UpdateStrategy, o.ForceConflicts = "ServerSideApply", true },
			configs: []workv1.ManifestConfigOption{
				{ResourceIdentifier: deployment, FeedbackRules: []workv1.FeedbackRule{{Type: workv1.WellKnownStatusType}}, UpdateStrategy: ssa(true)},
				{ResourceIdentifier: configMap, UpdateStrategy: ssa(true)}, {ResourceIdentifier: widget, UpdateStrategy: ssa(true)},
			}},
		"--force-conflicts alone: server-side apply": {opts: func(o *CreateOptions) { o.ForceConflicts, o.Feedback = true, false },
			configs: []workv1.ManifestConfigOption{{ResourceIdentifier: deployment, UpdateStrategy: ssa(true)}, {ResourceIdentifier: configMap, UpdateStrategy: ssa(true)}, {ResourceIdentifier: widget, UpdateStrategy: ssa(true)}}},
		"--update-strategy, bad": {opts: func(o *CreateOptions) { o.UpdateStrategy = "Patch" },
			err: `--update-strategy "Patch" is not Update, CreateOnly, ServerSideApply or ReadOnly: e.g. --update-strategy ServerSideApply`},
		"--force-conflicts with another strategy": {opts: func(o *CreateOptions) { o.UpdateStrategy, o.ForceConflicts = "CreateOnly", true },
			err: "--force-conflicts forces a server-side apply, not --update-strategy CreateOnly: e.g. --update-strategy ServerSideApply --force-conflicts"},
		"--rollout with --clusters": {opts: func(o *CreateOptions) { o.Rollout.Type, o.Rollout.MaxFailures = "Progressive", "1" },
			err: "--rollout, --max-failures rolls out a --placement's works: with --clusters every work is written at once; drop it, or deliver with --placement"},
		"--timeout with --wait, not positive": {opts: func(o *CreateOptions) { o.Wait, o.Timeout = true, 0 }, err: "--timeout 0s: --wait needs a positive timeout, e.g. --timeout 5m"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fakeHub(t, readyClusters("c1")...)
			_, _, err := deliver(t, c, false, func(o *CreateOptions) {
				o.Clusters = []string{"c1"}
				if tc.opts != nil {
					tc.opts(o)
				}
			})
			w := &workv1.ManifestWork{}
			getErr := c.Get(context.Background(), client.ObjectKey{Namespace: "c1", Name: "web"}, w)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("error %v, want one line with %q", err, tc.err)
				}
				if getErr == nil {
					t.Error("a work was created")
				}
				return
			}
			if err != nil || getErr != nil {
				t.Fatal(err, getErr)
			}
			if diff := cmp.Diff(tc.configs, w.Spec.ManifestConfigs); diff != "" {
				t.Errorf("manifest configs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.delete, w.Spec.DeleteOption); diff != "" {
				t.Errorf("delete option (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCreateRollout: the rollout flags land on the set's placement ref;
// bad ones are refused naming the flag, with nothing created.
func TestCreateRollout(t *testing.T) {
	cases := map[string]struct {
		rollout RolloutFlags
		want    clusterv1alpha1.RolloutStrategy
		err     string
	}{
		"none: the api's default": {},
		"Progressive, every knob": {rollout: RolloutFlags{Type: "Progressive", MaxConcurrency: "25%", MinSuccessTime: time.Minute, ProgressDeadline: "10m", MaxFailures: "1", MandatoryGroups: []string{"canary", "1"}},
			want: clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.Progressive, Progressive: &clusterv1alpha1.RolloutProgressive{
				RolloutConfig:           clusterv1alpha1.RolloutConfig{MinSuccessTime: metav1.Duration{Duration: time.Minute}, ProgressDeadline: "10m", MaxFailures: intstr.FromInt32(1)},
				MandatoryDecisionGroups: clusterv1alpha1.MandatoryDecisionGroups{MandatoryDecisionGroups: []clusterv1alpha1.MandatoryDecisionGroup{{GroupName: "canary"}, {GroupIndex: 1}}},
				MaxConcurrency:          intstr.FromString("25%")}}},
		"ProgressivePerGroup": {rollout: RolloutFlags{Type: "ProgressivePerGroup", MaxFailures: "10%"},
			want: clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.ProgressivePerGroup, ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{
				RolloutConfig: clusterv1alpha1.RolloutConfig{MaxFailures: intstr.FromString("10%")}}}},
		"a knob alone: All": {rollout: RolloutFlags{ProgressDeadline: "None"},
			want: clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All, All: &clusterv1alpha1.RolloutAll{RolloutConfig: clusterv1alpha1.RolloutConfig{ProgressDeadline: "None"}}}},
		"--rollout, bad": {rollout: RolloutFlags{Type: "Canary"}, err: `--rollout "Canary" is not All, Progressive or ProgressivePerGroup: e.g. --rollout Progressive`},
		"--max-concurrency, bad": {rollout: RolloutFlags{Type: "Progressive", MaxConcurrency: "many"},
			err: `--max-concurrency "many" is not a number of clusters or a percentage: give e.g. 2 or 25%`},
		"--max-concurrency on All":    {rollout: RolloutFlags{MaxConcurrency: "2"}, err: "--max-concurrency applies to a Progressive rollout only: e.g. --rollout Progressive --max-concurrency 25%"},
		"--max-failures over 100%":    {rollout: RolloutFlags{MaxFailures: "120%"}, err: `--max-failures "120%" is over 100%`},
		"--progress-deadline, bad":    {rollout: RolloutFlags{ProgressDeadline: "soon"}, err: `--progress-deadline "soon" is not a duration: give e.g. 90s`},
		"--min-success-time negative": {rollout: RolloutFlags{MinSuccessTime: -time.Second}, err: "--min-success-time is -1s: it must not be negative"},
		"--mandatory-groups on All": {rollout: RolloutFlags{MandatoryGroups: []string{"canary"}},
			err: "--mandatory-groups applies to a Progressive or ProgressivePerGroup rollout: e.g. --rollout ProgressivePerGroup --mandatory-groups canary"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fakeHub(t, builder.Placement("apps", "prod").Obj())
			_, _, err := deliver(t, c, false, func(o *CreateOptions) { o.Placement, o.Namespace, o.Rollout = "prod", "apps", tc.rollout })
			set := &workv1alpha1.ManifestWorkReplicaSet{}
			getErr := c.Get(context.Background(), client.ObjectKey{Namespace: "apps", Name: "web"}, set)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				if getErr == nil {
					t.Error("a set was created")
				}
				return
			}
			if err != nil || getErr != nil {
				t.Fatal(err, getErr)
			}
			if diff := cmp.Diff(tc.want, set.Spec.PlacementRefs[0].RolloutStrategy); diff != "" {
				t.Errorf("rollout strategy (-want +got):\n%s", diff)
			}
		})
	}
}

// TestApplyChangesOnlyGivenFlags: apply keeps what the flags not given
// would set, and changes what those given say.
func TestApplyChangesOnlyGivenFlags(t *testing.T) {
	progressive := clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.Progressive, Progressive: &clusterv1alpha1.RolloutProgressive{
		RolloutConfig: clusterv1alpha1.RolloutConfig{ProgressDeadline: "5m"}, MaxConcurrency: intstr.FromInt32(1)}}
	jsonRule := workv1.FeedbackRule{Type: workv1.JSONPathsType, JsonPaths: []workv1.JsonPath{{Name: "x", Path: ".status.x"}}}
	cmID := workv1.ResourceIdentifier{Resource: "configmaps", Namespace: "apps", Name: "web"}
	oldSpec := workv1.ManifestWorkSpec{
		DeleteOption:    &workv1.DeleteOption{PropagationPolicy: workv1.DeletePropagationPolicyTypeOrphan},
		ManifestConfigs: []workv1.ManifestConfigOption{{ResourceIdentifier: cmID, FeedbackRules: []workv1.FeedbackRule{jsonRule}}},
	}
	set := &workv1alpha1.ManifestWorkReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "web"}, Spec: workv1alpha1.ManifestWorkReplicaSetSpec{
		ManifestWorkTemplate: oldSpec, PlacementRefs: []workv1alpha1.LocalPlacementReference{{Name: "prod", RolloutStrategy: progressive}}}}
	cases := map[string]struct {
		given    map[string]string
		delete   workv1.DeletePropagationPolicyType
		configs  []workv1.ManifestConfigOption
		strategy clusterv1alpha1.RolloutStrategy
		err      string
	}{
		"no flags: the objects only, and a new workload's feedback": {delete: workv1.DeletePropagationPolicyTypeOrphan, strategy: progressive,
			configs: []workv1.ManifestConfigOption{{ResourceIdentifier: cmID, FeedbackRules: []workv1.FeedbackRule{jsonRule}}, wellKnown("apps", "deployments", "apps", "web")}},
		"--delete-option and --max-concurrency": {given: map[string]string{"delete-option": "Foreground", "max-concurrency": "50%"}, delete: workv1.DeletePropagationPolicyTypeForeground,
			configs: []workv1.ManifestConfigOption{{ResourceIdentifier: cmID, FeedbackRules: []workv1.FeedbackRule{jsonRule}}, wellKnown("apps", "deployments", "apps", "web")},
			strategy: clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.Progressive, Progressive: &clusterv1alpha1.RolloutProgressive{
				RolloutConfig: clusterv1alpha1.RolloutConfig{ProgressDeadline: "5m"}, MaxConcurrency: intstr.FromString("50%")}}},
		"--feedback=false and --feedback-json: the old rules go": {given: map[string]string{"feedback": "false", "feedback-json": "configmap/web:y=.status.y"}, delete: workv1.DeletePropagationPolicyTypeOrphan, strategy: progressive,
			configs: []workv1.ManifestConfigOption{{ResourceIdentifier: cmID, FeedbackRules: []workv1.FeedbackRule{{Type: workv1.JSONPathsType, JsonPaths: []workv1.JsonPath{{Name: "y", Path: ".status.y"}}}}}}},
		"--rollout ProgressivePerGroup keeps the deadline": {given: map[string]string{"rollout": "ProgressivePerGroup"}, delete: workv1.DeletePropagationPolicyTypeOrphan,
			configs: []workv1.ManifestConfigOption{{ResourceIdentifier: cmID, FeedbackRules: []workv1.FeedbackRule{jsonRule}}, wellKnown("apps", "deployments", "apps", "web")},
			strategy: clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.ProgressivePerGroup, ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{
				RolloutConfig: clusterv1alpha1.RolloutConfig{ProgressDeadline: "5m"}}}},
		"--rollout All --max-concurrency": {given: map[string]string{"rollout": "All", "max-concurrency": "2"}, err: "--max-concurrency applies to a Progressive rollout only"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fakeHub(t, builder.Placement("apps", "prod").Obj(), set)
			cmd := NewCmdApply(io.Discard)
			for f, v := range tc.given {
				if err := cmd.Flags().Set(f, v); err != nil {
					t.Fatal(err)
				}
			}
			_, _, err := deliver(t, c, true, func(o *CreateOptions) {
				// The command's flags, as given on its command line.
				flags := cmd.Flags()
				o.Changed = flags.Changed
				o.Feedback, _ = flags.GetBool("feedback")
				o.FeedbackJSON, _ = flags.GetStringArray("feedback-json")
				o.DeleteOption, _ = flags.GetString("delete-option")
				o.Rollout.Type, _ = flags.GetString("rollout")
				o.Rollout.MaxConcurrency, _ = flags.GetString("max-concurrency")
				o.Placement, o.Namespace = "prod", "apps"
			})
			got := &workv1alpha1.ManifestWorkReplicaSet{}
			if err := c.Get(context.Background(), client.ObjectKeyFromObject(set), got); err != nil {
				t.Fatal(err)
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				if len(got.Spec.ManifestWorkTemplate.Workload.Manifests) != 0 {
					t.Error("the set was written")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tmpl := got.Spec.ManifestWorkTemplate
			if len(tmpl.Workload.Manifests) != 3 || tmpl.DeleteOption.PropagationPolicy != tc.delete {
				t.Errorf("%d manifests (want 3), delete option %v (want %s)", len(tmpl.Workload.Manifests), tmpl.DeleteOption, tc.delete)
			}
			if diff := cmp.Diff(tc.configs, tmpl.ManifestConfigs); diff != "" {
				t.Errorf("manifest configs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.strategy, got.Spec.PlacementRefs[0].RolloutStrategy); diff != "" {
				t.Errorf("rollout strategy (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRefusalsAndWarnings: the mistakes refused before anything is
// written, and those only warned of.
func TestRefusalsAndWarnings(t *testing.T) {
	notAvailable := builder.AddOn("c2", "work").Obj()
	decision := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "prod-1", Labels: map[string]string{clusterv1beta1.PlacementLabel: "prod"}},
		Status: clusterv1beta1.PlacementDecisionStatus{Decisions: []clusterv1beta1.ClusterDecision{{ClusterName: "c1"}, {ClusterName: "c2"}, {ClusterName: "c3"}}}}
	cases := map[string]struct {
		objs []client.Object
		file string
		opts func(o *CreateOptions)
		// forbidWorks makes listing ManifestWorks forbidden, as for a team.
		forbidWorks bool
		err         string
		warning     string
	}{
		"--wait with --feedback=false": {objs: readyClusters("c1"), opts: func(o *CreateOptions) { o.Wait, o.Feedback = true, false },
			err: "--wait waits for deployment apps/web to be ready, which --feedback=false keeps from being reported: leave out one of them"},
		"--wait on a placement by a user who may not list works": {objs: []client.Object{builder.Placement("apps", "prod").Obj()}, forbidWorks: true,
			opts: func(o *CreateOptions) { o.Clusters, o.Placement, o.Namespace, o.Wait = nil, "prod", "apps", true },
			err: "--wait reads the set's works in the clusters' namespaces, and you may not list them (see docs/teams.md): " +
				"leave out --wait and follow the set with 'corral work get web -n apps -w'; nothing was created"},
		"a namespaced object without a namespace": {objs: readyClusters("c1"), file: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n",
			err: "deployment web has no namespace: add metadata.namespace (a ManifestWork does not default it); nothing was created"},
		"a cluster-scoped object and an unknown kind pass": {objs: readyClusters("c1"),
			file: "apiVersion: v1\nkind: Namespace\nmetadata: {name: apps}\n---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n"},
		"the work addon off": {objs: append(readyClusters("c1"), acceptedCluster("c2"), acceptedCluster("c3")), opts: func(o *CreateOptions) { o.Clusters = []string{"c1", "c2", "c3"} },
			err: "the work addon is not enabled on cluster c2, c3: no agent would apply the work there; enable it first (corral addon enable work --clusters c2,c3); nothing was created"},
		"the work addon not Available": {objs: append(readyClusters("c1"), acceptedCluster("c2"), notAvailable), opts: func(o *CreateOptions) { o.Clusters = []string{"c1", "c2"} },
			warning: "warning: the work addon on cluster c2 is not Available yet: its work waits for the agent (corral addon status work)\n"},
		"a placement selecting no cluster": {objs: []client.Object{builder.Placement("apps", "prod").Obj()}, opts: func(o *CreateOptions) { o.Clusters, o.Placement, o.Namespace = nil, "prod", "apps" },
			warning: "warning: placement prod selects no cluster yet: the works are made when it does (corral placement explain apps/prod)\n"},
		"a placement selecting clusters without the addon": {objs: append(readyClusters("c1"), builder.Placement("apps", "prod").Obj(), decision, acceptedCluster("c2"), notAvailable),
			opts: func(o *CreateOptions) { o.Clusters, o.Placement, o.Namespace = nil, "prod", "apps" },
			warning: "warning: the work addon is not enabled on cluster c3, which placement prod selects: no agent applies the work there (corral addon enable work --clusters c3)\n" +
				"warning: the work addon on cluster c2 is not Available yet: its work waits for the agent (corral addon status work)\n"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fakeHub(t, tc.objs...)
			if tc.forbidWorks {
				c = hubclienttest.NewClientBuilder(t, tc.objs...).WithInterceptorFuncs(interceptor.Funcs{
					List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
						// The verb's own lists select the set's works; the
						// test's check below lists them all.
						if _, ok := list.(*workv1.ManifestWorkList); ok && len(opts) > 0 {
							return apierrors.NewForbidden(workv1.Resource("manifestworks"), "", errors.New("team"))
						}
						return c.List(ctx, list, opts...)
					},
				}).Build()
			}
			_, warned, err := deliver(t, c, false, func(o *CreateOptions) {
				o.Clusters = []string{"c1"}
				if tc.file != "" {
					o.File = writeFile(t, tc.file)
				}
				if tc.opts != nil {
					tc.opts(o)
				}
			})
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				works, sets := &workv1.ManifestWorkList{}, &workv1alpha1.ManifestWorkReplicaSetList{}
				for _, l := range []client.ObjectList{works, sets} {
					if err := c.List(context.Background(), l); err != nil {
						t.Fatal(err)
					}
				}
				if n := len(works.Items) + len(sets.Items); n > 0 {
					t.Errorf("%d works or sets were created", n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if warned != tc.warning {
				t.Errorf("warned %q, want %q", warned, tc.warning)
			}
		})
	}
}

func TestReadManifestsOfADirectory(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"b.yml":      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: default}\n",
		"a.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default}\n",
		"c.json":     `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"default"}}`,
		"README.md":  "not a manifest",
		"sub/d.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: d, namespace: default}\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ReadManifests(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range got {
		names = append(names, object(m).GetName())
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, names); diff != "" {
		t.Errorf("objects, in file name order, not in sub-directories (-want +got):\n%s", diff)
	}
	if _, err := ReadManifests(filepath.Join(dir, "sub", ".."+"/sub"), nil); err != nil {
		t.Errorf("a directory of one file: %v", err)
	}
	empty := t.TempDir()
	if _, err := ReadManifests(empty, nil); err == nil || !strings.Contains(err.Error(), "holds no .yaml, .yml or .json file") {
		t.Errorf("an empty directory: %v", err)
	}
}
