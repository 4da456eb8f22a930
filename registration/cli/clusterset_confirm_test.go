package cli

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/confirm"
	"github.com/corral-dev/corral/internal/confirm/confirmtest"
	"github.com/corral-dev/corral/internal/hubclient"
	"github.com/corral-dev/corral/internal/hubclient/hubclienttest"
	"github.com/corral-dev/corral/internal/testing/builder"
	propagationv1alpha1 "github.com/corral-dev/corral/propagation/api/v1alpha1"
)

// fleet is a hub where placements narrow/app and wide/app choose c1 and
// c2, both in set from: from is bound in narrow and wide, to only in wide.
// ManifestWorkReplicaSet narrow/web, Propagation narrow/shop and
// ClusterPropagation shared deliver by narrow/app, Propagation narrow/kept
// too but orphaning its objects, and addon hello's install strategy
// placed it on c1 by narrow/app. c3 is in no set
// and chosen by nothing; empty is a set with no clusters, bound in both;
// spare is a set with no clusters, bound nowhere.
func fleet() []client.Object {
	objs := []client.Object{
		builder.ClusterSet("from").Obj(), builder.ClusterSet("to").Obj(), builder.ClusterSet("empty").Obj(), builder.ClusterSet("spare").Obj(),
		builder.Cluster("c1").InSet("from").Obj(), builder.Cluster("c2").InSet("from").Obj(), builder.Cluster("c3").Obj(),
		boundBinding("narrow", "from"), boundBinding("wide", "from"), boundBinding("wide", "to"), boundBinding("narrow", "empty"), boundBinding("wide", "empty"),
		&workv1alpha1.ManifestWorkReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "narrow", Name: "web"},
			Spec: workv1alpha1.ManifestWorkReplicaSetSpec{PlacementRefs: []workv1alpha1.LocalPlacementReference{{Name: "app"}}}},
		&propagationv1alpha1.Propagation{ObjectMeta: metav1.ObjectMeta{Namespace: "narrow", Name: "shop"},
			Spec: propagationv1alpha1.PropagationSpec{PlacementRefs: []propagationv1alpha1.LocalPlacementReference{{Name: "app"}}}},
		&propagationv1alpha1.Propagation{ObjectMeta: metav1.ObjectMeta{Namespace: "narrow", Name: "kept"},
			Spec: propagationv1alpha1.PropagationSpec{PlacementRefs: []propagationv1alpha1.LocalPlacementReference{{Name: "app"}},
				PropagationPolicy: propagationv1alpha1.PropagationPolicy{DeletionPolicy: propagationv1alpha1.DeletionPolicyOrphan}}},
		&propagationv1alpha1.ClusterPropagation{ObjectMeta: metav1.ObjectMeta{Name: "shared"},
			Spec: propagationv1alpha1.ClusterPropagationSpec{PlacementRefs: []propagationv1alpha1.PlacementReference{
				{Namespace: "narrow", LocalPlacementReference: propagationv1alpha1.LocalPlacementReference{Name: "app"}}}}},
		&addonv1alpha1.ClusterManagementAddOn{ObjectMeta: metav1.ObjectMeta{Name: "hello"},
			Spec: addonv1alpha1.ClusterManagementAddOnSpec{InstallStrategy: addonv1alpha1.InstallStrategy{
				Type:       addonv1alpha1.AddonInstallStrategyPlacements,
				Placements: []addonv1alpha1.PlacementStrategy{{PlacementRef: addonv1alpha1.PlacementRef{Namespace: "narrow", Name: "app"}}},
			}}},
		builder.AddOn("c1", "hello").Obj(),
	}
	for _, ns := range []string{"narrow", "wide"} {
		objs = append(objs, builder.Placement(ns, "app").Obj(), &clusterv1beta1.PlacementDecision{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app-decision-1", Labels: map[string]string{clusterv1beta1.PlacementLabel: "app"}},
			Status:     clusterv1beta1.PlacementDecisionStatus{Decisions: []clusterv1beta1.ClusterDecision{{ClusterName: "c1"}, {ClusterName: "c2"}}},
		})
	}
	return objs
}

