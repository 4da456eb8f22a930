package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/yaml"

	"github.com/corral-dev/corral/internal/hubclient"
)

var testNow = time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)

// runVerb runs v as the binary does, returning what it printed.
func runVerb(t *testing.T, v hubclient.Verb, out *bytes.Buffer) (string, error) {
	t.Helper()
	err := hubclient.Run(context.Background(), v)
	return out.String(), err
}

func TestParseFlags(t *testing.T) {
	cases := map[string]struct {
		o       CreateOptions
		want    clusterv1beta1.PlacementSpec
		wantErr string
	}{
		"a label selector": {o: CreateOptions{LabelSelector: "env=prod,tier in (gold,silver)"},
			want: clusterv1beta1.PlacementSpec{Predicates: []clusterv1beta1.ClusterPredicate{{RequiredClusterSelector: clusterv1beta1.ClusterSelector{
				LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}, MatchExpressions: []metav1.LabelSelectorRequirement{
					{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"gold", "silver"}}}}}}}}},
		"a claim selector, k=v as In": {o: CreateOptions{ClaimSelector: "region=eu,gpu"},
			want: clusterv1beta1.PlacementSpec{Predicates: []clusterv1beta1.ClusterPredicate{{RequiredClusterSelector: clusterv1beta1.ClusterSelector{
				ClaimSelector: clusterv1beta1.ClusterClaimSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
					{Key: "region", Operator: metav1.LabelSelectorOpIn, Values: []string{"eu"}},
					{Key: "gpu", Operator: metav1.LabelSelectorOpExists, Values: []string{}}}}}}}}},
		"prioritizers, additive, weight 1 by default": {o: CreateOptions{Prioritizers: []string{"Steady:1", "ResourceAllocatableCPU:2", "Balance"}},
			want: clusterv1beta1.PlacementSpec{PrioritizerPolicy: clusterv1beta1.PrioritizerPolicy{Mode: clusterv1beta1.PrioritizerPolicyModeAdditive,
				Configurations: []clusterv1beta1.PrioritizerConfig{builtInAt("Steady", 1), builtInAt("ResourceAllocatableCPU", 2), builtInAt("Balance", 1)}}}},
		"tolerations": {o: CreateOptions{Tolerations: []string{"k=v:NoSelect", "k2:Exists@300", "k3:Exists:PreferNoSelect"}},
			want: clusterv1beta1.PlacementSpec{Tolerations: []clusterv1beta1.Toleration{
				{Key: "k", Operator: clusterv1beta1.TolerationOpEqual, Value: "v", Effect: clusterv1.TaintEffectNoSelect},
				{Key: "k2", Operator: clusterv1beta1.TolerationOpExists, TolerationSeconds: ptrTo(int64(300))},
				{Key: "k3", Operator: clusterv1beta1.TolerationOpExists, Effect: clusterv1.TaintEffectPreferNoSelect}}}},
		"a number of clusters": {o: CreateOptions{NumberOfClusters: 2}, want: clusterv1beta1.PlacementSpec{NumberOfClusters: ptrTo(int32(2))}},
		"a bad label selector": {o: CreateOptions{LabelSelector: "env in prod"}, wantErr: `--label-selector "env in prod": `},
		"a bad claim selector": {o: CreateOptions{ClaimSelector: "=x"}, wantErr: `--claim-selector "=x": `},
		"an unknown prioritizer": {o: CreateOptions{Prioritizers: []string{"Fast:2"}},
			wantErr: `--prioritizers "Fast:2": "Fast" is not a built-in prioritizer (Balance, Steady, ResourceAllocatableCPU, ResourceAllocatableMemory, Spread); e.g.`},
		"a weight out of range": {o: CreateOptions{Prioritizers: []string{"Steady:11"}}, wantErr: `--prioritizers "Steady:11": the weight "11" is not a whole number from -10 to 10`},
		"a toleration of no value": {o: CreateOptions{Tolerations: []string{"gpu:NoSelect"}},
			wantErr: `--tolerations "gpu:NoSelect": say which values it tolerates: KEY=VALUE for one, KEY:Exists for any; e.g.`},
		"a toleration of a value and Exists": {o: CreateOptions{Tolerations: []string{"gpu=1:Exists"}}, wantErr: "give KEY:Exists or KEY=VALUE, not both"},
		"an unknown effect":                  {o: CreateOptions{Tolerations: []string{"gpu=1:NoSchedule"}}, wantErr: `"NoSchedule" is neither Exists nor an effect`},
		"bad seconds":                        {o: CreateOptions{Tolerations: []string{"gpu:Exists@soon"}}, wantErr: `the seconds after @ ("soon")`},
		"a bad set name":                     {o: CreateOptions{ClusterSets: []string{"Prod"}}, wantErr: `--clustersets: "Prod" is not a cluster set name`},
		"a negative number":                  {o: CreateOptions{NumberOfClusters: -2}, wantErr: "--number-of-clusters -2: give how many clusters to choose"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := tc.o
			o.Name, o.Namespace, o.Timeout = "web", "apps", time.Minute
			if o.NumberOfClusters == 0 && tc.want.NumberOfClusters == nil {
				o.NumberOfClusters = -1
			}
			err := o.Validate()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("error %v, want one line saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, o.placement.Spec); diff != "" {
				t.Errorf("spec (-want +got):\n%s", diff)
			}
		})
	}
}

