package webhook

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// alice is the user of the test requests.
var alice = authenticationv1.UserInfo{
	Username: "alice", UID: "u-1", Groups: []string{"team-a", "system:authenticated"},
	Extra: map[string]authenticationv1.ExtraValue{"scopes": {"s1"}},
}

// grants are the permissions the fake authorizer allows alice, each as
// "subresource/name", e.g. "join/set-a".
type grants []string

// fakeKube is a clientset whose SubjectAccessReviews allow what g grants
// and record every review asked; fail makes them error instead.
type fakeKube struct {
	*kubefake.Clientset
	mu      sync.Mutex
	reviews []authorizationv1.SubjectAccessReviewSpec
}

func newFakeKube(g grants, fail bool, objects ...runtime.Object) *fakeKube {
	f := &fakeKube{Clientset: kubefake.NewClientset(objects...)}
	f.PrependReactor("create", "subjectaccessreviews", func(action clienttesting.Action) (bool, runtime.Object, error) {
		review := action.(clienttesting.CreateAction).GetObject().(*authorizationv1.SubjectAccessReview)
		f.mu.Lock()
		f.reviews = append(f.reviews, review.Spec)
		f.mu.Unlock()
		if fail {
			return true, nil, fmt.Errorf("the authorizer is down")
		}
		attrs := review.Spec.ResourceAttributes
		allowed := false
		for _, want := range g {
			allowed = allowed || (review.Spec.User == alice.Username && want == attrs.Subresource+"/"+attrs.Name)
		}
		review.Status.Allowed = allowed
		return true, review, nil
	})
	return f
}

// request is an admission request by alice for op on obj, replacing old.
// A nil obj or old, typed (a case's nil *ManagedCluster) or not, is left
// out of the request, as the API server leaves it out.
func request(t *testing.T, op admissionv1.Operation, obj, old any) admission.Request {
	t.Helper()
	raw := func(o any) runtime.RawExtension {
		if v := reflect.ValueOf(o); !v.IsValid() || v.Kind() == reflect.Pointer && v.IsNil() {
			return runtime.RawExtension{}
		}
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		return runtime.RawExtension{Raw: b}
	}
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID: "req-1", Operation: op, UserInfo: alice, Object: raw(obj), OldObject: raw(old),
	}}
}

// outcome is what a test expects of a response: allowed, or refused with
// code and a message containing every one of words.
type outcome struct {
	allowed bool
	code    int32
	words   []string
}

func allowedOutcome() outcome { return outcome{allowed: true} }

func refused(code int32, words ...string) outcome { return outcome{code: code, words: words} }

func checkOutcome(t *testing.T, resp admission.Response, want outcome) {
	t.Helper()
	if resp.Allowed != want.allowed {
		msg := ""
		if resp.Result != nil {
			msg = resp.Result.Message
		}
		t.Fatalf("allowed = %v, want %v (message %q)", resp.Allowed, want.allowed, msg)
	}
	if want.allowed {
		return
	}
	if resp.Result.Code != want.code {
		t.Errorf("code = %d, want %d (message %q)", resp.Result.Code, want.code, resp.Result.Message)
	}
	if strings.Contains(resp.Result.Message, "\n") {
		t.Errorf("message is more than one line: %q", resp.Result.Message)
	}
	for _, w := range want.words {
		if !strings.Contains(resp.Result.Message, w) {
			t.Errorf("message %q does not contain %q", resp.Result.Message, w)
		}
	}
}
