package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/corral-dev/corral/internal/testing/builder"
	"github.com/corral-dev/corral/registration/common"
)

const available = addonv1alpha1.ManagedClusterAddOnConditionAvailable

func TestList(t *testing.T) {
	objs := []client.Object{cma("hello"), cma("idle"),
		builder.AddOn("c1", "hello").Condition(cond(available, metav1.ConditionTrue, "lease updated")).Obj(),
		builder.AddOn("c2", "hello").Condition(cond(available, metav1.ConditionFalse, "lease stopped")).Obj(),
		builder.AddOn("c1", "orphan").Obj()}
	hub, out := hubOpts(fakeHub(t, objs...))
	o := &ListOptions{Out: out, Hub: hub}
	if err := o.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"NAME    INSTALL  ENABLED  AVAILABLE  CLUSTERS  DESCRIPTION",
		"hello   Manual   2        1/2        c1,c2     hello addon",
		"idle    Manual   0        0/0        -         idle addon",
		"orphan  -        1        0/1        c1        not known to the hub (no ClusterManagementAddOn)",
	}
	if d := cmp.Diff(want, strings.Split(strings.TrimSpace(out.String()), "\n")); d != "" {
		t.Errorf("table (-want +got):\n%s", d)
	}

	hub, out = hubOpts(fakeHub(t, objs...))
	o = &ListOptions{Out: out, Hub: hub, Output: "json"}
	if err := o.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	var got AddonList
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Items) != 3 || got.Items[0].Name != "hello" || len(got.Items[0].Clusters) != 2 ||
		got.Items[0].Clusters[1].Available != "False" || got.Items[2].Known {
		t.Errorf("json: %+v", got)
	}
}

func TestListEmpty(t *testing.T) {
	hub, out := hubOpts(fakeHub(t))
	if err := (&ListOptions{Out: out, Hub: hub}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := "No addons on this hub yet.\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
}

func TestStatus(t *testing.T) {
	healthy := builder.AddOn("c1", "hello").Condition(
		cond(available, metav1.ConditionTrue, "lease updated"),
		cond(addonv1alpha1.ManagedClusterAddOnConditionDegraded, metav1.ConditionFalse, ""),
		cond(addonv1alpha1.ManagedClusterAddOnRegistrationApplied, metav1.ConditionTrue, ""),
		cond(common.ConditionCertificateRotated, metav1.ConditionTrue, "")).Obj()
	healthy.Status.Registrations = []addonv1alpha1.RegistrationConfig{{SignerName: certificatesv1.KubeAPIServerClientSignerName}}
	pending := builder.AddOn("c2", "hello").Condition(cond(addonv1alpha1.ManagedClusterAddOnRegistrationApplied, metav1.ConditionFalse, "no permission yet")).Obj()
	pending.Status.Registrations = []addonv1alpha1.RegistrationConfig{{SignerName: certificatesv1.KubeAPIServerClientSignerName}, {SignerName: "example.com/s"}}
	fresh := builder.AddOn("c3", "hello").Obj()

	hub, out := hubOpts(fakeHub(t, cma("hello"), healthy, pending, fresh))
	o := &StatusOptions{Out: out, Hub: hub, Addon: "hello"}
	if err := o.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"CLUSTER  AVAILABLE  DEGRADED  PROGRESSING  REGISTRATIONS              CREDENTIALS                             MESSAGE",
		"c1       True       False     -            kube-client                ready                                   lease updated",
		"c2       -          -         -            kube-client,example.com/s  permission failed, certificate pending  no permission yet",
		"c3       -          -         -            -                          none                                    waiting for the addon manager and agent to report",
	}
	if d := cmp.Diff(want, strings.Split(strings.TrimSpace(out.String()), "\n")); d != "" {
		t.Errorf("table (-want +got):\n%s", d)
	}
}

func TestStatusUnknownAddon(t *testing.T) {
	hub, out := hubOpts(fakeHub(t))
	err := (&StatusOptions{Out: out, Hub: hub, Addon: "nope"}).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "the hub has no addon nope") {
		t.Errorf("error %v, want one naming the addon", err)
	}
}

func TestStatusNotEnabled(t *testing.T) {
	hub, out := hubOpts(fakeHub(t, cma("hello")))
	if err := (&StatusOptions{Out: out, Hub: hub, Addon: "hello"}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Addon hello is not enabled on any cluster") {
		t.Errorf("printed %q", out.String())
	}
}

