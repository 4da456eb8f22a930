package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/internal/hubclient/hubclienttest"
	"github.com/corral-dev/corral/internal/testing/builder"
	"github.com/corral-dev/corral/placement/hub/scheduler"
)

func hub(t *testing.T) client.WithWatch { t.Helper(); return hubBuilder(t).Build() }

// hubBuilder builds hub's objects.
func hubBuilder(t *testing.T) *fake.ClientBuilder {
	t.Helper()
	return hubclienttest.NewClientBuilder(t,
		builder.Cluster("a").InSet("prod").Label("env", "prod").Obj(),
		builder.Cluster("b").InSet("prod").Label("env", "prod").Obj(),
		builder.Cluster("c").InSet("prod").Label("env", "dev").Obj(),
		&clusterv1beta2.ManagedClusterSet{ObjectMeta: metav1.ObjectMeta{Name: "prod"}},
		&clusterv1beta2.ManagedClusterSetBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "prod"},
			Spec:   clusterv1beta2.ManagedClusterSetBindingSpec{ClusterSet: "prod"},
			Status: clusterv1beta2.ManagedClusterSetBindingStatus{Conditions: []metav1.Condition{{Type: clusterv1beta2.ClusterSetBindingBoundType, Status: metav1.ConditionTrue}}}},
		builder.Placement("apps", "web").Generation(1).NumberOfClusters(2).RequireLabels("env", "prod").Obj(),
		&clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "web-decision-1",
			Labels: map[string]string{clusterv1beta1.PlacementLabel: "web"}},
			Status: clusterv1beta1.PlacementDecisionStatus{Decisions: []clusterv1beta1.ClusterDecision{{ClusterName: "a"}, {ClusterName: "b"}}}},
	)
}

func run(t *testing.T, o *ExplainOptions, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	o.Out, o.Now = &out, time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	o.Arg = args[0]
	err := hubclient.Run(context.Background(), o)
	return out.String(), err
}

// explainWeb explains apps/web on c as output says ("" for the table),
// failing the test on an error.
func explainWeb(t *testing.T, c client.WithWatch, output string) string {
	t.Helper()
	o := NewExplainOptions(nil)
	o.Hub.Client, o.Output = c, output
	out, err := run(t, o, "apps/web")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestExplainTable(t *testing.T) {
	out := explainWeb(t, hub(t), "")
	for _, want := range []string{
		"Placement apps/web: 2 selected, 2 wanted, of 3 candidates (2 passed the filters)",
		"PlacementSatisfied=True AllDecisionsScheduled: 2 clusters selected",
		"Prioritizers: Balance×1, Steady×1",
		"CLUSTER  ClusterSet  Predicate  TaintToleration  Balance  Steady  TOTAL  RANK  DECISION",
		"selected, group 0",
		"dropped: predicate 0: labels do not match env=prod",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "gained") {
		t.Errorf("nothing changed, yet the output compares:\n%s", out)
	}
}

func TestExplainNamesTheClustersBeingDeleted(t *testing.T) {
	c := hub(t)
	ctx := context.Background()
	b := &clusterv1.ManagedCluster{}
	if err := c.Get(ctx, client.ObjectKey{Name: "b"}, b); err != nil {
		t.Fatal(err)
	}
	b.Finalizers = []string{clusterv1.ManagedClusterFinalizer}
	if err := c.Update(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, b); err != nil {
		t.Fatal(err)
	}
	out := explainWeb(t, c, "")
	for _, want := range []string{"of 2 candidates", "Not considered, being deleted: b", "lost b"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output does not say %q:\n%s", want, out)
		}
	}
}

