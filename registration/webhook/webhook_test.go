package webhook

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestOptionsValidate(t *testing.T) {
	svc := &ServiceRef{Namespace: "open-cluster-management", Name: "corral-hub-webhook", Port: 443}
	cases := map[string]struct {
		opts Options
		want string // in the error; "" for none
	}{
		"the defaults":                      {},
		"a URL":                             {opts: Options{Port: 9443, URL: "https://hub.example:9443"}},
		"a Service with a cert dir":         {opts: Options{Service: svc, CertDir: "/certs"}},
		"a negative port":                   {opts: Options{Port: -1}, want: "webhook port -1 is not a port"},
		"an http URL":                       {opts: Options{URL: "http://127.0.0.1:9443"}, want: `webhook URL "http://127.0.0.1:9443" is not an https URL`},
		"a URL with a query":                {opts: Options{URL: "https://h/?a=b"}, want: "is not an https URL"},
		"a URL and a Service":               {opts: Options{URL: "https://h", Service: svc, CertDir: "/c"}, want: "not both"},
		"a Service without a cert dir":      {opts: Options{Service: svc}},
		"a Service with a cert Secret":      {opts: Options{Service: svc, CertSecret: "hub/certs"}},
		"a URL with a cert Secret":          {opts: Options{URL: "https://h", CertSecret: "hub/certs"}},
		"a cert dir and a cert Secret":      {opts: Options{CertDir: "/c", CertSecret: "hub/certs"}, want: "directory or the webhook certificate Secret, not both"},
		"a cert Secret without a namespace": {opts: Options{CertSecret: "certs"}, want: `webhook certificate Secret "certs" is not namespace/name`},
		"a cert Secret with a bad name":     {opts: Options{CertSecret: "hub/Certs"}, want: `"Certs" is not a valid name`},
		"a Service with a bad name":         {opts: Options{Service: &ServiceRef{Namespace: "ns", Name: "Bad_Name", Port: 443}, CertDir: "/c"}, want: `"Bad_Name" is not a valid name`},
		"a Service with a port too high":    {opts: Options{Service: &ServiceRef{Namespace: "ns", Name: "s", Port: 70000}, CertDir: "/c"}, want: "port 70000 is not a port"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := tc.opts.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestOptionsDefaults(t *testing.T) {
	svcHosts := []string{"svc.ns.svc", "svc.ns.svc.cluster.local", "svc.ns", "svc"}
	cases := map[string]struct {
		opts                           Options
		bind, url, host, lease, secret string
		hosts                          []string
	}{
		"loopback by default, on the given port": {
			opts: Options{Port: 9443},
			bind: "127.0.0.1", url: "https://127.0.0.1:9443", host: "127.0.0.1", lease: "open-cluster-management", hosts: []string{"127.0.0.1"},
		},
		"a URL elsewhere listens everywhere": {
			opts: Options{Port: 9443, URL: "https://hub.example:443", LeaseNamespace: "hub"},
			bind: "", url: "https://hub.example:443", host: "hub.example", lease: "hub", hosts: []string{"hub.example"},
		},
		"a URL with a cert Secret keeps the Secret given": {
			opts: Options{Port: 9443, URL: "https://hub.example:443", CertSecret: "hub/certs"},
			bind: "", url: "https://hub.example:443", host: "hub.example", lease: "open-cluster-management", secret: "hub/certs", hosts: []string{"hub.example"},
		},
		"a Service listens everywhere and the certificate names the Service": {
			opts: Options{Port: 9443, Service: &ServiceRef{Namespace: "ns", Name: "svc", Port: 443}, CertDir: "/c"},
			bind: "", url: "", host: "svc.ns.svc", lease: "open-cluster-management", hosts: svcHosts,
		},
		"a Service without a cert dir keeps its certificate in a Secret in its namespace": {
			opts: Options{Port: 9443, Service: &ServiceRef{Namespace: "ns", Name: "svc", Port: 443}},
			bind: "", url: "", host: "svc.ns.svc", lease: "open-cluster-management", secret: "ns/corral-hub-webhook-cert", hosts: svcHosts,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := tc.opts
			if err := o.complete(); err != nil {
				t.Fatal(err)
			}
			got := []string{o.BindAddress, o.URL, o.host(), o.LeaseNamespace, o.CertSecret}
			if diff := cmp.Diff([]string{tc.bind, tc.url, tc.host, tc.lease, tc.secret}, got); diff != "" {
				t.Errorf("bind, URL, host, lease namespace, cert Secret (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.hosts, o.hosts()); diff != "" {
				t.Errorf("hosts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOptionsPickAFreePort(t *testing.T) {
	o := Options{}
	if err := o.complete(); err != nil {
		t.Fatal(err)
	}
	if o.Port == 0 || o.URL != fmt.Sprintf("https://127.0.0.1:%d", o.Port) {
		t.Errorf("port %d, URL %q: want a free port and the URL naming it", o.Port, o.URL)
	}
}

func TestParseService(t *testing.T) {
	cases := map[string]struct {
		in   string
		want *ServiceRef
		err  string
	}{
		"namespace and name":  {in: "ocm/hub-webhook", want: &ServiceRef{Namespace: "ocm", Name: "hub-webhook", Port: 443}},
		"with a port":         {in: "ocm/hub-webhook:9443", want: &ServiceRef{Namespace: "ocm", Name: "hub-webhook", Port: 9443}},
		"no namespace":        {in: "hub-webhook", err: `"hub-webhook" is not namespace/name[:port]`},
		"a port not a number": {in: "ocm/hub:https", err: `port "https" is not a number`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := ParseService(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