func TestStatusTemplateAddon(t *testing.T) {
	tmpl := templateCMA("dashboard")
	hub, out := hubOpts(fakeHub(t, tmpl, builder.AddOn("c1", "dashboard").Obj()))
	if err := (&StatusOptions{Out: out, Hub: hub, Addon: "dashboard"}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := "Note: addon dashboard is defined by an AddOnTemplate, which corral does not render: its agent is deployed only if OCM's addon manager runs against this hub.\n"
	if !strings.HasPrefix(out.String(), want) {
		t.Errorf("printed %q, want it to start with %q", out.String(), want)
	}

	hub, out = hubOpts(fakeHub(t, cma("hello"), builder.AddOn("c1", "hello").Obj()))
	if err := (&StatusOptions{Out: out, Hub: hub, Addon: "hello"}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "AddOnTemplate") {
		t.Errorf("an addon with no AddOnTemplate was said to have one: %q", out.String())
	}
}

// templateCMA is an addon defined by an AddOnTemplate, as OCM ships them.
//
//nolint:staticcheck // the stored v1alpha1 addon lists its configs in a deprecated field
func templateCMA(name string) *addonv1alpha1.ClusterManagementAddOn {
	c := cma(name)
	c.Spec.SupportedConfigs = []addonv1alpha1.ConfigMeta{{
		ConfigGroupResource: addonv1alpha1.ConfigGroupResource{Group: addonv1alpha1.GroupName, Resource: "addontemplates"},
		DefaultConfig:       &addonv1alpha1.ConfigReferent{Name: name + "-template"},
	}}
	return c
}

// TestStatusMessage: the MESSAGE column says what is wrong first, a
// progress that has not completed next, and Available's message last.
func TestStatusMessage(t *testing.T) {
	progressing := func(status metav1.ConditionStatus, reason, msg string) metav1.Condition {
		return metav1.Condition{Type: addonv1alpha1.ManagedClusterAddOnConditionProgressing, Status: status, Reason: reason, Message: msg}
	}
	ok := cond(available, metav1.ConditionTrue, "available")
	cases := map[string]struct {
		conds []metav1.Condition
		want  string
	}{
		"all well":    {[]metav1.Condition{ok, progressing(metav1.ConditionFalse, addonv1alpha1.ProgressingReasonCompleted, "completed")}, "available"},
		"progressing": {[]metav1.Condition{ok, progressing(metav1.ConditionTrue, addonv1alpha1.ProgressingReasonProgressing, "waiting for the spec hash")}, "waiting for the spec hash"},
		"a config unsupported, over progress and availability": {[]metav1.Condition{ok, progressing(metav1.ConditionFalse, addonv1alpha1.ProgressingReasonConfigurationUnsupported, "not supported")}, "not supported"},
		"not available, over progress":                         {[]metav1.Condition{cond(available, metav1.ConditionFalse, "lease stopped"), progressing(metav1.ConditionTrue, addonv1alpha1.ProgressingReasonProgressing, "work is not ready")}, "lease stopped"},
		"nothing reported":                                     {nil, "waiting for the addon manager and agent to report"},
		"no lease, said where": {[]metav1.Condition{{Type: available, Status: metav1.ConditionUnknown, Reason: addonv1alpha1.AddonAvailableReasonLeaseLeaseNotFound,
			Message: "The status of hello add-on is unknown."}}, "The status of hello add-on is unknown. (no lease hello in its install namespace on the cluster: its agent has not started, or does not run)"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := message(builder.AddOn("c1", "hello").Condition(tc.conds...).Obj()); got != tc.want {
				t.Errorf("message = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestStatusRollouts(t *testing.T) {
	placed := cma("hello")
	placed.Status.InstallProgressions = []addonv1alpha1.InstallProgression{
		{PlacementRef: addonv1alpha1.PlacementRef{Namespace: "ns", Name: "canary"}, Conditions: []metav1.Condition{{
			Type: addonv1alpha1.ManagedClusterAddOnConditionProgressing, Status: metav1.ConditionTrue, Reason: addonv1alpha1.ProgressingReasonProgressing,
			Message: "1/2 addons applied the configs, 1 progressing, 0 failed, 0 timed out; 2 clusters selected"}}},
		{PlacementRef: addonv1alpha1.PlacementRef{Namespace: "ns", Name: "new"}}, // not looked at yet: no line
	}
	hub, out := hubOpts(fakeHub(t, placed, builder.AddOn("c1", "hello").Obj()))
	if err := (&StatusOptions{Out: out, Hub: hub, Addon: "hello"}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := "Configs rolled out by placement ns/canary: Progressing (1/2 addons applied the configs, 1 progressing, 0 failed, 0 timed out; 2 clusters selected)"
	if d := cmp.Diff(want, lines[len(lines)-1]); d != "" || len(lines) != 3 {
		t.Errorf("printed %q, want the table and then %q", out.String(), want)
	}
}