func TestExplainForATeamsUser(t *testing.T) {
	// A team's user may list decisions and bindings only in its namespace,
	// and no AddOnPlacementScores.
	forbidden := apierrors.NewForbidden(schema.GroupResource{Group: clusterv1.GroupName, Resource: "some"}, "", errors.New("not yours"))
	c := hubBuilder(t).WithInterceptorFuncs(interceptor.Funcs{
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			switch list.(type) {
			case *clusterv1alpha1.AddOnPlacementScoreList:
				return forbidden
			case *clusterv1beta1.PlacementDecisionList, *clusterv1beta2.ManagedClusterSetBindingList:
				if (&client.ListOptions{}).ApplyOptions(opts).Namespace != "apps" {
					return forbidden
				}
			}
			return c.List(ctx, list, opts...)
		},
	}).Build()
	exact := func(configs ...clusterv1beta1.PrioritizerConfig) clusterv1beta1.PrioritizerPolicy {
		return clusterv1beta1.PrioritizerPolicy{Mode: clusterv1beta1.PrioritizerPolicyModeExact, Configurations: configs}
	}
	builtIn := func(name string) clusterv1beta1.PrioritizerConfig {
		return clusterv1beta1.PrioritizerConfig{Weight: 1, ScoreCoordinate: &clusterv1beta1.ScoreCoordinate{Type: clusterv1beta1.ScoreCoordinateTypeBuiltIn, BuiltIn: name}}
	}
	const decisions, scores = "other namespaces' PlacementDecisions (Balance, Spread)", "AddOnPlacementScores (AddOn prioritizers, CEL scores())"
	for name, tc := range map[string]struct {
		edit   func(*clusterv1beta1.PlacementSpec)
		unseen []string
	}{
		"the default prioritizers weigh decisions": {edit: func(*clusterv1beta1.PlacementSpec) {}, unseen: []string{decisions}},
		"Steady reads only the placement's own":    {edit: func(s *clusterv1beta1.PlacementSpec) { s.PrioritizerPolicy = exact(builtIn(scheduler.Steady)) }},
		"Spread with constraints weighs decisions": {edit: func(s *clusterv1beta1.PlacementSpec) {
			s.PrioritizerPolicy = exact(builtIn(scheduler.Spread))
			s.SpreadPolicy = clusterv1beta1.SpreadPolicy{SpreadConstraints: []clusterv1beta1.SpreadConstraintsTerm{
				{TopologyKeyType: clusterv1beta1.TopologyKeyTypeLabel, TopologyKey: "env"}}}
		}, unseen: []string{decisions}},
		"an AddOn prioritizer reads scores": {edit: func(s *clusterv1beta1.PlacementSpec) {
			s.PrioritizerPolicy = exact(clusterv1beta1.PrioritizerConfig{Weight: 1, ScoreCoordinate: &clusterv1beta1.ScoreCoordinate{
				Type: clusterv1beta1.ScoreCoordinateTypeAddOn, AddOn: &clusterv1beta1.AddOnScore{ResourceName: "demo", ScoreName: "demo"}}})
		}, unseen: []string{scores}},
		"a CEL predicate reads scores": {edit: func(s *clusterv1beta1.PlacementSpec) {
			s.PrioritizerPolicy = exact(builtIn(scheduler.Steady))
			s.Predicates = append(s.Predicates, clusterv1beta1.ClusterPredicate{RequiredClusterSelector: clusterv1beta1.ClusterSelector{
				CelSelector: clusterv1beta1.ClusterCelSelector{CelExpressions: []string{`managedCluster.scores("demo").all(s, s.value > 0)`}}}})
		}, unseen: []string{scores}},
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			p := &clusterv1beta1.Placement{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: "apps", Name: "web"}, p); err != nil {
				t.Fatal(err)
			}
			edited := p.DeepCopy()
			tc.edit(&edited.Spec)
			if err := c.Update(ctx, edited); err != nil {
				t.Fatal(err)
			}
			defer func() {
				p.ResourceVersion = edited.ResourceVersion
				if err := c.Update(ctx, p); err != nil {
					t.Fatal(err)
				}
			}()
			out := explainWeb(t, c, "json")
			e := &Explanation{}
			if err := json.Unmarshal([]byte(out), e); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.unseen, e.Unseen); diff != "" {
				t.Errorf("unseen (-want +got):\n%s", diff)
			}
		})
	}

	out := explainWeb(t, c, "")
	for _, want := range []string{
		"Placement apps/web: 2 selected, 2 wanted, of 3 candidates (2 passed the filters)",
		"Not readable by you, so left out here: " + decisions + "; the scheduler's filters, scores and choice may differ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "gained") {
		t.Errorf("the decisions of apps were read, yet the output compares:\n%s", out)
	}
}

func TestExplainWhatIfShowsGainedAndLost(t *testing.T) {
	edited := filepath.Join(t.TempDir(), "web.yaml")
	if err := os.WriteFile(edited, []byte(`apiVersion: cluster.open-cluster-management.io/v1beta1
kind: Placement
metadata:
  name: web
spec:
  predicates:
  - requiredClusterSelector:
      labelSelector:
        matchLabels:
          env: dev
`), 0o600); err != nil {
		t.Fatal(err)
	}
	c := hub(t)
	o := NewExplainOptions(nil)
	o.Hub.Client, o.WhatIf, o.File, o.Output = c, true, edited, "json"
	out, err := run(t, o, "apps/web")
	if err != nil {
		t.Fatal(err)
	}
	var e Explanation
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	got := map[string][]string{"current": e.Current, "gained": e.Gained, "lost": e.Lost}
	want := map[string][]string{"current": {"a", "b"}, "gained": {"c"}, "lost": {"a", "b"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if !e.WhatIf || len(e.Result.Clusters) != 3 {
		t.Errorf("whatIf %v, %d clusters explained; want true and 3", e.WhatIf, len(e.Result.Clusters))
	}
	// Nothing was written.
	p := &clusterv1beta1.Placement{}
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: "apps", Name: "web"}, p); err != nil || p.Spec.Predicates[0].RequiredClusterSelector.LabelSelector.MatchLabels["env"] != "prod" {
		t.Errorf("the hub's placement changed: %+v (%v)", p.Spec, err)
	}
}