func builtInAt(name string, weight int32) clusterv1beta1.PrioritizerConfig {
	return clusterv1beta1.PrioritizerConfig{Weight: weight, ScoreCoordinate: &clusterv1beta1.ScoreCoordinate{Type: clusterv1beta1.ScoreCoordinateTypeBuiltIn, BuiltIn: name}}
}

func ptrTo[T any](v T) *T { return &v }

// newCreate is create NAME -n apps on c, printing into out.
func newCreate(c client.WithWatch, out *bytes.Buffer, name string) *CreateOptions {
	o := NewCreateOptions(out)
	o.Hub.Client, o.Name, o.Namespace, o.settle = c, name, "apps", 50*time.Millisecond
	o.Confirm.Terminal = false
	return o
}

// scheduling is a hub whose scheduler decides at once: a Placement read
// back is satisfied, for its generation.
func scheduling(t *testing.T) client.WithWatch {
	return hubBuilder(t).WithInterceptorFuncs(interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if err := c.Get(ctx, key, obj, opts...); err != nil {
				return err
			}
			if p, ok := obj.(*clusterv1beta1.Placement); ok {
				p.Status.Conditions = []metav1.Condition{{Type: clusterv1beta1.PlacementConditionSatisfied, Status: metav1.ConditionTrue,
					Reason: "AllDecisionsScheduled", Message: "2 clusters selected", ObservedGeneration: p.Generation}}
			}
			return nil
		},
	}).WithObjects(&clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "api-decision-1",
		Labels: map[string]string{clusterv1beta1.PlacementLabel: "api"}},
		Status: clusterv1beta1.PlacementDecisionStatus{Decisions: []clusterv1beta1.ClusterDecision{{ClusterName: "a"}, {ClusterName: "c"}}}}).Build()
}

func TestCreate(t *testing.T) {
	cases := map[string]struct {
		hub     func(*testing.T) client.WithWatch
		name    string
		sets    []string
		dryRun  bool
		wantOut []string
		wantErr string
		created bool
	}{
		"says what it selects once decided": {hub: scheduling, name: "api", sets: []string{"prod"}, created: true,
			wantOut: []string{"placement apps/api created: selects 2 of 3 clusters: a, c"}},
		"says when there is no decision yet": {hub: hub, name: "api", created: true,
			wantOut: []string{"placement apps/api created: no decision yet; see corral placement get api -n apps"}},
		"refuses an existing placement": {hub: hub, name: "web",
			wantErr: "placement apps/web already exists: see it with corral placement get web -n apps"},
		"refuses a set not bound, saying how to bind it": {hub: hub, name: "api", sets: []string{"prod", "dev"},
			wantErr: "cluster set dev does not exist: create it with corral clusterset create dev"},
		"dry run writes nothing": {hub: hub, name: "api", sets: []string{"prod"}, dryRun: true,
			wantOut: []string{"placement apps/api: created, choosing every matching cluster from cluster sets prod", "dry run: nothing was changed"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := tc.hub(t)
			var out bytes.Buffer
			o := newCreate(c, &out, tc.name)
			o.ClusterSets, o.Confirm.DryRun = tc.sets, tc.dryRun
			got, err := runVerb(t, o, &out)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatal(err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want one saying %q", err, tc.wantErr)
			}
			for _, want := range tc.wantOut {
				if !strings.Contains(got, want) {
					t.Errorf("the output does not say %q:\n%s", want, got)
				}
			}
			err = c.Get(context.Background(), client.ObjectKey{Namespace: "apps", Name: tc.name}, &clusterv1beta1.Placement{})
			if exists := err == nil; tc.name != "web" && exists != tc.created {
				t.Errorf("placement apps/%s exists: %v, want %v", tc.name, exists, tc.created)
			}
		})
	}
}

