package manifestwork

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	clocktesting "k8s.io/utils/clock/testing"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/corral-dev/corral/internal/testing/builder"
	"github.com/corral-dev/corral/work/agent/apply"
)

func TestAccessCacheAsksOncePerRecheck(t *testing.T) {
	clock := clocktesting.NewFakeClock(time.Now())
	c := newAccessCache(clock)
	spec := authorizationv1.SubjectAccessReviewSpec{User: "u", ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "create", Resource: "configmaps"}}
	asked := 0
	answer, answerErr := true, error(nil)
	ask := func() (bool, error) { asked++; return answer, answerErr }

	for range 3 {
		if ok, err := c.allowed(spec, ask); !ok || err != nil {
			t.Fatalf("allowed = %v, %v; want true", ok, err)
		}
	}
	if asked != 1 {
		t.Errorf("asked %d times within the recheck period, want 1", asked)
	}
	other := spec
	other.ResourceAttributes = &authorizationv1.ResourceAttributes{Verb: "delete", Resource: "configmaps"}
	if _, _ = c.allowed(other, ask); asked != 2 {
		t.Errorf("another verb was answered from the cache")
	}

	answer = false
	clock.Step(accessRecheck)
	if ok, _ := c.allowed(spec, ask); ok || asked != 3 {
		t.Errorf("after the recheck period: allowed %v after %d asks, want a new answer (false) after 3", ok, asked)
	}

	answerErr = errors.New("boom")
	clock.Step(accessRecheck)
	if _, err := c.allowed(spec, ask); err == nil {
		t.Error("a failed review was not reported")
	}
	answerErr = nil
	if _, _ = c.allowed(spec, ask); asked != 5 {
		t.Errorf("a failed review was remembered: %d asks, want 5", asked)
	}
}

// TestExecutorClientsImpersonateTheServiceAccount checks what the managed
// API server is told: the executor's service account as the user, no
// groups (the server derives a service account's own, and naming them
// would need the impersonate verb on groups too), one client per
// executor, and the agent itself for a work without one.
func TestExecutorClientsImpersonateTheServiceAccount(t *testing.T) {
	var mu sync.Mutex
	var seen []http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		seen = append(seen, req.Header.Clone())
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"ns"}}`))
	}))
	defer srv.Close()
	// requests are the headers of the requests since it was last called.
	requests := func() []http.Header {
		mu.Lock()
		defer mu.Unlock()
		out := seen
		seen = nil
		return out
	}
	agent, err := dynamic.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	r := &Reconciler{dynamic: agent, executors: newExecutorClients(&rest.Config{Host: srv.URL})}
	cases := map[string]struct {
		work     *workv1.ManifestWork
		wantUser string
	}{
		"no executor: the agent":   {work: &workv1.ManifestWork{}},
		"an executor":              {work: builder.Work("", "").Executor("ns", "deployer").Obj(), wantUser: "system:serviceaccount:ns:deployer"},
		"another executor":         {work: builder.Work("", "").Executor("other", "deployer").Obj(), wantUser: "system:serviceaccount:other:deployer"},
		"the first executor again": {work: builder.Work("", "").Executor("ns", "deployer").Obj(), wantUser: "system:serviceaccount:ns:deployer"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, err := r.writer(tc.work)
			if err != nil {
				t.Fatal(err)
			}
			if tc.work.Spec.Executor == nil && c != agent {
				t.Error("a work without an executor does not write with the agent's own client")
			}
			configMaps := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
			if _, err := c.Resource(configMaps).Namespace("ns").Get(context.Background(), "cm", metav1.GetOptions{}); err != nil {
				t.Fatal(err)
			}
			seen := requests()
			if len(seen) != 1 {
				t.Fatalf("%d requests, want 1", len(seen))
			}
			if got := seen[0].Get("Impersonate-User"); got != tc.wantUser {
				t.Errorf("Impersonate-User = %q, want %q", got, tc.wantUser)
			}
			if got := seen[0].Values("Impersonate-Group"); len(got) > 0 {
				t.Errorf("Impersonate-Group = %q, want none", got)
			}
		})
	}
	if len(r.executors.clients) != 2 {
		t.Errorf("%d executor clients made, want one per executor (2)", len(r.executors.clients))
	}
}

func TestRefusedToExecutor(t *testing.T) {
	forbidden := fmt.Errorf("creating x: %w", apierrors.NewForbidden(schema.GroupResource{Resource: "rolebindings"}, "x", errors.New("escalation")))
	withExecutor := &workv1.ManifestWork{Spec: workv1.ManifestWorkSpec{Executor: &workv1.ManifestWorkExecutor{Subject: workv1.ManifestWorkExecutorSubject{
		Type: workv1.ExecutorSubjectTypeServiceAccount, ServiceAccount: &workv1.ManifestWorkSubjectServiceAccount{Namespace: "ns", Name: "sa"}}}}}
	cases := map[string]struct {
		work    *workv1.ManifestWork
		err     error
		wantMsg string
	}{
		"forbidden to the executor": {work: withExecutor, err: forbidden,
			wantMsg: "the work's executor system:serviceaccount:ns:sa may not apply rolebindings.rbac.authorization.k8s.io ns/x, the managed cluster says: " + forbidden.Error()},
		"another error":          {work: withExecutor, err: errors.New("boom")},
		"no error":               {work: withExecutor},
		"forbidden to the agent": {work: &workv1.ManifestWork{}, err: forbidden},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := refusedToExecutor(tc.work, apply.Key{GVR: rbacv1.SchemeGroupVersion.WithResource("rolebindings"), Namespace: "ns", Name: "x"}, tc.err)
			var msg string
			if got != nil {
				msg = got.Error()
				if !apierrors.IsForbidden(got) {
					t.Error("the refusal does not wrap the server's error")
				}
			}
			if msg != tc.wantMsg {
				t.Errorf("refusal = %q, want %q", msg, tc.wantMsg)
			}
		})
	}
}