func boundBinding(ns, set string) *clusterv1beta2.ManagedClusterSetBinding {
	return &clusterv1beta2.ManagedClusterSetBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: set},
		Spec: clusterv1beta2.ManagedClusterSetBindingSpec{ClusterSet: set},
		Status: clusterv1beta2.ManagedClusterSetBindingStatus{Conditions: []metav1.Condition{
			{Type: clusterv1beta2.ClusterSetBindingBoundType, Status: metav1.ConditionTrue, Reason: "Bound"}}}}
}

// hubState is every object a clusterset verb may write, with its
// resourceVersion: equal states mean nothing was written.
func hubState(t *testing.T, c client.Client) []string {
	t.Helper()
	var state []string
	for _, list := range []client.ObjectList{&clusterv1.ManagedClusterList{}, &clusterv1beta2.ManagedClusterSetList{},
		&clusterv1beta2.ManagedClusterSetBindingList{}, &addonv1alpha1.ManagedClusterAddOnList{}} {
		if err := c.List(context.Background(), list); err != nil {
			t.Fatal(err)
		}
		items, _ := metaItems(list)
		for _, o := range items {
			state = append(state, fmt.Sprintf("%T %s/%s %s", list, o.GetNamespace(), o.GetName(), o.GetResourceVersion()))
		}
	}
	slices.Sort(state)
	return state
}

func metaItems(list client.ObjectList) ([]metav1.Object, error) {
	var out []metav1.Object
	switch l := list.(type) {
	case *clusterv1.ManagedClusterList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	case *clusterv1beta2.ManagedClusterSetList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	case *clusterv1beta2.ManagedClusterSetBindingList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	case *addonv1alpha1.ManagedClusterAddOnList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	}
	return out, nil
}

// setVerb is one clusterset verb run against a hub with conf.
type setVerb func(ctx context.Context, hub hubclient.Hub, out *bytes.Buffer, conf confirm.Options) error

func clustersetSet(set string, clusters ...string) setVerb {
	return func(ctx context.Context, hub hubclient.Hub, out *bytes.Buffer, conf confirm.Options) error {
		o := &ClusterSetSetOptions{Out: out, Hub: hub, Confirm: conf, Name: set, Clusters: clusters}
		return o.Run(ctx)
	}
}

func clustersetDelete(set string) setVerb {
	return func(ctx context.Context, hub hubclient.Hub, out *bytes.Buffer, conf confirm.Options) error {
		o := &ClusterSetDeleteOptions{Out: out, Hub: hub, Confirm: conf, Name: set}
		return o.Run(ctx)
	}
}

func clustersetUnbind(set, ns string) setVerb {
	return func(ctx context.Context, hub hubclient.Hub, out *bytes.Buffer, conf confirm.Options) error {
		o := &ClusterSetBindOptions{Out: out, Hub: hub, Confirm: conf, Name: set, Namespace: ns, Unbind: true}
		return o.Run(ctx)
	}
}