func TestCreateRefusesUnboundSets(t *testing.T) {
	c := hubBuilder(t).WithObjects(&clusterv1beta2.ManagedClusterSet{ObjectMeta: metav1.ObjectMeta{Name: "dev"}},
		&clusterv1beta2.ManagedClusterSet{ObjectMeta: metav1.ObjectMeta{Name: "edge"}}).Build()
	var out bytes.Buffer
	o := newCreate(c, &out, "api")
	o.ClusterSets = []string{"prod", "dev", "edge", "gone"}
	_, err := runVerb(t, o, &out)
	if err == nil {
		t.Fatal("created a placement of unbound sets")
	}
	want := "cluster set dev is not bound to namespace apps: bind it with corral clusterset bind dev -n apps; " +
		"cluster set edge is not bound to namespace apps: bind it with corral clusterset bind edge -n apps; " +
		"cluster set gone does not exist: create it with corral clusterset create gone (corral clusterset get lists them); nothing was created"
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("every problem, in one line (-want +got):\n%s", diff)
	}
}

func TestCreatePrintsYAMLWithoutAHub(t *testing.T) {
	var out bytes.Buffer
	o := NewCreateOptions(&out)
	o.Name, o.Namespace, o.Output, o.NumberOfClusters = "web", "team-a", "yaml", 2
	o.ClusterSets, o.Tolerations = []string{"prod"}, []string{"gpu=true:NoSelect"}
	got, err := runVerb(t, o, &out)
	if err != nil {
		t.Fatal(err)
	}
	p := &clusterv1beta1.Placement{}
	if err := yaml.UnmarshalStrict([]byte(got), p); err != nil {
		t.Fatalf("%v:\n%s", err, got)
	}
	want := &clusterv1beta1.Placement{TypeMeta: metav1.TypeMeta{APIVersion: "cluster.open-cluster-management.io/v1beta1", Kind: "Placement"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web"},
		Spec: clusterv1beta1.PlacementSpec{ClusterSets: []string{"prod"}, NumberOfClusters: ptrTo(int32(2)),
			Tolerations: []clusterv1beta1.Toleration{{Key: "gpu", Operator: clusterv1beta1.TolerationOpEqual, Value: "true", Effect: clusterv1.TaintEffectNoSelect}}}}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("-o yaml (-want +got):\n%s", diff)
	}
}

func TestGetTable(t *testing.T) {
	created := metav1.NewTime(testNow.Add(-5 * time.Minute))
	c := hubBuilder(t).WithObjects(
		&clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "api", Generation: 2, CreationTimestamp: created},
			Status: clusterv1beta1.PlacementStatus{Conditions: []metav1.Condition{{Type: clusterv1beta1.PlacementConditionSatisfied,
				Status: metav1.ConditionFalse, Reason: "NoManagedClusterMatched", ObservedGeneration: 2}}}},
		&clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: "ops", Name: "all", CreationTimestamp: created}},
		&clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: "ops", Name: "all-decision-1",
			Labels: map[string]string{clusterv1beta1.PlacementLabel: "all"}},
			Status: clusterv1beta1.PlacementDecisionStatus{Decisions: []clusterv1beta1.ClusterDecision{{ClusterName: "d"}, {ClusterName: "c"}, {ClusterName: "b"}, {ClusterName: "a"}}}},
	).Build()
	cases := map[string]struct {
		name string
		all  bool
		want [][]string
	}{
		"a namespace": {want: [][]string{
			{"NAME", "SELECTED", "CLUSTERS", "SATISFIED", "AGE"},
			{"api", "0", "-", "False", "NoManagedClusterMatched", "5m"},
			{"web", "2", "a,", "b", "-"}}},
		"every namespace, truncating": {all: true, want: [][]string{
			{"NAMESPACE", "NAME", "SELECTED", "CLUSTERS", "SATISFIED", "AGE"},
			{"apps", "api", "0", "-", "False", "NoManagedClusterMatched", "5m"},
			{"apps", "web", "2", "a,", "b", "-"},
			{"ops", "all", "4", "a,", "b,", "c,", "+1", "more", "-", "5m"}}},
		"one": {name: "web", want: [][]string{{"NAME", "SELECTED", "CLUSTERS", "SATISFIED", "AGE"}, {"web", "2", "a,", "b", "-"}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			o := NewGetOptions(&out)
			o.Hub.Client, o.Namespace, o.AllNamespaces, o.Name, o.Now = c, "apps", tc.all, tc.name, testNow
			got, err := runVerb(t, o, &out)
			if err != nil {
				t.Fatal(err)
			}
			var rows [][]string
			for _, l := range strings.Split(strings.TrimSpace(got), "\n") {
				f := strings.Fields(l)
				if len(f) > 0 && f[len(f)-1] != "5m" && f[len(f)-1] != "AGE" {
					f = f[:len(f)-1] // web's age, which the fake client does not set
				}
				rows = append(rows, f)
			}
			if diff := cmp.Diff(tc.want, rows); diff != "" {
				t.Errorf("table (-want +got):\n%s\n%s", diff, got)
			}
		})
	}
}

