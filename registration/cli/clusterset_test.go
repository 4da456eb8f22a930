package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
)

func TestClusterSetCreateValidate(t *testing.T) {
	exclusive := clusterv1beta2.ManagedClusterSelector{SelectorType: clusterv1beta2.ExclusiveClusterSetLabel}
	cases := map[string]struct {
		name, selectorType, labelSelector string
		want                              clusterv1beta2.ManagedClusterSelector
		wantErr                           string
	}{
		"no flags: exclusive": {name: "prod", want: exclusive},
		"exclusive named":     {name: "prod", selectorType: "ExclusiveClusterSetLabel", want: exclusive},
		"a label selector alone makes a LabelSelector set": {
			name: "eu", labelSelector: "region=eu",
			want: clusterv1beta2.ManagedClusterSelector{SelectorType: clusterv1beta2.LabelSelector,
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"region": "eu"}}},
		},
		"set-based selector syntax": {
			name: "big", selectorType: "LabelSelector", labelSelector: "size in (l,xl)",
			want: clusterv1beta2.ManagedClusterSelector{SelectorType: clusterv1beta2.LabelSelector,
				LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
					{Key: "size", Operator: metav1.LabelSelectorOpIn, Values: []string{"l", "xl"}},
				}}},
		},
		"LabelSelector without a selector":     {name: "eu", selectorType: "LabelSelector", wantErr: "needs --label-selector"},
		"exclusive with a selector":            {name: "eu", selectorType: "ExclusiveClusterSetLabel", labelSelector: "a=b", wantErr: "--label-selector is for LabelSelector sets"},
		"unknown selector type":                {name: "eu", selectorType: "Labels", wantErr: `--selector-type "Labels" is not a selector type`},
		"a bad selector":                       {name: "eu", labelSelector: "env in prod", wantErr: `--label-selector "env in prod"`},
		"a name that cannot be a label value":  {name: strings.Repeat("a", 64), wantErr: "is not a cluster set name"},
		"a name that cannot be an object name": {name: "Prod_1", wantErr: "is not a cluster set name"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := NewClusterSetCreateOptions(&bytes.Buffer{})
			o.Name, o.SelectorType, o.LabelSelector = tc.name, tc.selectorType, tc.labelSelector
			err := o.Validate()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Validate() = %v, want an error saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Validate() = %v", err)
			}
			if diff := cmp.Diff(tc.want, o.selector, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("selector (-want +got):\n%s", diff)
			}
		})
	}
}

func TestClusterSetDeleteRefusesTheHubsOwnSets(t *testing.T) {
	for _, name := range []string{"default", "global"} {
		o := NewClusterSetDeleteOptions(&bytes.Buffer{})
		o.Name = name
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "kept by the hub") {
			t.Errorf("Validate(%s) = %v, want a refusal", name, err)
		}
	}
	o := NewClusterSetDeleteOptions(&bytes.Buffer{})
	o.Name = "prod"
	if err := o.Validate(); err != nil {
		t.Errorf("Validate(prod) = %v", err)
	}
}

func TestClusterSetSetValidate(t *testing.T) {
	cases := map[string]struct {
		clusters []string
		wantErr  string
	}{
		"clusters named": {clusters: []string{"c1", "c2"}},
		"none named":     {wantErr: "--clusters"},
		"a bad name":     {clusters: []string{"c1", "Not_A_Name"}, wantErr: "is not a cluster name"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := NewClusterSetSetOptions(&bytes.Buffer{})
			o.Name, o.Clusters = "prod", tc.clusters
			err := o.Validate()
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("Validate() = %v, want error %q", err, tc.wantErr)
			}
		})
	}
}

func TestPrintClusterSetTable(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	created := metav1.NewTime(now.Add(-3 * time.Hour))
	prod := &clusterv1beta2.ManagedClusterSet{
		ObjectMeta: metav1.ObjectMeta{Name: "prod", CreationTimestamp: created},
		Status: clusterv1beta2.ManagedClusterSetStatus{Conditions: []metav1.Condition{
			{Type: clusterv1beta2.ManagedClusterSetConditionEmpty, Status: metav1.ConditionFalse},
		}},
	}
	global := &clusterv1beta2.ManagedClusterSet{
		ObjectMeta: metav1.ObjectMeta{Name: "global", CreationTimestamp: created},
		Spec: clusterv1beta2.ManagedClusterSetSpec{ClusterSelector: clusterv1beta2.ManagedClusterSelector{
			SelectorType: clusterv1beta2.LabelSelector, LabelSelector: &metav1.LabelSelector{},
		}},
	}
	eu := &clusterv1beta2.ManagedClusterSet{
		ObjectMeta: metav1.ObjectMeta{Name: "eu", CreationTimestamp: created},
		Spec: clusterv1beta2.ManagedClusterSetSpec{ClusterSelector: clusterv1beta2.ManagedClusterSelector{
			SelectorType: clusterv1beta2.LabelSelector, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"region": "eu"}},
		}},
	}
	var out bytes.Buffer
	PrintClusterSetTable(&out, []ClusterSetRow{
		{Set: eu, Clusters: -1},
		{Set: global, Clusters: 3, Namespaces: []string{"team-a"}},
		{Set: prod, Clusters: 2, Namespaces: []string{"team-a", "team-b"}},
		{Set: prod, Clusters: 2, BindingsHidden: true},
	}, now)
	want := [][]string{
		{"NAME", "TYPE", "SELECTOR", "CLUSTERS", "BINDINGS", "EMPTY", "AGE"},
		{"eu", "LabelSelector", "region=eu", "?", "-", "-", "3h"},
		{"global", "LabelSelector", "<all>", "3", "team-a", "-", "3h"},
		{"prod", "ExclusiveClusterSetLabel", "cluster.open-cluster-management.io/clusterset=prod", "2", "team-a,team-b", "False", "3h"},
		{"prod", "ExclusiveClusterSetLabel", "cluster.open-cluster-management.io/clusterset=prod", "2", "?", "False", "3h"},
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want), out.String())
	}
	for i, fields := range want {
		if diff := cmp.Diff(fields, strings.Fields(lines[i])); diff != "" {
			t.Errorf("line %d (-want +got):\n%s", i, diff)
		}
	}

	out.Reset()
	PrintClusterSetTable(&out, nil, now)
	if !strings.Contains(out.String(), "No cluster sets") {
		t.Errorf("empty table: got %q", out.String())
	}
}

func TestPick(t *testing.T) {
	items := []clusterv1beta2.ManagedClusterSet{{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, {ObjectMeta: metav1.ObjectMeta{Name: "b"}}}
	name := func(s *clusterv1beta2.ManagedClusterSet) string { return s.Name }
	if got, err := pick(items, name, nil, "cluster set"); err != nil || len(got) != 2 {
		t.Errorf("pick(all) = %v, %v", got, err)
	}
	if got, err := pick(items, name, []string{"b"}, "cluster set"); err != nil || len(got) != 1 || got[0].Name != "b" {
		t.Errorf("pick(b) = %v, %v", got, err)
	}
	if _, err := pick(items, name, []string{"b", "x", "y"}, "cluster set"); err == nil || err.Error() != "no such cluster set on the hub: x, y" {
		t.Errorf("pick(missing) = %v", err)
	}
}
