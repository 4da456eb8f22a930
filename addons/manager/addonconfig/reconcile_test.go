package addonconfig

import (
	"context"
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	clocktesting "k8s.io/utils/clock/testing"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/corral-dev/corral/addons/manager/addonowner"
	"github.com/corral-dev/corral/internal/steps"
)

// hub is a fake hub with addon "a": each named placement (in namespace
// ns) decides on its clusters, and the addon is enabled on enabled. The
// clusters it is enabled on exist, and those named in existing.
func hub(t *testing.T, cma *addonv1alpha1.ClusterManagementAddOn, placements map[string][]string, enabled ...string) client.Client {
	t.Helper()
	return hubWith(t, interceptor.Funcs{}, cma, placements, enabled...)
}

// hubWith is hub, its calls going through funcs.
func hubWith(t *testing.T, funcs interceptor.Funcs, cma *addonv1alpha1.ClusterManagementAddOn, placements map[string][]string, enabled ...string) client.Client {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := addonv1alpha1.Install(scheme); err != nil {
		t.Fatal(err)
	}
	if err := clusterv1beta1.Install(scheme); err != nil {
		t.Fatal(err)
	}
	if err := clusterv1.Install(scheme); err != nil {
		t.Fatal(err)
	}
	objs := []client.Object{cma}
	for name, clusters := range placements {
		d := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name + "-decision-1",
			Labels: map[string]string{clusterv1beta1.PlacementLabel: name, clusterv1beta1.DecisionGroupIndexLabel: "0"}}}
		for _, c := range clusters {
			d.Status.Decisions = append(d.Status.Decisions, clusterv1beta1.ClusterDecision{ClusterName: c})
		}
		objs = append(objs, &clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}, d)
	}
	for _, c := range enabled {
		objs = append(objs, &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: c, Name: cma.Name}},
			&clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: c}})
	}
	return fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).
		WithStatusSubresource(&addonv1alpha1.ManagedClusterAddOn{}, &addonv1alpha1.ClusterManagementAddOn{}).
		WithIndex(&addonv1alpha1.ManagedClusterAddOn{}, addonowner.NameIndex, func(o client.Object) []string { return []string{o.GetName()} }).
		WithInterceptorFuncs(funcs).Build()
}

// placedAddon is addon "a" installed by placements, each with its own
// config (ns/<placement>-config, already hashed by the framework) and
// strategy.
func placedAddon(strategy clusterv1alpha1.RolloutStrategy, placements ...string) *addonv1alpha1.ClusterManagementAddOn {
	cma := &addonv1alpha1.ClusterManagementAddOn{ObjectMeta: metav1.ObjectMeta{Name: "a"}}
	cma.Spec.InstallStrategy.Type = addonv1alpha1.AddonInstallStrategyPlacements
	for _, p := range placements {
		ref := addonv1alpha1.PlacementRef{Namespace: "ns", Name: p}
		referent := addonv1alpha1.ConfigReferent{Namespace: "ns", Name: p + "-config"}
		cma.Spec.InstallStrategy.Placements = append(cma.Spec.InstallStrategy.Placements, addonv1alpha1.PlacementStrategy{
			PlacementRef: ref, RolloutStrategy: strategy,
			Configs: []addonv1alpha1.AddOnConfig{{ConfigGroupResource: adc, ConfigReferent: referent}},
		})
		cma.Status.InstallProgressions = append(cma.Status.InstallProgressions, addonv1alpha1.InstallProgression{PlacementRef: ref,
			ConfigReferences: []addonv1alpha1.InstallConfigReference{{ConfigGroupResource: adc, DesiredConfig: &addonv1alpha1.ConfigSpecHash{ConfigReferent: referent, SpecHash: "h-" + p}}}})
	}
	return cma
}

// desiredOn is the config names the addon on cluster desires.
func desiredOn(t *testing.T, c client.Client, cluster string) []string {
	t.Helper()
	mca := &addonv1alpha1.ManagedClusterAddOn{}
	if err := c.Get(context.Background(), types.NamespacedName{Namespace: cluster, Name: "a"}, mca); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range mca.Status.ConfigReferences {
		names = append(names, r.DesiredConfig.Name+"@"+r.DesiredConfig.SpecHash)
	}
	return names
}

