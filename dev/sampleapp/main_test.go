package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeLookup answers with each of results in turn, the last one forever,
// and counts its calls.
type fakeLookup struct {
	results []lookupResult
	calls   int
}

type lookupResult struct {
	name string
	err  error
}

func (f *fakeLookup) lookup(context.Context) (string, error) {
	r := f.results[min(f.calls, len(f.results)-1)]
	f.calls++
	return r.name, r.err
}

// response is what one request got, and how many lookups had been made
// once it was answered.
type response struct {
	Code  int
	Body  string
	Calls int
}

func TestApp(t *testing.T) {
	found := lookupResult{name: "c1"}
	failed := lookupResult{err: errors.New("clusterclaims.cluster.open-cluster-management.io \"id.k8s.io\" is forbidden")}
	cases := map[string]struct {
		lookups []lookupResult
		paths   []string
		want    []response
	}{
		"the cluster's name": {
			lookups: []lookupResult{found},
			paths:   []string{"/"},
			want:    []response{{Code: http.StatusOK, Body: "hello from c1\n", Calls: 1}},
		},
		"any path answers the name": {
			lookups: []lookupResult{found},
			paths:   []string{"/some/where"},
			want:    []response{{Code: http.StatusOK, Body: "hello from c1\n", Calls: 1}},
		},
		"health needs no lookup": {
			lookups: []lookupResult{failed},
			paths:   []string{"/healthz"},
			want:    []response{{Code: http.StatusOK, Body: "ok\n", Calls: 0}},
		},
		"the name is looked up once": {
			lookups: []lookupResult{found, {name: "c2"}},
			paths:   []string{"/", "/", "/"},
			want: []response{
				{Code: http.StatusOK, Body: "hello from c1\n", Calls: 1},
				{Code: http.StatusOK, Body: "hello from c1\n", Calls: 1},
				{Code: http.StatusOK, Body: "hello from c1\n", Calls: 1},
			},
		},
		"a failed lookup is retried on the next request": {
			lookups: []lookupResult{failed, found},
			paths:   []string{"/", "/", "/"},
			want: []response{
				{Code: http.StatusServiceUnavailable, Body: "cannot tell which cluster this is: " + failed.err.Error() + "\n", Calls: 1},
				{Code: http.StatusOK, Body: "hello from c1\n", Calls: 2},
				{Code: http.StatusOK, Body: "hello from c1\n", Calls: 2},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := &fakeLookup{results: tc.lookups}
			a := &app{lookup: f.lookup}
			var got []response
			for _, p := range tc.paths {
				rec := httptest.NewRecorder()
				a.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, p, nil))
				got = append(got, response{Code: rec.Code, Body: rec.Body.String(), Calls: f.calls})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("responses to %v (-want +got):\n%s", tc.paths, diff)
			}
		})
	}
}

type ctxKey struct{}

func TestAppLooksUpWithTheRequestsContext(t *testing.T) {
	var got any
	a := &app{lookup: func(ctx context.Context) (string, error) {
		got = ctx.Value(ctxKey{})
		return "c1", nil
	}}
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req = req.WithContext(context.WithValue(req.Context(), ctxKey{}, "this request"))
	a.ServeHTTP(httptest.NewRecorder(), req)
	if got != "this request" {
		t.Errorf("lookup got a context with %v, want the request's", got)
	}
}

func TestLookupClusterNameOutsideACluster(t *testing.T) {
	cases := map[string]struct{ host, port string }{
		"neither host nor port": {},
		"no host":               {port: "443"},
		"no port":               {host: "10.96.0.1"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Setenv("KUBERNETES_SERVICE_HOST", tc.host)
			t.Setenv("KUBERNETES_SERVICE_PORT", tc.port)
			got, err := lookupClusterName(t.Context())
			if err == nil || !strings.Contains(err.Error(), "not in a cluster") {
				t.Errorf("lookupClusterName = %q, %v; want an error saying it is not in a cluster", got, err)
			}
		})
	}
}
