package admissionreview

import (
	"net/http"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

func TestDecode(t *testing.T) {
	cases := map[string]struct {
		raw     string
		wantErr string
	}{
		"an object": {raw: `{"name":"a"}`},
		"no object": {wantErr: "the request has no object"},
		"not JSON":  {raw: `{`, wantErr: "unexpected end of JSON input"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got struct{ Name string }
			err := Decode([]byte(tc.raw), &got)
			switch {
			case tc.wantErr == "" && (err != nil || got.Name != "a"):
				t.Errorf("Decode = %+v, %v; want name a", got, err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("Decode error %v, want one saying %q", err, tc.wantErr)
			}
		})
	}
}

func TestInvalid(t *testing.T) {
	resp := Invalid("cluster %q: %s", "c1", "bad name")
	if resp.Allowed || resp.Result.Code != http.StatusBadRequest || resp.Result.Reason != metav1.StatusReasonBadRequest || resp.Result.Message != `cluster "c1": bad name` {
		t.Errorf("Invalid = %+v", resp.Result)
	}
}

func TestDecodeRequest(t *testing.T) {
	good := runtime.RawExtension{Raw: []byte(`{"metadata":{"name":"new"}}`)}
	bad := runtime.RawExtension{Raw: []byte(`{`)}
	cases := map[string]struct {
		op       admissionv1.Operation
		obj, old runtime.RawExtension
		done     bool
		allowed  bool
		message  string
	}{
		"create":             {op: admissionv1.Create, obj: good},
		"update":             {op: admissionv1.Update, obj: good, old: good},
		"delete, not read":   {op: admissionv1.Delete, done: true, allowed: true},
		"an undecodable one": {op: admissionv1.Create, obj: bad, done: true, message: "reading the Widget"},
		"an undecodable old": {op: admissionv1.Update, obj: good, old: bad, done: true, message: "reading the old Widget"},
		"an update, no old":  {op: admissionv1.Update, obj: good, done: true, message: "the request has no object"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{Operation: tc.op, Object: tc.obj, OldObject: tc.old,
				Kind: metav1.GroupVersionKind{Kind: "Widget"}}}
			var obj, old metav1.PartialObjectMetadata
			resp, done := DecodeRequest(req, &obj, &old)
			if done != tc.done || (done && resp.Allowed != tc.allowed) {
				t.Fatalf("DecodeRequest = %+v, done %v; want done %v, allowed %v", resp.Result, done, tc.done, tc.allowed)
			}
			if tc.message != "" && !strings.Contains(resp.Result.Message, tc.message) {
				t.Errorf("message = %q, want it to contain %q", resp.Result.Message, tc.message)
			}
			if !done && obj.Name != "new" {
				t.Errorf("obj = %+v, want it read", obj)
			}
		})
	}
}
