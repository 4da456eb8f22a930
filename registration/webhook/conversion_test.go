package webhook

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

func TestConversion(t *testing.T) {
	cases := map[string]struct {
		endpoint    endpoint
		wantURL     string
		wantService *ServiceRef
	}{
		"by URL": {endpoint: endpoint{url: "https://127.0.0.1:9443/"}, wantURL: "https://127.0.0.1:9443" + ConvertAddonsPath},
		"by Service": {endpoint: endpoint{service: &ServiceRef{Namespace: "ocm", Name: "hub", Port: 443}},
			wantService: &ServiceRef{Namespace: "ocm", Name: "hub", Port: 443}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := tc.endpoint.conversion([]byte("CA"))
			if *c.Strategy != apiextensionsv1.WebhookConverter {
				t.Errorf("strategy %s, want Webhook", *c.Strategy)
			}
			cc := c.Webhook.ClientConfig
			if string(cc.CABundle) != "CA" || len(c.Webhook.ConversionReviewVersions) != 1 || c.Webhook.ConversionReviewVersions[0] != "v1" {
				t.Errorf("caBundle %q, review versions %v", cc.CABundle, c.Webhook.ConversionReviewVersions)
			}
			if tc.wantURL != "" && (cc.URL == nil || *cc.URL != tc.wantURL || cc.Service != nil) {
				t.Errorf("clientConfig %+v, want URL %s", cc, tc.wantURL)
			}
			if s := tc.wantService; s != nil {
				got := cc.Service
				if got == nil || cc.URL != nil || *got.Namespace != s.Namespace || *got.Name != s.Name || *got.Port != s.Port || *got.Path != ConvertAddonsPath {
					t.Errorf("clientConfig %+v, want Service %+v at %s", cc, s, ConvertAddonsPath)
				}
			}
		})
	}
}