func TestGetRefusals(t *testing.T) {
	cases := map[string]struct {
		o    GetOptions
		want string
	}{
		"-A with a name":  {o: GetOptions{Name: "web", AllNamespaces: true}, want: "-A lists every namespace's placements; to show web, name its namespace with -n instead"},
		"-w with -o":      {o: GetOptions{Watch: true, Output: "yaml"}, want: "-w reprints the table: leave out -o yaml, or -w"},
		"a missing one":   {o: GetOptions{Name: "nope"}, want: "no placement nope in namespace apps: corral placement get -n apps lists them"},
		"a bad -o":        {o: GetOptions{Output: "wide"}, want: `--output "wide" is not supported`},
		"a bad namespace": {o: GetOptions{Namespace: "Apps"}, want: `namespace "Apps" is not valid`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			o := tc.o
			o.Out, o.Hub.Client = &out, hub(t)
			if o.Namespace == "" {
				o.Namespace = "apps"
			}
			_, err := runVerb(t, &o, &out)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// delivering is hub with a ManifestWorkReplicaSet and an addon strategy
// following apps/web, one set following another placement, and one
// following apps/web that is being deleted (its own finalizer holds it).
func delivering(t *testing.T) client.WithWatch {
	return hubBuilder(t).WithObjects(
		&workv1alpha1.ManifestWorkReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "going",
			DeletionTimestamp: &metav1.Time{Time: time.Now()}, Finalizers: []string{"cluster.open-cluster-management.io/manifest-work-cleanup"}},
			Spec: workv1alpha1.ManifestWorkReplicaSetSpec{PlacementRefs: []workv1alpha1.LocalPlacementReference{{Name: "web"}}}},
		&workv1alpha1.ManifestWorkReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "site"},
			Spec: workv1alpha1.ManifestWorkReplicaSetSpec{PlacementRefs: []workv1alpha1.LocalPlacementReference{{Name: "web"}}}},
		&workv1alpha1.ManifestWorkReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "other"},
			Spec: workv1alpha1.ManifestWorkReplicaSetSpec{PlacementRefs: []workv1alpha1.LocalPlacementReference{{Name: "api"}}}},
		&addonv1alpha1.ClusterManagementAddOn{ObjectMeta: metav1.ObjectMeta{Name: "health"},
			Spec: addonv1alpha1.ClusterManagementAddOnSpec{InstallStrategy: addonv1alpha1.InstallStrategy{Type: addonv1alpha1.AddonInstallStrategyPlacements,
				Placements: []addonv1alpha1.PlacementStrategy{{PlacementRef: addonv1alpha1.PlacementRef{Namespace: "apps", Name: "web"}}}}}},
	).Build()
}

func TestDelete(t *testing.T) {
	effect := []string{
		"placement apps/web selects 2 clusters: a, b",
		"This removes:",
		"  - placement apps/web and its PlacementDecisions",
		"  - manifestworkreplicaset apps/site stops following the placement: its works on a, b stay, but are no longer rolled out or withdrawn by it (PlacementVerified goes False)",
		"  - addon health: uninstalled by its install strategy from the clusters a, b that none of its other placements selects",
	}
	cases := map[string]struct {
		yes, dryRun bool
		wantErr     string
		wantOut     []string
		deleted     bool
	}{
		"off a terminal without --yes, refused": {wantErr: "not asked on a terminal, so refusing to delete placement apps/web", wantOut: effect},
		"--dry-run writes nothing":              {dryRun: true, wantOut: append(effect, "dry run: nothing was changed")},
		"--yes deletes":                         {yes: true, wantOut: append(effect, "placement apps/web deleted"), deleted: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := delivering(t)
			var out bytes.Buffer
			o := NewDeleteOptions(&out)
			o.Hub.Client, o.Name, o.Namespace = c, "web", "apps"
			o.Confirm.Terminal, o.Confirm.Yes, o.Confirm.DryRun = false, tc.yes, tc.dryRun
			got, err := runVerb(t, o, &out)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatal(err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want one saying %q", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.wantOut, strings.Split(strings.TrimSpace(got), "\n")); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
			err = c.Get(context.Background(), client.ObjectKey{Namespace: "apps", Name: "web"}, &clusterv1beta1.Placement{})
			if deleted := apierrors.IsNotFound(err); deleted != tc.deleted {
				t.Errorf("deleted: %v, want %v (%v)", deleted, tc.deleted, err)
			}
		})
	}
}

