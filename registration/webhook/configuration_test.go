package webhook

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/corral-dev/corral/addons"
)

func TestConfigurationsByURL(t *testing.T) {
	mutating, validating := configurations(endpoint{url: "https://127.0.0.1:9443/"}, []byte("CA"))
	type hook struct {
		name, url, group, version, resource string
	}
	got := []hook{}
	m := mutating.Webhooks[0]
	got = append(got, hook{*m.Name, *m.ClientConfig.URL, m.Rules[0].APIGroups[0], m.Rules[0].APIVersions[0], m.Rules[0].Resources[0]})
	for _, v := range validating {
		w := v.Webhooks[0]
		got = append(got, hook{*w.Name, *w.ClientConfig.URL, w.Rules[0].APIGroups[0], w.Rules[0].APIVersions[0], w.Rules[0].Resources[0]})
		if *v.Name != *w.Name {
			t.Errorf("configuration %s holds webhook %s", *v.Name, *w.Name)
		}
		if *w.FailurePolicy != admissionregistrationv1.Fail || *w.SideEffects != admissionregistrationv1.SideEffectClassNone ||
			*w.MatchPolicy != admissionregistrationv1.Equivalent || *w.TimeoutSeconds != timeoutSeconds || string(w.ClientConfig.CABundle) != "CA" {
			t.Errorf("%s: failurePolicy %s, sideEffects %s, matchPolicy %s, timeout %d, caBundle %q", *w.Name,
				*w.FailurePolicy, *w.SideEffects, *w.MatchPolicy, *w.TimeoutSeconds, w.ClientConfig.CABundle)
		}
		if diff := cmp.Diff([]admissionregistrationv1.OperationType{"CREATE", "UPDATE"}, w.Rules[0].Operations); diff != "" {
			t.Errorf("%s operations (-want +got):\n%s", *w.Name, diff)
		}
	}
	want := []hook{
		{ClusterMutatingName, "https://127.0.0.1:9443" + MutateClusterPath, "cluster.open-cluster-management.io", "v1", "managedclusters"},
		{BindingValidatingName, "https://127.0.0.1:9443" + ValidateBindingPath, "cluster.open-cluster-management.io", "v1beta2", "managedclustersetbindings"},
		{ClusterValidatingName, "https://127.0.0.1:9443" + ValidateClusterPath, "cluster.open-cluster-management.io", "v1", "managedclusters"},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(hook{})); diff != "" {
		t.Errorf("webhooks (-want +got):\n%s", diff)
	}
	if *m.FailurePolicy != admissionregistrationv1.Fail || *m.SideEffects != admissionregistrationv1.SideEffectClassNone {
		t.Errorf("mutating: failurePolicy %s, sideEffects %s", *m.FailurePolicy, *m.SideEffects)
	}
	if mutating.Labels[ManagedByLabel] != ManagedByValue {
		t.Errorf("labels %v: want %s=%s", mutating.Labels, ManagedByLabel, ManagedByValue)
	}
}

func TestConfigurationsByService(t *testing.T) {
	mutating, _ := configurations(endpoint{service: &ServiceRef{Namespace: "ocm", Name: "hub", Port: 443}}, []byte("CA"))
	cc := mutating.Webhooks[0].ClientConfig
	if cc.URL != nil {
		t.Errorf("url %q set beside a Service", *cc.URL)
	}
	got := []any{*cc.Service.Namespace, *cc.Service.Name, *cc.Service.Port, *cc.Service.Path}
	if diff := cmp.Diff([]any{"ocm", "hub", int32(443), MutateClusterPath}, got); diff != "" {
		t.Errorf("service (-want +got):\n%s", diff)
	}
}

func TestConfigurationsOfAddonWebhooks(t *testing.T) {
	extra := addons.ValidatingWebhook{Name: "thingvalidators.admission.example.io", Path: "/validate-thing", Rules: []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{"example.io"}, APIVersions: []string{"v1"}, Resources: []string{"things"}},
	}}}
	_, validating := configurations(endpoint{url: "https://127.0.0.1:9443"}, []byte("CA"), extra)
	if len(validating) != 3 {
		t.Fatalf("%d validating configurations, want the 2 of registration and the addon's", len(validating))
	}
	if last := *validating[2].Name; last != ClusterValidatingName {
		t.Errorf("the last validating configuration is %s: want %s, the one WaitServing probes, after the addons'", last, ClusterValidatingName)
	}
	v := validating[1]
	w := v.Webhooks[0]
	got := []any{*v.Name, *w.Name, *w.ClientConfig.URL, v.Labels[ManagedByLabel], w.Rules[0].Operations, w.Rules[0].APIGroups, w.Rules[0].Resources, *w.FailurePolicy}
	want := []any{extra.Name, extra.Name, "https://127.0.0.1:9443/validate-thing", ManagedByValue,
		[]admissionregistrationv1.OperationType{"CREATE"}, []string{"example.io"}, []string{"things"}, admissionregistrationv1.Fail}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("addon webhook configuration (-want +got):\n%s", diff)
	}
}