// whatIf is the table of explain --what-if apps/web with the Placement
// spec in placement.
func whatIf(t *testing.T, placement string) string {
	t.Helper()
	edited := filepath.Join(t.TempDir(), "web.yaml")
	if err := os.WriteFile(edited, []byte(placement), 0o600); err != nil {
		t.Fatal(err)
	}
	o := NewExplainOptions(nil)
	o.Hub.Client, o.WhatIf, o.File = hub(t), true, edited
	out, err := run(t, o, "apps/web")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// whatIfRun runs explain --what-if apps/web with the Placement in
// placement, returning its output and error.
func whatIfRun(t *testing.T, c client.WithWatch, placement string) (string, error) {
	t.Helper()
	edited := filepath.Join(t.TempDir(), "web.yaml")
	if err := os.WriteFile(edited, []byte(placement), 0o600); err != nil {
		t.Fatal(err)
	}
	o := NewExplainOptions(nil)
	o.Hub.Client, o.WhatIf, o.File = c, true, edited
	return run(t, o, "apps/web")
}

func TestExplainWhatIfExitCodes(t *testing.T) {
	cases := map[string]struct {
		placement string
		wantOut   []string
		wantErr   string
	}{
		"misconfigured": {placement: "spec:\n  numberOfClusters: -1\n",
			wantOut: []string{"Placement apps/web (what if) is misconfigured: spec.numberOfClusters is -1"},
			wantErr: "is misconfigured: spec.numberOfClusters is -1"},
		"a set not bound": {placement: "spec:\n  clusterSets: [prod, dev]\n",
			wantErr: "names cluster sets not bound to namespace apps: dev; bind each with corral clusterset bind SET -n apps"},
		"fine": {placement: "spec:\n  clusterSets: [prod]\n", wantOut: []string{"(what if): 3 selected"}},
		"another placement, a warning only": {placement: "metadata:\n  name: api\n  namespace: other\nspec: {}\n",
			wantOut: []string{"warning: ", "names placement other/api, not apps/web; explaining it as apps/web"}},
		"the same placement named, no warning": {placement: "metadata:\n  name: web\nspec: {}\n"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := whatIfRun(t, hub(t), tc.placement)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("error %v, want none", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want one saying %q", err, tc.wantErr)
			case err != nil && strings.Contains(err.Error(), "\n"):
				t.Errorf("the error is not one line: %q", err)
			}
			for _, want := range tc.wantOut {
				if !strings.Contains(out, want) {
					t.Errorf("the output does not say %q:\n%s", want, out)
				}
			}
			if len(tc.wantOut) == 0 && strings.Contains(out, "warning") {
				t.Errorf("the output warns:\n%s", out)
			}
		})
	}
}