func TestDeleteMissing(t *testing.T) {
	var out bytes.Buffer
	o := NewDeleteOptions(&out)
	o.Hub.Client, o.Name, o.Namespace = hub(t), "nope", "apps"
	if _, err := runVerb(t, o, &out); err == nil || err.Error() != "no placement nope in namespace apps: corral placement get -n apps lists them" {
		t.Errorf("error %v", err)
	}
}

// teamHub is hub as a team's user of apps sees it: only apps' placements,
// decisions, bindings and ManifestWorkReplicaSets.
func teamHub(t *testing.T) client.WithWatch {
	forbidden := apierrors.NewForbidden(schema.GroupResource{Group: clusterv1.GroupName, Resource: "some"}, "", errors.New("not yours"))
	namespaced := func(obj any) bool {
		switch obj.(type) {
		case *clusterv1beta1.Placement, *clusterv1beta1.PlacementList, *clusterv1beta1.PlacementDecisionList,
			*clusterv1beta2.ManagedClusterSetBinding, *clusterv1beta2.ManagedClusterSetBindingList, *workv1alpha1.ManifestWorkReplicaSetList:
			return true
		}
		return false
	}
	return hubBuilder(t).WithInterceptorFuncs(interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if !namespaced(obj) || key.Namespace != "apps" {
				return forbidden
			}
			return c.Get(ctx, key, obj, opts...)
		},
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			if !namespaced(list) || (&client.ListOptions{}).ApplyOptions(opts).Namespace != "apps" {
				return forbidden
			}
			return c.List(ctx, list, opts...)
		},
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if !namespaced(obj) || obj.GetNamespace() != "apps" {
				return forbidden
			}
			return c.Create(ctx, obj, opts...)
		},
	}).Build()
}

func TestTeamsUserWhenClustersCannotBeListed(t *testing.T) {
	c := teamHub(t)
	t.Run("explain shows the decisions and the hint", func(t *testing.T) {
		out := explainWeb(t, c, "")
		for _, want := range []string{"Placement apps/web: 2 clusters selected by its decisions: a, b",
			"You may not list the clusters, so no cluster's reasons are shown: " + hintClusters} {
			if !strings.Contains(out, want) {
				t.Errorf("the output does not say %q:\n%s", want, out)
			}
		}
	})
	t.Run("explain --what-if says what it needs", func(t *testing.T) {
		_, err := whatIfRun(t, c, "spec: {}\n")
		if err == nil || !strings.Contains(err.Error(), "--what-if runs the scheduler over the clusters, which you may not list") {
			t.Errorf("error %v", err)
		}
	})
	t.Run("get", func(t *testing.T) {
		var out bytes.Buffer
		o := NewGetOptions(&out)
		o.Hub.Client, o.Namespace = c, "apps"
		got, err := runVerb(t, o, &out)
		if err != nil || !strings.Contains(got, "a, b") {
			t.Errorf("%v:\n%s", err, got)
		}
	})
	t.Run("create checks the bindings and notes the sets", func(t *testing.T) {
		var out bytes.Buffer
		o := newCreate(c, &out, "api")
		o.ClusterSets = []string{"prod"}
		got, err := runVerb(t, o, &out)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"note: not checked that the cluster sets exist; " + hintSets, "placement apps/api created: no decision yet"} {
			if !strings.Contains(got, want) {
				t.Errorf("the output does not say %q:\n%s", want, got)
			}
		}
	})
	t.Run("delete notes the addons it could not look for", func(t *testing.T) {
		var out bytes.Buffer
		o := NewDeleteOptions(&out)
		o.Hub.Client, o.Name, o.Namespace, o.Confirm.DryRun = c, "web", "apps", true
		got, err := runVerb(t, o, &out)
		if err != nil || !strings.Contains(got, "note: you may not list ClusterManagementAddOns") {
			t.Errorf("%v:\n%s", err, got)
		}
	})
}