func reconcileAddon(t *testing.T, c client.Client) {
	t.Helper()
	r := &Reconciler{Client: c, Clock: clocktesting.NewFakePassiveClock(metav1.Now().Time)}
	if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: types.NamespacedName{Name: "a"}}); err != nil {
		t.Fatal(err)
	}
}

func TestTheLastPlacementDecidingOnAClusterGivesItsConfigs(t *testing.T) {
	c := hub(t, placedAddon(clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All}, "first", "second"),
		map[string][]string{"first": {"c1", "c2"}, "second": {"c2"}}, "c1", "c2", "elsewhere")
	reconcileAddon(t, c)
	for cluster, want := range map[string]string{"c1": "first-config@h-first", "c2": "second-config@h-second"} {
		if got := desiredOn(t, c, cluster); len(got) != 1 || got[0] != want {
			t.Errorf("%s desires %v, want %s", cluster, got, want)
		}
	}
	if got := desiredOn(t, c, "elsewhere"); len(got) != 0 {
		t.Errorf("a cluster no placement decides on desires %v, want the defaults (none)", got)
	}
}

func TestADecidedClusterWithoutTheAddon(t *testing.T) {
	one := clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.Progressive, Progressive: &clusterv1alpha1.RolloutProgressive{MaxConcurrency: intstr.FromInt32(1)}}
	// "aaa" comes first by name, and has no addon.
	t.Run("gone: passed over, not waited for", func(t *testing.T) {
		c := hub(t, placedAddon(one, "fleet"), map[string][]string{"fleet": {"aaa", "bbb", "ccc"}}, "bbb", "ccc")
		reconcileAddon(t, c)
		if got := desiredOn(t, c, "bbb"); len(got) != 1 {
			t.Errorf("bbb desires %v, want the placement's config: the rollout starts with it", got)
		}
		if got := desiredOn(t, c, "ccc"); len(got) != 0 {
			t.Errorf("ccc desires %v, want nothing yet (maxConcurrency 1)", got)
		}
	})
	t.Run("there, its addon still to be made: waited for", func(t *testing.T) {
		c := hub(t, placedAddon(one, "fleet"), map[string][]string{"fleet": {"aaa", "bbb"}}, "bbb")
		if err := c.Create(context.Background(), &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "aaa"}}); err != nil {
			t.Fatal(err)
		}
		reconcileAddon(t, c)
		if got := desiredOn(t, c, "bbb"); len(got) != 0 {
			t.Errorf("bbb desires %v, want nothing yet: aaa's addon, about to be made, has the one place", got)
		}
	})
}

func TestALostWriteRaceOnOneAddonLooksAgainSoonAndWritesTheRest(t *testing.T) {
	c := hubWith(t, interceptor.Funcs{SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
		if obj.GetNamespace() == "c1" {
			return apierrors.NewConflict(schema.GroupResource{Resource: "managedclusteraddons"}, obj.GetName(), errors.New("changed"))
		}
		return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
	}}, placedAddon(clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All}, "fleet"), map[string][]string{"fleet": {"c1", "c2"}}, "c1", "c2")
	r := &Reconciler{Client: c, Clock: clocktesting.NewFakePassiveClock(metav1.Now().Time)}
	res, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: types.NamespacedName{Name: "a"}})
	if err != nil || res.RequeueAfter != steps.ConflictRetry {
		t.Errorf("Reconcile = %+v, %v; want a look again after %s and no error", res, err, steps.ConflictRetry)
	}
	if got := desiredOn(t, c, "c2"); len(got) != 1 || got[0] != "fleet-config@h-fleet" {
		t.Errorf("c2 desires %v, want the placement's config", got)
	}
	cma := &addonv1alpha1.ClusterManagementAddOn{}
	if err := c.Get(context.Background(), types.NamespacedName{Name: "a"}, cma); err != nil {
		t.Fatal(err)
	}
	if cond := meta.FindStatusCondition(cma.Status.InstallProgressions[0].Conditions, addonv1alpha1.ManagedClusterAddOnConditionProgressing); cond == nil {
		t.Error("the install progression has no Progressing condition: the race stopped the reconcile before it")
	}
}