func TestExplainRefusals(t *testing.T) {
	cases := map[string]struct {
		args   []string
		whatIf bool
		file   string
		output string
		want   string
	}{
		"no namespace":       {args: []string{"web"}, want: `"web" is not NAMESPACE/NAME`},
		"what-if without -f": {args: []string{"apps/web"}, whatIf: true, want: "--what-if needs the edited Placement"},
		"-f without what-if": {args: []string{"apps/web"}, file: "x.yaml", want: "-f is only read with --what-if"},
		"bad output":         {args: []string{"apps/web"}, output: "wide", want: `--output "wide" is not supported`},
		"unknown placement":  {args: []string{"apps/api"}, want: "no Placement api in namespace apps on the hub"},
		"a file that is not a placement": {args: []string{"apps/web"}, whatIf: true, file: "testdata-missing.yaml",
			want: "reading the edited placement"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := NewExplainOptions(nil)
			o.Hub.Client, o.WhatIf, o.File, o.Output = hub(t), tc.whatIf, tc.file, tc.output
			_, err := run(t, o, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

func TestExplainSaysSchedulingIsDisabled(t *testing.T) {
	c := hub(t)
	p := &clusterv1beta1.Placement{}
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: "apps", Name: "web"}, p); err != nil {
		t.Fatal(err)
	}
	p.Annotations = map[string]string{clusterv1beta1.PlacementDisableAnnotation: "true"}
	if err := c.Update(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	out := explainWeb(t, c, "")
	if want := "Placement apps/web: scheduling is disabled (" + clusterv1beta1.PlacementDisableAnnotation + "=true)"; !strings.Contains(out, want) {
		t.Errorf("the output does not say %q:\n%s", want, out)
	}
}

func TestWhatIfAppliesTheCRDDefaults(t *testing.T) {
	out := whatIf(t, `spec:
  prioritizerPolicy:
    mode: Exact
    configurations:
    - scoreCoordinate:
        builtIn: Steady
`)
	if want := "Prioritizers: Steady×1"; !strings.Contains(out, want) {
		t.Errorf("a prioritizer without a weight weighs 1 on the hub; the output does not say %q:\n%s", want, out)
	}
}

func TestDecodeWithDefaults(t *testing.T) {
	cases := map[string]struct {
		yaml string
		want clusterv1beta1.PlacementSpec
	}{
		"the spec's own defaults": {"spec: {}", clusterv1beta1.PlacementSpec{ScoreRateLimit: "1m", SortBy: clusterv1beta1.PlacementSortByClusterName}},
		"defaults within what is given": {`spec:
  prioritizerPolicy:
    configurations:
    - scoreCoordinate: {builtIn: Steady}
  tolerations:
  - key: gpu
  spreadPolicy:
    spreadConstraints:
    - {topologyKey: zone, topologyKeyType: Label}
  decisionStrategy:
    groupStrategy: {}
`, clusterv1beta1.PlacementSpec{ScoreRateLimit: "1m", SortBy: clusterv1beta1.PlacementSortByClusterName,
			PrioritizerPolicy: clusterv1beta1.PrioritizerPolicy{Mode: clusterv1beta1.PrioritizerPolicyModeAdditive,
				Configurations: []clusterv1beta1.PrioritizerConfig{{Weight: 1,
					ScoreCoordinate: &clusterv1beta1.ScoreCoordinate{Type: clusterv1beta1.ScoreCoordinateTypeBuiltIn, BuiltIn: "Steady"}}}},
			Tolerations: []clusterv1beta1.Toleration{{Key: "gpu", Operator: clusterv1beta1.TolerationOpEqual}},
			SpreadPolicy: clusterv1beta1.SpreadPolicy{SpreadConstraints: []clusterv1beta1.SpreadConstraintsTerm{{TopologyKey: "zone",
				TopologyKeyType: clusterv1beta1.TopologyKeyTypeLabel, MaxSkew: 1, WhenUnsatisfiable: clusterv1beta1.ScheduleAnyway}}},
			DecisionStrategy: clusterv1beta1.DecisionStrategy{GroupStrategy: clusterv1beta1.GroupStrategy{ClustersPerDecisionGroup: intstr.FromString("100%")}},
		}},
		"what is set is kept": {`spec:
  scoreRateLimit: 0s
  sortBy: Score
  prioritizerPolicy:
    mode: Exact
    configurations:
    - weight: 0
      scoreCoordinate: {builtIn: Balance}
`, clusterv1beta1.PlacementSpec{ScoreRateLimit: "0s", SortBy: clusterv1beta1.PlacementSortByScore,
			PrioritizerPolicy: clusterv1beta1.PrioritizerPolicy{Mode: clusterv1beta1.PrioritizerPolicyModeExact,
				Configurations: []clusterv1beta1.PrioritizerConfig{{Weight: 0,
					ScoreCoordinate: &clusterv1beta1.ScoreCoordinate{Type: clusterv1beta1.ScoreCoordinateTypeBuiltIn, BuiltIn: "Balance"}}}}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p, err := decodeWithDefaults([]byte(tc.yaml))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, p.Spec); diff != "" {
				t.Errorf("spec (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWhatIfReadsOnePlacement(t *testing.T) {
	cases := map[string]struct{ data, want string }{
		"empty":                 {data: "", want: "it holds no Placement"},
		"comments only":         {data: "# nothing yet\n", want: "it holds no Placement"},
		"two documents":         {data: "kind: Placement\n---\nkind: Placement\n", want: "it holds 2 documents: give one Placement"},
		"a list":                {data: "- a\n- b\n", want: "it holds a list, not a Placement"},
		"plain text":            {data: "just words", want: "it holds a string, not a Placement"},
		"one, after separators": {data: "---\nkind: Placement\nspec: {numberOfClusters: 2}\n---\n"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "p.yaml")
			if err := os.WriteFile(file, []byte(tc.data), 0o600); err != nil {
				t.Fatal(err)
			}
			p, err := readPlacement(file)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("readPlacement: %v", err)
			case tc.want == "" && (p.Spec.NumberOfClusters == nil || *p.Spec.NumberOfClusters != 2):
				t.Errorf("read %+v, want the document's numberOfClusters 2", p.Spec)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}
