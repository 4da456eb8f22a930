// Package admissionreview reads the objects of an admission request and
// answers one that is malformed: what the hub's admission webhooks
// (registration/webhook, work/hub/validation, propagation/hub/webhook)
// share.
package admissionreview

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// Decode reads an object of an admission request (req.Object.Raw or
// req.OldObject.Raw) into into: admissionReviewVersions v1 sends JSON.
func Decode(raw []byte, into any) error {
	if len(raw) == 0 {
		return errors.New("the request has no object")
	}
	return json.Unmarshal(raw, into)
}

// Invalid refuses a malformed object (400 Bad Request), saying why.
func Invalid(format string, args ...any) admission.Response {
	resp := admission.Denied(fmt.Sprintf(format, args...))
	resp.Result.Code = http.StatusBadRequest
	resp.Result.Reason = metav1.StatusReasonBadRequest
	return resp
}

// DecodeRequest reads the object of a create or update into obj and, on
// update, the old one into old unless it is nil. done says the response is decided
// already: any other operation is allowed (a validator looks at creates
// and updates only), and an object that does not decode is Invalid.
func DecodeRequest(req admission.Request, obj, old any) (resp admission.Response, done bool) {
	switch req.Operation {
	case admissionv1.Create, admissionv1.Update:
	default:
		return admission.Allowed(""), true
	}
	if err := Decode(req.Object.Raw, obj); err != nil {
		return Invalid("reading the %s: %v", req.Kind.Kind, err), true
	}
	if req.Operation == admissionv1.Update && old != nil {
		if err := Decode(req.OldObject.Raw, old); err != nil {
			return Invalid("reading the old %s: %v", req.Kind.Kind, err), true
		}
	}
	return admission.Response{}, false
}