// TestClusterSetVerbsAsk: each verb shows what it removes, refuses off a
// terminal without --yes and with --dry-run writes nothing, and goes ahead
// with --yes or a person's y.
func TestClusterSetVerbsAsk(t *testing.T) {
	c1Loses := []string{
		"  - c1: placement narrow/app drops it",
		"  - c1: ManifestWorkReplicaSet narrow/web's work leaves it, and what the work applied there is removed",
		"  - c1: Propagation narrow/shop's objects leave it, and are removed there",
		"  - c1: ClusterPropagation shared's objects leave it, and are removed there",
		"  - c1: addon hello's agent is removed (its install strategy placed it there by placement narrow/app)",
	}
	c2Loses := []string{"  - c2: placement narrow/app drops it",
		"  - c2: ManifestWorkReplicaSet narrow/web's work leaves it, and what the work applied there is removed",
		"  - c2: Propagation narrow/shop's objects leave it, and are removed there",
		"  - c2: ClusterPropagation shared's objects leave it, and are removed there"}
	verbs := map[string]struct {
		run       setVerb
		wantShown []string
		notShown  []string
	}{
		"set moves c1 out of the sets narrow may use": {run: clustersetSet("to", "c1"),
			wantShown: append([]string{"c1: moves from cluster set from to to", "let the placement use set to (bind it in namespace narrow"}, c1Loses...),
			notShown:  []string{"wide/app", "c2"}},
		"delete of a bound set": {run: clustersetDelete("from"),
			wantShown: append(append([]string{"cluster set from is deleted (it holds 2 clusters)",
				"  - namespace narrow: its binding from is left without the set (it stays, unbound)",
				"  - namespace wide: its binding from is left without the set",
				"  - c1: placement wide/app drops it", "  - c2: placement wide/app drops it"}, c1Loses...), c2Loses...)},
		"unbind in narrow": {run: clustersetUnbind("from", "narrow"),
			wantShown: append(append([]string{"binding narrow/from is deleted"}, c1Loses...), c2Loses...),
			notShown:  []string{"wide/app"}},
	}
	// conf is a function: a person's answer is read once.
	modes := map[string]struct {
		conf    func() confirm.Options
		writes  bool
		wantErr string
		wantOut string
	}{
		"off a terminal, refused": {conf: func() confirm.Options { return confirm.Options{} }, wantErr: "pass --yes"},
		"dry run":                 {conf: func() confirm.Options { return confirm.Options{DryRun: true} }, wantOut: "dry run: nothing was changed"},
		"--yes":                   {conf: func() confirm.Options { return confirm.Options{Yes: true} }, writes: true},
		"a person answering y": {conf: func() confirm.Options { return confirm.Options{Terminal: true, In: strings.NewReader("y\n")} },
			writes: true, wantOut: "? [y/N] "},
		"a person answering n": {conf: func() confirm.Options { return confirm.Options{Terminal: true, In: strings.NewReader("n\n")} },
			wantOut: "nothing was changed"},
	}
	for vname, v := range verbs {
		for mname, m := range modes {
			t.Run(vname+"/"+mname, func(t *testing.T) {
				c := hubclienttest.NewClientBuilder(t, fleet()...).Build()
				before := hubState(t, c)
				var out bytes.Buffer
				err := v.run(t.Context(), hubclient.Hub{Client: c}, &out, m.conf())
				confirmtest.Expect(t, err, out.String(), m.wantErr, append(v.wantShown, m.wantOut), append(v.notShown, "narrow/kept"))
				after := hubState(t, c)
				if wrote := cmp.Diff(before, after) != ""; wrote != m.writes {
					t.Errorf("wrote = %v, want %v (-before +after):\n%s", wrote, m.writes, cmp.Diff(before, after))
				}
			})
		}
	}
}

// TestClusterSetVerbsRemovingNothingAskNothing: a change that takes
// nothing from any cluster goes ahead off a terminal, without a question.
func TestClusterSetVerbsRemovingNothingAskNothing(t *testing.T) {
	cases := map[string]struct {
		run     setVerb
		wantOut string
	}{
		"set of a cluster in no set":         {run: clustersetSet("to", "c3"), wantOut: "c3: put in cluster set to\n"},
		"set of a cluster in the set":        {run: clustersetSet("from", "c1"), wantOut: "c1: already in cluster set from\n"},
		"set to a set both may use":          {run: clustersetSet("empty", "c1", "c2"), wantOut: "c1: moved from cluster set from to empty\nc2: moved from cluster set from to empty\n"},
		"delete of a set no namespace binds": {run: clustersetDelete("spare"), wantOut: "cluster set spare deleted\n"},
		"unbind of a set with no cluster":    {run: clustersetUnbind("empty", "narrow"), wantOut: "cluster set empty unbound from namespace narrow\n"},
		"unbind of what is not bound":        {run: clustersetUnbind("to", "narrow"), wantOut: "cluster set to is not bound in namespace narrow\n"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := hubclienttest.NewClientBuilder(t, fleet()...).Build()
			var out bytes.Buffer
			if err := tc.run(t.Context(), hubclient.Hub{Client: c}, &out, confirm.Options{}); err != nil {
				t.Fatal(err)
			}
			if out.String() != tc.wantOut {
				t.Errorf("printed %q, want %q", out.String(), tc.wantOut)
			}
		})
	}
}
